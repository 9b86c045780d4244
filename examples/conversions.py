"""Example numba.cuda kernels: the patterns kernlint finds, and their clean versions.

Run:  kernlint check examples/
"""
import math

import numpy as np
from numba import cuda


@cuda.jit("void(int64[::1], float64[::1])")
def to_int64_print_guard(y, x):
    """The costly one: a never-taken print halves this kernel's throughput on an H200."""
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        if v != v or v >= 9.2e18 or v < -9.2e18:
            print("bad value at", i, v)
            return
        y[i] = int(v)


@cuda.jit("void(int64[::1], float64[::1])")
def to_int64_raise_guard(y, x):
    """numba-cuda drops this raise without debug=True: the check does nothing useful."""
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        if math.isnan(v) or abs(v) >= 9.2e18:
            raise ValueError("value out of int64 range")
        y[i] = int(v)


@cuda.jit("void(int32[::1], float32[::1], int32[::1])")
def to_int32_flagged(y, x, bad):
    """Clean: bad inputs are counted into an output array and converted unchecked."""
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        v = x[i]
        if not (-2147483648.0 <= v < 2147483648.0):
            cuda.atomic.add(bad, 0, 1)
            v = 0.0
        y[i] = np.int32(v)


@cuda.jit(device=True)
def log_nan(i):
    print("NaN at", i)


# kernlint: sig=void(int64[::1], float64[::1])
@cuda.jit
def grid_stride(y, x):
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        v = x[i]
        if v != v:
            log_nan(i)
            continue
        y[i] = int(v)
