"""What the linter costs on a package shaped like real ones, side by side in one run:

- cold (``--no-cache``, no worker server; the median of three, alternated with numba alone),
  warm (nothing changed), one launch-site file changed
  and one kernel's body changed (each without and with the worker server that earlier runs
  started), and numba alone (a fresh interpreter importing numba-cuda and compiling the
  same kernels with the same signatures: typing and lowering, what kernlint cannot avoid);
- the peak resident memory of a cold run's processes (the CLI, the worker server and its
  workers), summed and the largest, beside numba alone's;
- kernlint's own analysis over numba's IR generation, per kernel, over the fixtures.

The generated package has many files: kernels in a few modules (lazy, no signatures), classes
in other modules that allocate in ``__init__`` and launch in methods, helpers and constants
reached by relative imports. Any corpus directory given on the command line is measured the
same way (cold, warm, numba alone over the kernels kernlint compiled there).

    python benchmarks/linter_cost.py RESULT.json [CORPUS_DIR...]
"""
import glob
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

KERNEL_MODULES = 3
KERNELS_PER_MODULE = 24
CLASS_MODULES = 36
HELPER_MODULES = 12
WARM_RUNS = 5
COLD_RUNS = 3  # cold runs and numba alone: the median of three, alternated (this machine is noisy)

_REALS = ("np.float32", "np.float64")


def _kernel(module: int, number: int) -> str:
    shape = number % 4
    name = f"k{module}_{number}"
    if shape == 0:  # a checked conversion behind a print guard
        body = f"""
    i = cuda.grid(1)
    if i < x.size:
        v = x[i] * scale
        if v != v:
            print("NaN in {name} at", i)
            return
        y[i] = int(v)"""
        params = "y, x, scale"
    elif shape == 1:  # a grid-stride loop through a device function
        body = """
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, x.size, stride):
        y[i] = smooth(x, i) * scale"""
        params = "y, x, scale"
    elif shape == 2:  # 2-D fields
        body = """
    i, j = cuda.grid(2)
    if i < e.shape[0] and j < e.shape[1]:
        e[i, j] = e[i, j] * (1.0 - dt) + b[i, j] * dt"""
        params = "e, b, dt"
    else:  # an integer index array
        body = """
    i = cuda.grid(1)
    if i < idx.size:
        k = idx[i]
        if k >= 0 and k < x.size:
            y[i] = x[k]"""
        params = "y, x, idx"
    return f"\n\n@cuda.jit\ndef {name}({params}):{body}\n"


def _kernel_module(module: int) -> str:
    kernels = "".join(_kernel(module, n) for n in range(KERNELS_PER_MODULE))
    return textwrap.dedent(f"""\
        from numba import cuda

        from ..utils.helpers_{module % HELPER_MODULES} import smooth
        """) + kernels


def _class_module(number: int) -> str:
    module, first = divmod(number * 2, KERNELS_PER_MODULE)
    module %= KERNEL_MODULES
    real = _REALS[number % 2]
    launches = []
    imports = []
    for kernel in (first, first + 1):
        name = f"k{module}_{kernel}"
        imports.append(name)
        shape = kernel % 4
        if shape in (0, 1):
            launches.append(f"{name}[self.blocks, 256](self.out, self.values, {real}(0.5))")
        elif shape == 2:
            launches.append(f"{name}[(16, 16), (16, 16)](self.field_e, self.field_b, self.dt)")
        else:
            launches.append(f"{name}[self.blocks, 256](self.out, self.values, self.index)")
    body = "\n".join(f"            {line}" for line in launches)
    return f"""import numpy as np
from numba import cuda

from ..kernels.methods_{module} import {", ".join(imports)}
from ..utils.constants import DT, NZ, NR


class Species{number}:
    def __init__(self, n: int):
        self.blocks = (n + 255) // 256
        self.dt = DT
        self.values = cuda.to_device(np.linspace(0, 1, n).astype({real}))
        self.out = cuda.device_array(n, dtype={real})
        self.index = cuda.to_device(np.arange(n, dtype=np.int64))
        self.field_e = cuda.device_array((NZ, NR), dtype=np.float64)
        self.field_b = cuda.device_array((NZ, NR), dtype=np.float64)

    def step(self, steps):
        for _ in range(steps):
{body}
        cuda.synchronize()
"""


