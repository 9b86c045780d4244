"""Build the PTX the GPU benchmark loads (no GPU needed): each checked kernel as numba-cuda
compiles it, kernlint's rewrite of it, and its hand-written unchecked twin; plus static
resources (ptxas -v, sm_90) for each.

    python benchmarks/build_ptx.py OUTDIR [--arch sm_90]
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from kernlint.analysis.conversions import safe_range  # noqa: E402
from kernlint.compile.numba_cuda import compile_file, parse_cc  # noqa: E402
from kernlint.rewrite.command import rewrite_kernel  # noqa: E402
from kernlint.resources import lower_ptx_version, ptxas_usage  # noqa: E402
from kernlint.rewrite.verify import VerificationError, nvvm_ptx  # noqa: E402

# checked kernel in kernels.py -> (hand-written twin, safe range low, high, integral only).
# The safe range is the conversion's (kernlint.analysis.conversions.safe_range), not where the
# kernel's guard passes: a rewrite that dropped a domain check would differ inside it.
_CONVERTS = {
    "print_guard_f64": ("hand_f64", "int64", False),
    "raise_guard_f64": ("hand_f64", "int64", False),
    "exact_guard_f64": ("hand_f64", "int64", True),
    "grid_stride_f64": ("hand_grid_stride_f64", "int64", False),
    "print_guard_f32": ("hand_f32", "int32", False),
    "raise_guard_f32": ("hand_f32", "int32", False),
    "exact_guard_f32": ("hand_f32", "int32", True),
    "grid_stride_f32": ("hand_grid_stride_f32", "int32", False),
}
CASES = {kernel: (hand, *safe_range(target), integral) for kernel, (hand, target, integral) in _CONVERTS.items()}


def ptxas_resources(ptx, arch):
    """Registers, stack and spills from ptxas -v; None when ptxas is not installed."""
    try:
        return ptxas_usage(ptx, arch)
    except VerificationError as exc:
        return {"error": str(exc)}


def build(outdir, arch):
    cc = parse_cc(arch)
    result = compile_file(os.path.join(HERE, "kernels.py"), arch=arch, runnable=True)
    if result.diagnostics:
        raise SystemExit(f"kernels did not compile: {result.diagnostics}")
    kernels = {k.info.name: k for k in result.kernels}
    os.makedirs(outdir, exist_ok=True)
    manifest = {"arch": arch, "cases": []}

    def emit(name, texts, options):
        ptx = lower_ptx_version(nvvm_ptx(texts, cc, options))
        with open(os.path.join(outdir, f"{name}.ptx"), "w") as out:
            out.write(ptx)
        return ptx

    for checked, (hand, lo, hi, integral) in CASES.items():
        original = kernels[checked]
        rewrite = rewrite_kernel(original, "unchecked", cc)
        if rewrite is None or rewrite.refused:
            raise SystemExit(f"{checked}: rewrite failed: {rewrite and rewrite.refused}")
        case = {
            "kernel": checked,
            "signature": original.info.signature,
            "entry": original.entry,
            "hand_entry": kernels[hand].entry,
            "safe_range": [lo, hi],
            "integral": integral,
            "resources": {},
        }
        for role, texts, kernel in (("original", original.runnable, original),
                                    ("rewritten", rewrite.rewritten, original),
                                    ("handwritten", kernels[hand].runnable, kernels[hand])):
            ptx = emit(f"{checked}.{role}", texts, kernel.options)
            case["resources"][role] = ptxas_resources(ptx, arch)
        manifest["cases"].append(case)
    with open(os.path.join(outdir, "manifest.json"), "w") as out:
        json.dump(manifest, out, indent=2)
    return manifest


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir")
    parser.add_argument("--arch", default="sm_90")
    args = parser.parse_args()
    manifest = build(args.outdir, args.arch)
    print(f"{'kernel':18} {'original':>18} {'rewritten':>18} {'hand-written':>18}   (registers / stack B)")
    for case in manifest["cases"]:
        cells = []
        for role in ("original", "rewritten", "handwritten"):
            r = case["resources"][role]
            cells.append(f"{r['registers']:>3} reg {r['stack_bytes']:>3} B" if r and "registers" in r else "n/a")
        print(f"{case['kernel']:18} {cells[0]:>18} {cells[1]:>18} {cells[2]:>18}")


if __name__ == "__main__":
    main()
