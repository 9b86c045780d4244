"""The source fix against the IR rewrite and the hand-written kernels: `kernlint check --fix
--unsafe-fixes` applied to the benchmark kernels (benchmarks/kernels.py), then each fixed
kernel's registers and stack (ptxas -v, sm_90) next to the original's, the IR rewrite's and
the hand-written twin's; and the fixed kernels run beside the originals on the CPU (llvmlite's
JIT, tests/hostjit.py) over values of the safe range, boundaries included. No GPU needed.

    python benchmarks/source_fix.py RESULT.json [--values 2000]
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests"))

from build_ptx import CASES, ptxas_resources  # noqa: E402
from kernlint import fix  # noqa: E402
from kernlint.engine import Options, check_paths  # noqa: E402
from kernlint.compile.numba_cuda import compile_file, parse_cc  # noqa: E402
from kernlint.resources import lower_ptx_version  # noqa: E402
from kernlint.rewrite.command import rewrite_kernel  # noqa: E402
from kernlint.rewrite.verify import nvvm_ptx  # noqa: E402


def fixed_copy(directory: str) -> str:
    """benchmarks/kernels.py copied into ``directory`` and fixed there; returns its path."""
    path = os.path.join(directory, "kernels.py")
    shutil.copy(os.path.join(HERE, "kernels.py"), path)
    report = check_paths([path], Options())
    outcome = fix.plan(report, [path], Options(), unsafe=True)
    if outcome.refused:
        raise SystemExit(f"fixes refused: {[(f.kernel, why) for f, why in outcome.refused]}")
    fix.write(outcome)
    return path


def kernels_of(path: str, arch: str = "sm_90"):
    result = compile_file(path, arch=arch, runnable=True)
    if result.diagnostics:
        raise SystemExit(f"{path}: {[d.message for d in result.diagnostics]}")
    return {k.info.name: k for k in result.kernels}


def resources(arch: str, original, fixed):
    cc = parse_cc(arch)
    rows = []
    for checked, (hand, *_rest) in CASES.items():
        row = {"kernel": checked}
        rewrite = rewrite_kernel(original[checked], "unchecked", cc)
        for role, texts, kernel in (("original", original[checked].runnable, original[checked]),
                                    ("rewritten", rewrite.rewritten, original[checked]),
                                    ("source_fixed", fixed[checked].runnable, fixed[checked]),
                                    ("handwritten", original[hand].runnable, original[hand])):
            ptx = lower_ptx_version(nvvm_ptx(texts, cc, kernel.options))
            row[role] = ptxas_resources(ptx, arch)
        fixed_usage = row["source_fixed"] or {}
        row["same_as_rewrite_and_hand"] = "registers" in fixed_usage and all(
            (row[r] or {}).get(k) == fixed_usage.get(k)
            for r in ("rewritten", "handwritten") for k in ("registers", "stack_bytes"))
        rows.append(row)
    return rows


def safe_values(count: int, dtype, lo: float, hi: float, integral: bool, rng) -> np.ndarray:
    width = np.dtype(dtype).type
    below = float(np.nextafter(width(hi), width(lo)))
    tiny = float(np.finfo(width).smallest_subnormal)
    edges = [0.0, -0.0, lo, below, tiny, -tiny, 0.5, -0.5, 1.0, -1.0, float(np.floor(below))]
    values = np.concatenate([np.array(edges), rng.uniform(lo, below, count // 2), rng.uniform(-1e6, 1e6, count // 2)])
    if integral:
        values = np.floor(values)
    values = values.astype(dtype)
    return values[(values >= lo) & (values < hi)]


def equal_in_safe_range(original, fixed, count: int, seed: int = 2026):
    """Run each original and fixed kernel on the CPU over the same safe-range inputs."""
    from hostjit import ARRAY_ARGTYPES, HostModule, array_args

    rng = np.random.default_rng(seed)
    rows = []
    for checked, (_hand, lo, hi, integral) in CASES.items():
        source_type = np.float32 if checked.endswith("f32") else np.float64
        target_type = np.int32 if checked.endswith("f32") else np.int64
        inputs = safe_values(count, source_type, lo, hi, integral, rng)
        outputs = []
        for kernel in (original[checked], fixed[checked]):
            module = HostModule(kernel.runnable)
            function = module.function(kernel.entry, None, *(ARRAY_ARGTYPES * 2))
            out = np.full(inputs.size, 7, target_type)
            for thread in range(inputs.size):
                module.set_thread(tid=thread, ntid=1, ctaid=0, nctaid=1)
                function(*array_args(out), *array_args(inputs))
            outputs.append((out, module.vprintf_calls))
        (expected, prints_before), (actual, prints_after) = outputs
        rows.append({"kernel": checked, "values": int(inputs.size),
                     "equal": expected.tobytes() == actual.tobytes() and prints_before == prints_after == 0})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("result")
    parser.add_argument("--values", type=int, default=2000)
    parser.add_argument("--arch", default="sm_90")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        fixed_path = fixed_copy(scratch)
        original = kernels_of(os.path.join(HERE, "kernels.py"), args.arch)
        fixed = kernels_of(fixed_path, args.arch)
        rows = resources(args.arch, original, fixed)
        equal = {r["kernel"]: r for r in equal_in_safe_range(original, fixed, args.values)}
    for row in rows:
        row["equal_in_safe_range"] = equal[row["kernel"]]["equal"]
        row["values_run"] = equal[row["kernel"]]["values"]

    def cell(r):
        return f"{r['registers']:>3} reg {r['stack_bytes']:>3} B" if r and "registers" in r else "n/a"

    print(f"{'kernel':18} {'original':>14} {'IR rewrite':>14} {'source fix':>14} {'hand-written':>14}  same  equal")
    for row in rows:
        print(f"{row['kernel']:18} {cell(row['original']):>14} {cell(row['rewritten']):>14} "
              f"{cell(row['source_fixed']):>14} {cell(row['handwritten']):>14}  "
              f"{'yes' if row['same_as_rewrite_and_hand'] else 'NO':4}  "
              f"{'yes' if row['equal_in_safe_range'] else 'NO'} ({row['values_run']} values)")
    with open(args.result, "w") as out:
        json.dump(rows, out, indent=2)
        out.write("\n")


if __name__ == "__main__":
    main()