def _helper_module(number: int) -> str:
    return textwrap.dedent(f"""\
        from numba import cuda


        @cuda.jit(device=True)
        def smooth(x, i):
            left = x[i - 1] if i > 0 else x[i]
            right = x[i + 1] if i + 1 < x.size else x[i]
            return 0.25 * left + 0.5 * x[i] + 0.25 * right + {number}.0 * 0.0
        """)


def write_package(root: str) -> str:
    """A package of 1 + KERNEL_MODULES + CLASS_MODULES + HELPER_MODULES + 6 files."""
    package = os.path.join(root, "simpkg")
    for sub in ("", "kernels", "species", "utils"):
        os.makedirs(os.path.join(package, sub), exist_ok=True)
        with open(os.path.join(package, sub, "__init__.py"), "w") as out:
            out.write("")
    files = {os.path.join("utils", "constants.py"): "DT = 0.01\nNZ = 256\nNR = 64\n",
             "run.py": "from .species.species_0 import Species0\n\n\ndef main():\n    Species0(1 << 20).step(10)\n"}
    files.update({os.path.join("kernels", f"methods_{m}.py"): _kernel_module(m) for m in range(KERNEL_MODULES)})
    files.update({os.path.join("species", f"species_{c}.py"): _class_module(c) for c in range(CLASS_MODULES)})
    files.update({os.path.join("utils", f"helpers_{h}.py"): _helper_module(h) for h in range(HELPER_MODULES)})
    for name, text in files.items():
        with open(os.path.join(package, name), "w") as out:
            out.write(text)
    return package


class _TreeMemory(threading.Thread):
    """Samples the resident memory of a process and all its descendants (the CLI, the worker
    server, its workers) every 20 ms from /proc: the peak of their sum, and of the largest."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.total, self.largest = pid, 0, 0
        self.done = threading.Event()

    def run(self):
        page = os.sysconf("SC_PAGE_SIZE")
        while not self.done.is_set():
            parents, rss = {}, {}
            for entry in os.listdir("/proc"):
                if not entry.isdigit():
                    continue
                try:
                    with open(f"/proc/{entry}/stat") as handle:
                        fields = handle.read().rsplit(")", 1)[1].split()
                    with open(f"/proc/{entry}/statm") as handle:
                        rss[int(entry)] = int(handle.read().split()[1]) * page
                    parents[int(entry)] = int(fields[1])
                except (OSError, IndexError, ValueError):
                    continue
            tree, grew = {self.pid}, True
            while grew:
                more = {pid for pid, parent in parents.items() if parent in tree} - tree
                tree |= more
                grew = bool(more)
            sizes = [rss.get(pid, 0) for pid in tree]
            self.total = max(self.total, sum(sizes))
            self.largest = max(self.largest, max(sizes, default=0))
            self.done.wait(0.02)


_PEAKS = {"total": 0, "largest": 0}


def _run(command, cwd, env=None, stdin=None, sample=False):
    """(seconds, stdout) of one command; with ``sample``, its process tree's memory is sampled
    meanwhile (which costs CPU: only for the runs whose memory is reported)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, text=True, stdin=subprocess.PIPE if stdin else None,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    sampler = _TreeMemory(process.pid)
    if sample:
        sampler.start()
    stdout, stderr = process.communicate(stdin)
    seconds = time.perf_counter() - started
    sampler.done.set()
    if sample:
        sampler.join()
    _PEAKS["total"] = max(_PEAKS["total"], sampler.total)
    _PEAKS["largest"] = max(_PEAKS["largest"], sampler.largest)
    if process.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(command)} failed ({process.returncode}): {stderr[-2000:]}")
    return seconds, stdout


def _peak_mib(reset: bool = False):
    """(sum over the process tree, largest process) peaks in MiB since the last reset."""
    peaks = (round(_PEAKS["total"] / 2**20, 1), round(_PEAKS["largest"] / 2**20, 1))
    if reset:
        _PEAKS.update(total=0, largest=0)
    return peaks


