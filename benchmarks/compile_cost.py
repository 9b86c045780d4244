"""What checking the largest kernels costs, beside what numba-cuda's own first-launch compile of
the same kernels costs, measured side by side in one run (alternating, each compile in a fresh
process, so that neither side finds the other's work in numba's caches).

- **kernlint**: what a worker does for one kernel of a file and what the run does with it after:
  read the file's slice (``python.slicing``), compile the kernel's signature to numba's LLVM IR
  (``compile.numba_cuda``: typing and lowering, with line info, no NVVM), and run every IR rule
  over it (``engine.analyse_result``).
- **numba**: ``CUDADispatcher.compile(sig)`` short of loading the code on a GPU, which is what a
  kernel's first launch does before its code reaches the driver: typing, lowering (no line info,
  numba's default), the kernel fix-up and NVVM (libdevice linked in, -O3, to PTX). The cubin
  (ptxas, in the driver or nvJitLink) and the module load come on top at a real first launch: the
  numba figure is a lower bound of what a user pays. It compiles the same function object
  (kernlint's slice of the module: what the kernel reads of it, as the user's import would give).

Each side's time is split by numba-cuda's compiler passes (its ``run_pass`` events), NVVM and
kernlint's own analysis; the ratio is of CPU seconds (this machine is shared: wall seconds are
reported too, but CPU time is what each side asks of it).

    python benchmarks/compile_cost.py OUT.json [--project DIR] [--signatures FILE]
        [--rounds N] [KERNEL ...]

KERNEL is ``path/in/project.py::qualname``; its signature comes from the signatures file (what
``kernlint record`` wrote from the project's own tests). The defaults: fbpic's largest
deposition kernels, from the local copy and the recording in ``benchmarks/results/recorded``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import tomllib
from typing import Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

DEFAULT_PROJECT = "/work/corpus/fbpic+fbpic"
DEFAULT_SIGNATURES = os.path.join(HERE, "results", "recorded", "fbpic+fbpic.toml")
DEFAULT_KERNELS = (
    "fbpic/particles/deposition/cuda_methods_one_mode.py::deposit_J_gpu_cubic_one_mode",
    "fbpic/particles/deposition/cuda_methods.py::deposit_J_gpu_cubic",
)
SIDES = ("kernlint", "numba")
CC = (9, 0)


# ---------------------------------------------------------------- one compile, in a child process

def _pass_timer():
    """A numba-cuda ``run_pass`` listener that sums each pass's seconds by the pass's name
    (numba-cuda 0.2x broadcast them as numba's own ``numba:run_pass``)."""
    try:
        from numba.cuda.core import event
        kind = "numba-cuda:run_pass"
    except ImportError:
        from numba.core import event
        kind = "numba:run_pass"
    totals: Dict[str, float] = {}

    class Passes(event.Listener):
        started = 0.0

        def on_start(self, e):
            self.started = time.process_time()

        def on_end(self, e):
            name = e.data["name"].split(" [")[0]
            totals[name] = totals.get(name, 0.0) + time.process_time() - self.started

    return event.install_listener(kind, Passes()), totals


def _candidate(path: str, qualname: str, project: str):
    from kernlint.compile.numba_cuda import FileResult, _sliced_candidates
    from kernlint.python.project import FrontendSettings
    from kernlint.source import SourceFile, decode_source, read_bytes

    result = FileResult(path=path)
    source = SourceFile(path, decode_source(read_bytes(path)))
    candidates = _sliced_candidates(path, source, result, FrontendSettings(root=project))
    found = [c for c in candidates or () if c.qualname == qualname]
    if not found:
        raise SystemExit(f"{path}: no kernel {qualname} ({[d.message for d in result.diagnostics]})")
    return found[0], source, result


def _warm_up() -> None:
    """What a kernlint worker has done before it forks (and a user's process after its first
    kernel): numba-cuda imported, its typing and target contexts made."""
    from kernlint.compile.numba_cuda import warm_up

    warm_up()


def measure_kernlint(path: str, qualname: str, signature: str, project: str) -> dict:
    from kernlint.compile.numba_cuda import _compile_candidate
    from kernlint.engine import analyse_result

    _warm_up()
    cpu, wall = time.process_time(), time.perf_counter()
    candidate, source, result = _candidate(path, qualname, project)
    read = time.process_time() - cpu
    listener, passes = _pass_timer()
    compiled_at = time.process_time()
    with listener:
        _compile_candidate(candidate, source, CC, {qualname: [(signature, "recorded")]}, False, None, result)
    compiled = time.process_time() - compiled_at
    if not result.kernels:
        raise SystemExit(f"{qualname}: not compiled: {[d.message for d in result.diagnostics]}")
    analysed_at = time.process_time()
    findings, _ = analyse_result(result)
    analysed = time.process_time() - analysed_at
    return {
        "cpu_seconds": time.process_time() - cpu,
        "wall_seconds": time.perf_counter() - wall,
        "phases": {"reading the slice": read, "numba compile to LLVM IR": compiled,
                   "kernlint analysis (IR reading, rules)": analysed},
        "passes": passes,
        "ir_chars": sum(len(m) for k in result.kernels for m in k.modules),
        "findings": sorted(f"{f.code} {f.line}" for f in findings),
    }


def measure_numba(path: str, qualname: str, signature: str, project: str) -> dict:
    from numba.cuda import codegen, nvvm

    from kernlint.compile.numba_cuda import offline_device

    _warm_up()
    candidate, _, _ = _candidate(path, qualname, project)
    # No driver here: the code library asks the current device for its compute capability
    # before NVVM; answer as the offline device does (everything up to the cubin runs).
    codegen.CUDACodeLibrary._ensure_cc = lambda self, cc: cc or (CC[0], CC[1], "a" if CC >= (9, 0) else "")
    nvvm_seconds = [0.0]
    compile_ir = nvvm.compile_ir

    def timed_compile_ir(*args, **kwargs):
        started = time.process_time()
        try:
            return compile_ir(*args, **kwargs)
        finally:
            nvvm_seconds[0] += time.process_time() - started

    nvvm.compile_ir = timed_compile_ir
    from numba.cuda import dispatcher as dispatchers

    listener, passes = _pass_timer()
    cpu, wall = time.process_time(), time.perf_counter()
    with listener, offline_device(CC):
        kernel = dispatchers._Kernel(candidate.dispatcher.py_func, *_argtypes(signature),
                                     **_kernel_options(candidate.dispatcher))
    total = time.process_time() - cpu
    ptx = kernel.library.get_asm_str((CC[0], CC[1], "a" if CC >= (9, 0) else ""))
    return {
        "options": {k: v for k, v in _kernel_options(candidate.dispatcher).items() if k in ("debug", "lineinfo", "opt")},
        "cpu_seconds": total,
        "wall_seconds": time.perf_counter() - wall,
        "phases": {"numba compile to LLVM IR": total - nvvm_seconds[0],
                   "NVVM: libdevice, -O3, PTX": nvvm_seconds[0]},
        "passes": passes,
        "ptx_chars": len(ptx),
    }


def _argtypes(signature: str):
    from kernlint.compile.numba_cuda import parse_signature

    argtypes, _ = parse_signature(signature)
    return (argtypes,)


def _kernel_options(dispatcher) -> dict:
    """The options ``CUDADispatcher.compile`` passes to ``_Kernel``, with the codegen options
    the user wrote (the slice's dispatcher carries kernlint's line info; numba's default is none)."""
    import inspect

    from numba.cuda.dispatcher import _Kernel

    accepted = inspect.signature(_Kernel.__init__).parameters
    options = {k: v for k, v in dispatcher.targetoptions.items()
               if k in accepted and k not in ("self", "py_func", "argtypes")}
    options.update(getattr(dispatcher, "_kernlint_options", None) or {})
    return options


# ---------------------------------------------------------------- the run: alternate, in fresh processes

def _child(side: str, path: str, qualname: str, signature: str, project: str) -> dict:
    command = [sys.executable, os.path.abspath(__file__), "--child", side, path, qualname, signature, project]
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=project)
    if done.returncode != 0:
        raise SystemExit(f"{side} {qualname}: exit {done.returncode}\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _signatures(path: str) -> Dict[str, List[str]]:
    with open(path, "rb") as handle:
        return tomllib.load(handle).get("signatures", {})


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        side, path, qualname, signature, project = sys.argv[2:7]
        sys.setrecursionlimit(20000)  # as kernlint's worker compiles (numba's SSA pass recurses)
        measure = measure_kernlint if side == "kernlint" else measure_numba
        print(json.dumps(measure(path, qualname, signature, project)))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("kernels", nargs="*", default=list(DEFAULT_KERNELS))
    parser.add_argument("--project", default=DEFAULT_PROJECT)
    parser.add_argument("--signatures", default=DEFAULT_SIGNATURES)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_intermixed_args()
    project = os.path.abspath(args.project)
    recorded = _signatures(args.signatures)
    rows = []
    for kernel in args.kernels:
        relative, qualname = kernel.split("::")
        signature = recorded[kernel][0]
        runs: Dict[str, List[dict]] = {side: [] for side in SIDES}
        for number in range(args.rounds):
            order = SIDES if number % 2 == 0 else SIDES[::-1]  # alternate who goes first
            for side in order:
                run = _child(side, os.path.join(project, relative), qualname, signature, project)
                runs[side].append(run)
                print(f"{qualname} {side}: {run['cpu_seconds']:.1f} s CPU, {run['wall_seconds']:.1f} s wall",
                      file=sys.stderr, flush=True)
        cpu = {side: statistics.median(r["cpu_seconds"] for r in runs[side]) for side in SIDES}
        rows.append({
            "kernel": kernel,
            "signature": signature,
            "kernlint_cpu_seconds": cpu["kernlint"],
            "numba_cpu_seconds": cpu["numba"],
            "ratio_kernlint_over_numba": cpu["kernlint"] / cpu["numba"],
            "runs": runs,
        })
        print(f"{qualname}: kernlint {cpu['kernlint']:.1f} s, numba {cpu['numba']:.1f} s CPU: "
              f"{cpu['kernlint'] / cpu['numba']:.2f}x", file=sys.stderr, flush=True)
    import numba
    import numba.cuda

    result = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores (shared), {platform.python_version()}",
        "numba": numba.__version__,
        "numba_cuda": getattr(numba.cuda, "__version__", "?"),
        "rounds": args.rounds,
        "kernels": rows,
    }
    with open(args.out, "w") as handle:
        json.dump(result, handle, indent=1)
        handle.write("\n")


if __name__ == "__main__":
    main()
