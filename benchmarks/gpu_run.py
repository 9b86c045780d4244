"""On a GPU: check that kernlint's rewrites give the original's results in the safe range,
and time original, rewritten and hand-written kernels side by side in one process.

Loads the PTX that ``build_ptx.py`` made (no numba needed here, only CuPy), so the three
versions go through the same driver path.

    python benchmarks/gpu_run.py PTXDIR RESULT.json [--n 67108864] [--runs 30]
"""
import argparse
import json
import os
import statistics
import sys

import cupy as cp
import numpy as np

BLOCK = 256


def array_args(array):
    """numba's kernel ABI for a 1-D C array: meminfo, parent, nitems, itemsize, data, shape, stride."""
    return (np.uint64(0), np.uint64(0), np.int64(array.size), np.int64(array.itemsize), array,
            np.int64(array.shape[0]), np.int64(array.strides[0]))


def safe_inputs(n, dtype, lo, hi, integral, rng):
    """Values inside the safe range: spread over all of it, near zero, and its edges."""
    width = np.dtype(dtype).type
    below_hi = float(np.nextafter(width(hi), width(lo)))
    edges = np.array([0.0, -0.0, lo, below_hi, float(np.finfo(width).smallest_subnormal),
                      -float(np.finfo(width).smallest_subnormal), 0.5, -0.5, 1.0, -1.0,
                      float(np.floor(below_hi))], dtype=np.float64)
    third = n // 3
    values = np.concatenate([
        rng.uniform(lo, below_hi, third),
        rng.uniform(-1e6, 1e6, third),
        np.resize(edges, n - 2 * third),
    ])
    if integral:
        values = np.floor(values)
    values = values.astype(dtype)
    values = values[(values >= lo) & (values < hi)]
    return np.resize(values, n)


def time_kernels(launches, runs):
    """Median ms of each launch, measured round-robin so drift hits all alike."""
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    samples = {name: [] for name in launches}
    for launch in launches.values():
        for _ in range(3):
            launch()
    cp.cuda.Device().synchronize()
    for _ in range(runs):
        for name, launch in launches.items():
            start.record()
            launch()
            stop.record()
            stop.synchronize()
            samples[name].append(cp.cuda.get_elapsed_time(start, stop))
    return {name: statistics.median(times) for name, times in samples.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ptxdir")
    parser.add_argument("result")
    parser.add_argument("--n", type=int, default=1 << 26)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()

    with open(os.path.join(args.ptxdir, "manifest.json")) as handle:
        manifest = json.load(handle)
    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    rng = np.random.default_rng(2026)
    rows = []
    for case in manifest["cases"]:
        name = case["kernel"]
        in_type = np.float64 if name.endswith("f64") else np.float32
        out_type = np.int64 if name.endswith("f64") else np.int32
        grid_stride = "grid_stride" in name
        blocks = min((args.n + BLOCK - 1) // BLOCK, sms * 16) if grid_stride else (args.n + BLOCK - 1) // BLOCK
        functions = {
            role: cp.RawModule(path=os.path.join(args.ptxdir, f"{name}.{role}.ptx")).get_function(
                case["hand_entry"] if role == "handwritten" else case["entry"])
            for role in ("original", "rewritten", "handwritten")
        }
        lo, hi = case["safe_range"]
        x = cp.asarray(safe_inputs(args.n, in_type, lo, hi, case["integral"], rng))
        outputs = {}
        for role, function in functions.items():
            y = cp.full(args.n, -7, dtype=out_type)  # poison: every element must be written
            function((blocks,), (BLOCK,), array_args(y) + array_args(x))
            cp.cuda.Device().synchronize()
            outputs[role] = y
        equal = bool(cp.array_equal(outputs["original"], outputs["rewritten"]))
        equal_hand = bool(cp.array_equal(outputs["rewritten"], outputs["handwritten"]))
        # poison left only where the true result is the poison value itself
        written = bool(((outputs["rewritten"] != -7) | (cp.trunc(x) == -7)).all())

        # time on moderate values: the guards never fire
        xt = cp.asarray(np.round(rng.uniform(-1e6, 1e6, args.n)).astype(in_type))
        y = cp.empty(args.n, dtype=out_type)
        copy_out = cp.empty_like(xt)
        launches = {role: (lambda f=function: f((blocks,), (BLOCK,), array_args(y) + array_args(xt)))
                    for role, function in functions.items()}
        launches["copy"] = lambda: copy_out.__setitem__(Ellipsis, xt)
        ms = time_kernels(launches, args.runs)
        kernel_bytes = args.n * (np.dtype(in_type).itemsize + np.dtype(out_type).itemsize)
        copy_bytes = 2 * args.n * np.dtype(in_type).itemsize
        row = {
            "kernel": name,
            "device": device,
            "n": args.n,
            "original_ms": round(ms["original"], 4),
            "rewritten_ms": round(ms["rewritten"], 4),
            "handwritten_ms": round(ms["handwritten"], 4),
            "copy_ms": round(ms["copy"], 4),
            "rewritten_over_handwritten": round(ms["rewritten"] / ms["handwritten"], 4),
            "original_over_rewritten": round(ms["original"] / ms["rewritten"], 4),
            "bandwidth_fraction_of_copy": round((kernel_bytes / ms["rewritten"]) / (copy_bytes / ms["copy"]), 4),
            "rewritten_tb_per_s": round(kernel_bytes / ms["rewritten"] / 1e9, 3),
            "equal_in_safe_range": equal,
            "equal_to_handwritten": equal_hand,
            "every_element_written": written,
            "resources": case["resources"],
        }
        rows.append(row)
        print(f"{name:16} orig {row['original_ms']:7.3f} ms  rewr {row['rewritten_ms']:7.3f} ms  "
              f"hand {row['handwritten_ms']:7.3f} ms  rewr/hand {row['rewritten_over_handwritten']:.3f}  "
              f"orig/rewr {row['original_over_rewritten']:.3f}  bw/copy {row['bandwidth_fraction_of_copy']:.3f}  "
              f"equal {equal}", flush=True)
    with open(args.result, "w") as handle:
        json.dump(rows, handle, indent=2)
    if not all(r["equal_in_safe_range"] and r["every_element_written"] for r in rows):
        sys.exit("rewritten kernels differ from the originals inside the safe range")


if __name__ == "__main__":
    main()