_NUMBA_ALONE = r"""
import importlib, importlib.util, json, os, sys, time
started = time.perf_counter()
from numba.core import sigutils, types
from numba.cuda.compiler import compile_cuda
from kernlint.compile.numba_cuda import offline_device
imported = time.perf_counter() - started
compiled = 0
modules = {}

def load(path):
    if path not in modules:
        dotted = os.path.splitext(os.path.relpath(path))[0].replace(os.sep, ".")
        try:  # as its package imports it (relative imports)
            modules[path] = importlib.import_module(dotted)
        except Exception:
            spec = importlib.util.spec_from_file_location("m%d" % len(modules), path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            modules[path] = module
    return modules[path]

for path, name, signature in json.load(sys.stdin):
    try:
        dispatcher = getattr(load(path), name)
        args, _ = sigutils.normalize_signature(signature)
        with offline_device((9, 0)):
            compile_cuda(dispatcher.py_func, types.void, args, lineinfo=True, cc=(9, 0))
        compiled += 1
    except Exception:
        pass
print(json.dumps({"compiled": compiled, "import_s": imported}))
"""


def numba_alone(cwd: str, kernels):
    """Seconds for a fresh interpreter to import numba-cuda and compile ``kernels`` (path,
    name, signature) as kernlint does (typing and lowering to IR, no PTX). Kernels in modules
    that run code or import their package relatively are compiled where they import."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, cwd])}
    seconds, stdout = _run([sys.executable, "-c", _NUMBA_ALONE], cwd, env, stdin=json.dumps(kernels), sample=True)
    return seconds, json.loads(stdout.strip().splitlines()[-1])


def _statistics(directory: str, cwd: str):
    """kernlint's per-kernel statistics for ``directory`` (in this process, no cache)."""
    from kernlint.engine import Options, check_paths

    here = os.getcwd()
    os.chdir(cwd)
    try:
        return check_paths([directory], Options()).stats
    finally:
        os.chdir(here)


def _stop_servers(directory: str) -> None:
    for pid_file in glob.glob(os.path.join(directory, "*", "*.pid")):
        try:
            with open(pid_file) as handle:
                os.kill(int(handle.read().strip()), signal.SIGTERM)
        except (OSError, ValueError):
            pass


def measure(directory: str, cwd: str, change=None):
    """Cold, warm, [one file changed, with and without the worker server], numba alone, over
    ``directory`` run from ``cwd``. Cold runs have no worker server: numba-cuda is imported."""
    kernlint = [sys.executable, "-m", "kernlint", "check", "--output-format", "json"]
    servers = tempfile.mkdtemp(prefix="kl-")  # this benchmark's own servers (a socket's path is short)
    env = {**os.environ, "PYTHONPATH": ROOT, "KERNLINT_SERVER_DIR": servers, "KERNLINT_SERVER": "1"}
    alone = {**env, "KERNLINT_SERVER": "0"}
    kernel_entries = os.path.join(cwd, ".kernlint_cache", "kernels")
    shutil.rmtree(os.path.join(cwd, ".kernlint_cache"), ignore_errors=True)
    row = {}
    try:
        _peak_mib(reset=True)
        colds = [_run(kernlint + ["--no-cache", directory], cwd, alone, sample=True)[0]]
        row["cold_rss_total_mib"], row["cold_rss_largest_mib"] = _peak_mib(reset=True)
        _run(kernlint + [directory], cwd, env)  # fills the cache
        warm = [_run(kernlint + [directory], cwd, env)[0] for _ in range(WARM_RUNS)]
        row["warm_s"] = round(statistics.median(warm), 3)
        for label, (path, before, after) in (change or {}).items():
            # without a server, then with the one the runs before started: each time the edit's
            # kernels are compiled again (their entries from the first time are removed)
            for suffix, environment in (("_no_server", alone), ("", env)):
                known = set(os.listdir(kernel_entries)) if os.path.isdir(kernel_entries) else set()
                with open(path, "w") as out:
                    out.write(after)
                row[f"{label}{suffix}_s"] = round(_run(kernlint + [directory], cwd, environment)[0], 3)
                with open(path, "w") as out:
                    out.write(before)
                for entry in set(os.listdir(kernel_entries)) - known:
                    os.unlink(os.path.join(kernel_entries, entry))
                _run(kernlint + [directory], cwd, env)
    finally:
        _stop_servers(servers)
        shutil.rmtree(servers, ignore_errors=True)
    stats = [s for s in _statistics(directory, cwd) if not s.host]
    kernels = [(s.path, s.kernel, s.signature) for s in stats if "." not in s.kernel and not s.variant]
    _peak_mib(reset=True)
    numba_s, numba_info = numba_alone(cwd, kernels)
    row["numba_alone_rss_mib"] = _peak_mib(reset=True)[1]
    numbas = [numba_s]
    for _ in range(COLD_RUNS - 1):  # side by side: one cold run, then numba alone, and again
        colds.append(_run(kernlint + ["--no-cache", directory], cwd, alone)[0])
        numbas.append(numba_alone(cwd, kernels)[0])
    cold_s, numba_s = statistics.median(colds), statistics.median(numbas)
    row["cold_s"] = round(cold_s, 3)
    row.update({
        "kernels_checked": len(stats),
        "numba_compiled_alone": numba_info["compiled"],
        "numba_alone_s": round(numba_s, 3),
        "numba_import_s": round(numba_info["import_s"], 3),
        # like for like only where numba alone compiled every kernel kernlint checked
        "cold_over_numba_alone": round(cold_s / numba_s, 3) if numba_s and numba_info["compiled"] == len(
            stats) else None,
        "numba_in_kernlint_s": round(sum(s.numba_seconds for s in stats), 3),
        "kernlint_analysis_s": round(sum(s.kernlint_seconds for s in stats), 3),
    })
    return row


