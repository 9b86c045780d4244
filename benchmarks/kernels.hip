// The benchmark's checked conversions in HIP, with their hand-written unchecked twins.
#include <hip/hip_runtime.h>
#include <cmath>

__global__ void print_guard_f64(long *y, const double *x, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) {
        double v = x[i];
        if (v != v || v >= 9.2e18 || v < -9.2e18) {
            printf("bad value at %ld: %f\n", i, v);
            return;
        }
        y[i] = (long)v;
    }
}

__global__ void trap_guard_f64(long *y, const double *x, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) {
        double v = x[i];
        if (v != v || v >= 9.2e18 || v < -9.2e18) __builtin_trap();
        y[i] = (long)v;
    }
}

__global__ void exact_guard_f64(long *y, const double *x, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) {
        double v = x[i];
        if (v != v || v >= 9.2e18 || v < -9.2e18 || floor(v) != v) __builtin_trap();
        y[i] = (long)v;
    }
}

__global__ void grid_stride_f64(long *y, const double *x, long n) {
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)blockDim.x * gridDim.x) {
        double v = x[i];
        if (v != v || v >= 9.2e18 || v < -9.2e18) {
            printf("bad value at %ld\n", i);
            continue;
        }
        y[i] = (long)v;
    }
}

__global__ void hand_f64(long *y, const double *x, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = (long)x[i];
}

__global__ void hand_grid_stride_f64(long *y, const double *x, long n) {
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)blockDim.x * gridDim.x)
        y[i] = (long)x[i];
}

__global__ void print_guard_f32(int *y, const float *x, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        if (v != v || v >= 2147483648.0f || v < -2147483648.0f) {
            printf("bad value at %ld: %f\n", i, v);
            return;
        }
        y[i] = (int)v;
    }
}

__global__ void hand_f32(int *y, const float *x, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = (int)x[i];
}
