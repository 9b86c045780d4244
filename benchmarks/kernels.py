"""The kernels the GPU benchmark times: checked conversions as people write them, and the
hand-written unchecked kernels kernlint's rewrite should match. One line per signature."""
import math

import numba
from numba import cuda

# --- float64 -> int64 -----------------------------------------------------------------


@cuda.jit("void(int64[::1], float64[::1])")
def print_guard_f64(y, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        if v != v or v >= 9.2e18 or v < -9.2e18:
            print("bad value at", i, v)
            return
        y[i] = int(v)


@cuda.jit("void(int64[::1], float64[::1])")
def raise_guard_f64(y, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        if v != v or v >= 9.2e18 or v < -9.2e18:
            raise ValueError("float out of range")
        y[i] = int(v)


@cuda.jit("void(int64[::1], float64[::1])")
def exact_guard_f64(y, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        if v != v or v >= 9.2e18 or v < -9.2e18 or math.floor(v) != v:
            raise ValueError("inexact")
        y[i] = int(v)


@cuda.jit("void(int64[::1], float64[::1])")
def grid_stride_f64(y, x):
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        v = x[i]
        if v != v or v >= 9.2e18 or v < -9.2e18:
            print("bad value at", i)
            continue
        y[i] = int(v)


@cuda.jit("void(int64[::1], float64[::1])")
def hand_f64(y, x):
    i = cuda.grid(1)
    if i < x.size:
        y[i] = int(x[i])


@cuda.jit("void(int64[::1], float64[::1])")
def hand_grid_stride_f64(y, x):
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        y[i] = int(x[i])


# --- float32 -> int32 -----------------------------------------------------------------


@cuda.jit("void(int32[::1], float32[::1])")
def print_guard_f32(y, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        if v != v or v >= 2147483648.0 or v < -2147483648.0:
            print("bad value at", i, v)
            return
        y[i] = numba.int32(v)


@cuda.jit("void(int32[::1], float32[::1])")
def raise_guard_f32(y, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        if v != v or v >= 2147483648.0 or v < -2147483648.0:
            raise ValueError("float out of range")
        y[i] = numba.int32(v)


@cuda.jit("void(int32[::1], float32[::1])")
def exact_guard_f32(y, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        if v != v or v >= 2147483648.0 or v < -2147483648.0 or math.floor(v) != v:
            raise ValueError("inexact")
        y[i] = numba.int32(v)


@cuda.jit("void(int32[::1], float32[::1])")
def grid_stride_f32(y, x):
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        v = x[i]
        if v != v or v >= 2147483648.0 or v < -2147483648.0:
            print("bad value at", i)
            continue
        y[i] = numba.int32(v)


@cuda.jit("void(int32[::1], float32[::1])")
def hand_f32(y, x):
    i = cuda.grid(1)
    if i < x.size:
        y[i] = numba.int32(x[i])


@cuda.jit("void(int32[::1], float32[::1])")
def hand_grid_stride_f32(y, x):
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        y[i] = numba.int32(x[i])