def package_row():
    with tempfile.TemporaryDirectory() as root:
        package = write_package(root)
        files = sum(len([f for f in names if f.endswith(".py")]) for _, _, names in os.walk(package))
        species = os.path.join(package, "species", "species_4.py")  # float32 arrays
        kernels = os.path.join(package, "kernels", "methods_1.py")
        with open(species) as handle:
            species_text = handle.read()
        with open(kernels) as handle:
            kernels_text = handle.read()
        change = {
            # a launch site's dtype: one kernel's signature changes
            "one_launch_file_changed": (species, species_text, species_text.replace("np.float32", "np.float64")),
            # one kernel's body in a 24-kernel module
            "one_kernel_body_changed": (kernels, kernels_text,
                                        kernels_text.replace("e[i, j] * (1.0 - dt)", "e[i, j] * (1.0 - 2 * dt)", 1)),
        }
        row = measure("simpkg", root, change)
        row.update({"project": "generated package", "files": files})
        return row


def analysis_ratios():
    from kernlint.engine import Options, check_paths

    report = check_paths([os.path.join(ROOT, "fixtures")], Options(target="cuda"))
    rows = [{"kernel": f"{os.path.basename(s.path)}::{s.kernel}", "signature": s.signature,
             "numba_ms": round(s.numba_seconds * 1e3, 2), "kernlint_ms": round(s.kernlint_seconds * 1e3, 3),
             "ratio": round(s.kernlint_seconds / s.numba_seconds, 4)}
            for s in report.stats if s.numba_seconds > 0]
    return rows


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rows = [package_row()]
    for corpus in sys.argv[2:]:
        for name in sorted(os.listdir(corpus)):
            directory = os.path.join(corpus, name)
            if os.path.isdir(directory):
                row = measure(".", directory)
                row.update({"project": name})
                rows.append(row)
    per_kernel = analysis_ratios()
    ratios = [r["ratio"] for r in per_kernel]
    result = {"machine": f"{os.cpu_count()} cores", "runs": rows, "per_kernel": per_kernel,
              "median_ratio": statistics.median(ratios), "max_ratio": max(ratios)}
    with open(sys.argv[1], "w") as out:
        json.dump(result, out, indent=2)
        out.write("\n")
    for row in rows:
        extra = "".join(f", {k[:-2].replace('_', ' ')} {row[k]:.2f} s" for k in row
                        if k.startswith("one_") and k.endswith("_s"))
        print(f"{row['project']}: {row['kernels_checked']} kernels; cold {row['cold_s']:.2f} s, warm "
              f"{row['warm_s']:.3f} s{extra}; numba alone {row['numba_alone_s']:.2f} s "
              f"(cold / numba alone {row['cold_over_numba_alone']}); cold RSS {row['cold_rss_total_mib']:.0f} MiB "
              f"in all, {row['cold_rss_largest_mib']:.0f} MiB the largest process; numba alone "
              f"{row['numba_alone_rss_mib']:.0f} MiB")
    print(f"analysis / numba IR generation over {len(per_kernel)} fixture kernels: median "
          f"{result['median_ratio']:.3f}, max {result['max_ratio']:.3f}")


if __name__ == "__main__":
    main()
