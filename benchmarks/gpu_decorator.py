"""On a GPU: @no_hostcall on lazy kernels (refused before they run; fix=True runs rewritten
code with correct results) and what the decorator costs: launch time over 10,000 launches
of a tiny kernel and first-compile time, decorated against undecorated, measured side by
side in one process.

    python benchmarks/gpu_decorator.py RESULT.json
"""
import importlib.util
import json
import os
import statistics
import tempfile
import sys
import textwrap
import time

import warnings

import numpy as np
from numba import cuda
from numba.core.errors import NumbaPerformanceWarning

warnings.simplefilter("ignore", NumbaPerformanceWarning)  # tiny grids are the point here

from kernlint import HostcallError, no_hostcall
from kernlint.analysis.conversions import safe_range

LAUNCHES = 10_000


SOURCES = tempfile.mkdtemp(prefix="kernlint-bench-")


def define(name, body, decorate=None):
    """A fresh kernel in a source file of its own (so numba compiles it anew, with source)."""
    path = os.path.join(SOURCES, f"{name}.py")
    with open(path, "w") as handle:
        handle.write("from numba import cuda\n" + textwrap.dedent(body).replace("KERNEL", name))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kernel = cuda.jit(getattr(module, name))
    return decorate(kernel) if decorate else kernel


PRINT_GUARD = '''
def KERNEL(y, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        if v != v or v >= 9.2e18 or v < -9.2e18:
            print("bad value at", i, v)
            return
        y[i] = int(v)
'''

TINY = '''
def KERNEL(y, x):
    i = cuda.grid(1)
    if i < x.size:
        y[i] = int(x[i])
'''


def refused_before_running():
    kernel = define("lazy_print_guard", PRINT_GUARD, no_hostcall)
    x = cuda.to_device(np.arange(1024, dtype=np.float64))
    y = cuda.to_device(np.full(1024, -7, dtype=np.int64))
    outcomes = []
    for _ in range(2):  # the second launch must not find a registered kernel either
        try:
            kernel[4, 256](y, x)
            cuda.synchronize()
            outcomes.append("ran")
        except HostcallError as error:
            outcomes.append("refused")
            message = str(error)
    untouched = bool((y.copy_to_host() == -7).all())
    print(f"lazy print-guarded kernel: {outcomes}, output untouched: {untouched}")
    print(textwrap.indent(message, "    "))
    return {"outcomes": outcomes, "output_untouched": untouched, "message": message}


def fix_gives_correct_results():
    fixed = define("lazy_fixed", PRINT_GUARD, no_hostcall(fix=True))
    plain = define("lazy_plain", TINY)
    rng = np.random.default_rng(7)
    n = 1 << 20
    lo, hi = safe_range("int64")  # the conversion's safe range, not where the guard passes
    values = np.concatenate([rng.uniform(lo, hi, n // 2), rng.uniform(-1e6, 1e6, n // 2)])
    x = cuda.to_device(values)
    y_fixed = cuda.to_device(np.full(n, -7, dtype=np.int64))
    y_plain = cuda.to_device(np.full(n, -7, dtype=np.int64))
    fixed[(n + 255) // 256, 256](y_fixed, x)
    plain[(n + 255) // 256, 256](y_plain, x)
    cuda.synchronize()
    equal = bool((y_fixed.copy_to_host() == y_plain.copy_to_host()).all())
    expected = bool((y_fixed.copy_to_host() == values.astype(np.int64)).all())
    kernel = next(iter(fixed.overloads.values()))
    no_print = not any("vprintf" in text.split("declare")[0] for text in kernel._codelibrary.llvm_strs)
    regs = kernel.regs_per_thread
    plain_regs = next(iter(plain.overloads.values())).regs_per_thread
    print(f"fix=True: results equal to the hand-written kernel: {equal}, to numpy: {expected}; "
          f"print path gone: {no_print}; registers {regs} (hand-written {plain_regs})")
    return {"equal_to_handwritten": equal, "equal_to_numpy": expected, "print_removed": no_print,
            "registers": regs, "handwritten_registers": plain_regs}


def launch_overhead():
    plain = define("tiny_plain", TINY)
    decorated = define("tiny_decorated", TINY, no_hostcall)
    x = cuda.to_device(np.ones(256))
    y = cuda.device_array(256, dtype=np.int64)
    for kernel in (plain, decorated):
        kernel[1, 256](y, x)
    cuda.synchronize()
    rounds = {"plain": [], "decorated": []}
    for _ in range(10):  # interleaved blocks of 1,000 launches: drift hits both alike
        for name, kernel in (("plain", plain), ("decorated", decorated)):
            start = time.perf_counter()
            for _ in range(LAUNCHES // 10):
                kernel[1, 256](y, x)
            cuda.synchronize()
            rounds[name].append((time.perf_counter() - start) / (LAUNCHES // 10))
    plain_us = statistics.median(rounds["plain"]) * 1e6
    decorated_us = statistics.median(rounds["decorated"]) * 1e6
    print(f"launch: undecorated {plain_us:.2f} us, decorated {decorated_us:.2f} us, "
          f"ratio {decorated_us / plain_us:.4f} over {LAUNCHES} launches each")
    return {"launches": LAUNCHES, "undecorated_us": plain_us, "decorated_us": decorated_us,
            "ratio": decorated_us / plain_us}


def first_compile_overhead(samples=7):
    x = cuda.to_device(np.ones(256))
    y = cuda.device_array(256, dtype=np.int64)
    times = {"plain": [], "decorated": []}
    for sample in range(samples):
        for name, decorate in (("plain", None), ("decorated", no_hostcall)):
            kernel = define(f"first_{name}_{sample}", PRINT_GUARD.replace("print(", "(") , decorate)
            start = time.perf_counter()
            kernel[1, 256](y, x)  # compiles (type, lower, NVVM, link, load) then launches
            cuda.synchronize()
            times[name].append(time.perf_counter() - start)
    plain_ms = statistics.median(times["plain"]) * 1e3
    decorated_ms = statistics.median(times["decorated"]) * 1e3
    print(f"first launch (compile): undecorated {plain_ms:.1f} ms, decorated {decorated_ms:.1f} ms, "
          f"overhead {decorated_ms / plain_ms - 1:+.1%} (median of {samples})")
    return {"undecorated_ms": plain_ms, "decorated_ms": decorated_ms, "overhead": decorated_ms / plain_ms - 1}


def main():
    device = cuda.get_current_device().name
    device = device.decode() if isinstance(device, bytes) else device
    print(f"device: {device}")
    results = {
        "device": device,
        "refused": refused_before_running(),
        "fix": fix_gives_correct_results(),
        "launch": launch_overhead(),
        "first_compile": first_compile_overhead(),
    }
    with open(sys.argv[1], "w") as handle:
        json.dump(results, handle, indent=2)


if __name__ == "__main__":
    main()
