// Example HIP kernels (kernlint check compiles them with Debian's hipcc for gfx90a).
#include <hip/hip_runtime.h>

__global__ void to_long_printf_guard(long *y, const double *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double v = x[i];
        if (v != v || v >= 9.2e18 || v < -9.2e18) {
            printf("bad value at %d: %f\n", i, v);  // 33 VGPR and 160 B scratch for a print
            return;
        }
        y[i] = (long)v;
    }
}

__global__ void to_long(long *y, const double *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = (long)x[i];
}
