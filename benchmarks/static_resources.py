"""Static resources of the benchmark kernels before and after kernlint's rewrite, next to
hand-written unchecked kernels: registers and stack from ptxas -v (sm_90) for numba.cuda,
VGPR/SGPR/scratch from llvmlite's AMDGPU backend (gfx90a) for HIP. No GPU needed.

    python benchmarks/static_resources.py RESULT.json [--quick]
"""
import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

from build_ptx import build  # noqa: E402
from kernlint.hip.kernels import compile_hip_file, hipcc  # noqa: E402
from kernlint.resources import amdgpu_resources  # noqa: E402
from kernlint.rewrite.command import rewrite_kernel  # noqa: E402

HIP_CASES = {  # checked kernel -> hand-written twin
    "print_guard_f64": "hand_f64",
    "trap_guard_f64": "hand_f64",
    "exact_guard_f64": "hand_f64",
    "grid_stride_f64": "hand_grid_stride_f64",
    "print_guard_f32": "hand_f32",
}


def nvptx_rows(quick):
    with tempfile.TemporaryDirectory() as scratch:
        manifest = build(scratch, "sm_90")
    rows = []
    for case in manifest["cases"]:
        if quick and not case["kernel"].endswith("f64"):
            continue
        rows.append({"kernel": case["kernel"], "source": "numba.cuda", "target": "sm_90", **case["resources"]})
    return rows


def amdgpu_rows(quick):
    if hipcc() is None:
        return []
    result = compile_hip_file(os.path.join(HERE, "kernels.hip"), "gfx90a")
    kernels = {k.info.name: k for k in result.kernels}
    rows = []
    for checked, hand in HIP_CASES.items():
        if quick and checked != "print_guard_f64":
            continue
        original = kernels[checked]
        rewrite = rewrite_kernel(original, "unchecked", (9, 0))
        rows.append({
            "kernel": checked, "source": "HIP", "target": "gfx90a",
            "original": amdgpu_resources(original.modules, original.entry, "gfx90a"),
            "rewritten": amdgpu_resources(rewrite.rewritten, original.entry, "gfx90a"),
            "handwritten": amdgpu_resources(kernels[hand].modules, kernels[hand].entry, "gfx90a"),
        })
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("result")
    parser.add_argument("--quick", action="store_true", help="one kernel per target (CI)")
    args = parser.parse_args()
    rows = nvptx_rows(args.quick) + amdgpu_rows(args.quick)
    with open(args.result, "w") as out:
        json.dump(rows, out, indent=2)
    for row in rows:
        cells = []
        for role in ("original", "rewritten", "handwritten"):
            r = row[role] or {}
            if "registers" in r:
                cells.append(f"{r['registers']:>3} reg {r['stack_bytes']:>4} B stack")
            else:
                cells.append(f"{r.get('vgpr', '?'):>3} VGPR {r.get('sgpr', '?'):>3} SGPR {r.get('scratch_bytes', '?'):>4} B")
        print(f"{row['kernel']:16} {row['target']:7} " + " | ".join(cells))


if __name__ == "__main__":
    main()
