"""On a GPU: what each host pattern KL501–KL504 finds costs, against its fix, measured side
by side in one process (numba-cuda; 2^22 float32; the slow and fixed forms alternate so
that drift hits both alike). Prints a table and writes one row per rule.

    python benchmarks/gpu_host.py RESULT.json [--n 4194304] [--steps 1000] [--repeats 5]

KL501  a device allocation per step (cuda.device_array, cuda.to_device) against a buffer
       allocated once, and against CuPy's memory pool (cp.empty per step), 1,000 steps
KL502  launches on host NumPy arrays against the same launches on device arrays
KL503  cuda.synchronize() / copy_to_host() per step against one synchronization after the loop
KL504  the wall-clock time of one launch without a synchronization, over the kernel's
       true time (CUDA events)
"""
import argparse
import json
import statistics
import time
import warnings

import numpy as np
from numba import cuda
from numba.core.errors import NumbaPerformanceWarning

warnings.simplefilter("ignore", NumbaPerformanceWarning)  # host arrays are the point of KL502


@cuda.jit
def axpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def timed(function, repeats):
    """Median wall-clock seconds of a whole loop, synchronized at both ends."""
    samples = []
    for _ in range(repeats):
        cuda.synchronize()
        start = time.perf_counter()
        function()
        cuda.synchronize()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def side_by_side(variants, repeats):
    """Each variant's median, measured round-robin."""
    samples = {name: [] for name in variants}
    for function in variants.values():
        function()  # compile, warm the allocator
    for _ in range(repeats):
        for name, function in variants.items():
            samples[name].append(timed(function, 1))
    return {name: statistics.median(values) for name, values in samples.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("result")
    parser.add_argument("--n", type=int, default=1 << 22)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    n, steps = args.n, args.steps
    blocks, threads = (n + 255) // 256, 256
    a = np.float32(1.0001)
    device = cuda.get_current_device().name
    device = device.decode() if isinstance(device, bytes) else device
    host_x = np.random.default_rng(0).random(n, dtype=np.float32)
    d_x = cuda.to_device(host_x)
    d_y = cuda.to_device(host_x)
    d_out = cuda.device_array_like(d_x)
    rows = []

    # KL501 -----------------------------------------------------------------------------
    def alloc_per_step():
        for _ in range(steps):
            tmp = cuda.device_array(n, dtype=np.float32)
            axpy[blocks, threads](tmp, a, d_x, d_y)

    def to_device_per_step():
        for _ in range(steps):
            fresh = cuda.to_device(host_x)
            axpy[blocks, threads](d_out, a, fresh, d_y)

    def reused():
        for _ in range(steps):
            axpy[blocks, threads](d_out, a, d_x, d_y)

    def copy_into_reused():  # the fix for to_device per step: refill one buffer
        for _ in range(steps):
            d_x.copy_to_device(host_x)
            axpy[blocks, threads](d_out, a, d_x, d_y)

    variants = {"device_array per step": alloc_per_step, "reused buffer": reused,
                "to_device per step": to_device_per_step, "copy_to_device into one buffer": copy_into_reused}
    try:
        import cupy as cp

        def cupy_pool_per_step():
            for _ in range(steps):
                tmp = cp.empty(n, dtype=cp.float32)  # CuPy's memory pool: no cudaMalloc after the first
                axpy[blocks, threads](tmp, a, d_x, d_y)

        variants["pool (CuPy) per step"] = cupy_pool_per_step
    except ImportError:
        pass
    times = side_by_side(variants, args.repeats)
    rows.append({
        "rule": "KL501", "pattern": "cuda.device_array per step", "steps": steps,
        "slow_s": times["device_array per step"], "fixed_s": times["reused buffer"],
        "slow_over_fixed": times["device_array per step"] / times["reused buffer"],
        "pool_s": times.get("pool (CuPy) per step"),
        "slow_over_pool": (times["device_array per step"] / times["pool (CuPy) per step"]
                           if "pool (CuPy) per step" in times else None),
    })
    rows.append({
        "rule": "KL501", "pattern": "cuda.to_device per step", "steps": steps,
        "slow_s": times["to_device per step"], "fixed_s": times["copy_to_device into one buffer"],
        "slow_over_fixed": times["to_device per step"] / times["copy_to_device into one buffer"],
        "kept_on_device_s": times["reused buffer"],
        "slow_over_kept_on_device": times["to_device per step"] / times["reused buffer"],
    })

    # KL502 -----------------------------------------------------------------------------
    host_out = np.empty_like(host_x)
    host_y = host_x.copy()
    launches = max(steps // 5, 1)

    def host_arrays():
        for _ in range(launches):
            axpy[blocks, threads](host_out, a, host_x, host_y)

    def device_arrays():
        for _ in range(launches):
            axpy[blocks, threads](d_out, a, d_x, d_y)
        d_out.copy_to_host(host_out)

    times = side_by_side({"host arrays": host_arrays, "device arrays": device_arrays}, args.repeats)
    rows.append({"rule": "KL502", "pattern": "launch on host NumPy arrays", "steps": launches,
                 "slow_s": times["host arrays"], "fixed_s": times["device arrays"],
                 "slow_over_fixed": times["host arrays"] / times["device arrays"]})

    # KL503 -----------------------------------------------------------------------------
    def sync_per_step():
        for _ in range(launches):
            axpy[blocks, threads](d_out, a, d_x, d_y)
            cuda.synchronize()

    def copy_per_step():
        for _ in range(launches):
            axpy[blocks, threads](d_out, a, d_x, d_y)
            d_out.copy_to_host(host_out)

    def one_sync():
        for _ in range(launches):
            axpy[blocks, threads](d_out, a, d_x, d_y)
        cuda.synchronize()

    def one_copy():
        for _ in range(launches):
            axpy[blocks, threads](d_out, a, d_x, d_y)
        d_out.copy_to_host(host_out)

    times = side_by_side({"sync per step": sync_per_step, "one sync": one_sync,
                          "copy per step": copy_per_step, "one copy": one_copy}, args.repeats)
    rows.append({"rule": "KL503", "pattern": "cuda.synchronize() per step", "steps": launches,
                 "slow_s": times["sync per step"], "fixed_s": times["one sync"],
                 "slow_over_fixed": times["sync per step"] / times["one sync"]})
    rows.append({"rule": "KL503", "pattern": "copy_to_host() per step", "steps": launches,
                 "slow_s": times["copy per step"], "fixed_s": times["one copy"],
                 "slow_over_fixed": times["copy per step"] / times["one copy"]})

    # KL504 -----------------------------------------------------------------------------
    # the reported time (the pattern: a wall-clock interval with no sync) and the kernel's true
    # time (CUDA events) in separate runs, so that neither disturbs the other; at two sizes,
    # since the error is the launch's latency against the kernel's length
    for size in sorted({n, 1 << 26}):
        big_x = cuda.device_array(size, dtype=np.float32)
        big_out = cuda.device_array(size, dtype=np.float32)
        grid = (size + 255) // 256
        axpy[grid, threads](big_out, a, big_x, big_x)
        start, stop = cuda.event(), cuda.event()
        reported, true = [], []
        for _ in range(max(args.repeats * 20, 50)):
            cuda.synchronize()
            begin = time.perf_counter()
            axpy[grid, threads](big_out, a, big_x, big_x)
            reported.append(time.perf_counter() - begin)  # what KL504 finds
            cuda.synchronize()
            start.record()
            axpy[grid, threads](big_out, a, big_x, big_x)
            stop.record()
            stop.synchronize()
            true.append(cuda.event_elapsed_time(start, stop) / 1e3)
        rows.append({"rule": "KL504", "pattern": f"perf_counter around a launch, no sync (n=2^{size.bit_length() - 1})",
                     "n_elements": size, "reported_s": statistics.median(reported), "true_s": statistics.median(true),
                     "true_over_reported": statistics.median(true) / statistics.median(reported)})

    for row in rows:
        row["device"] = device
        row.setdefault("n_elements", n)
    print(f"{'rule':6} {'pattern':40} {'slow/fixed':>10}  detail")
    for row in rows:
        if row["rule"] == "KL504":
            print(f"{row['rule']:6} {row['pattern']:40} {'':>10}  true kernel time / reported: "
                  f"{row['true_over_reported']:.2f}x ({row['true_s'] * 1e6:.0f} us vs {row['reported_s'] * 1e6:.0f} us)")
        else:
            extra = f", slow/pool {row['slow_over_pool']:.2f}x" if row.get("slow_over_pool") else ""
            if row.get("slow_over_kept_on_device"):
                extra += f", slow/data kept on the device {row['slow_over_kept_on_device']:.1f}x"
            print(f"{row['rule']:6} {row['pattern']:40} {row['slow_over_fixed']:>9.2f}x  "
                  f"{row['slow_s'] * 1e3:.1f} ms vs {row['fixed_s'] * 1e3:.1f} ms over {row['steps']} steps{extra}")
    with open(args.result, "w") as out:
        json.dump(rows, out, indent=2)
        out.write("\n")


if __name__ == "__main__":
    main()
