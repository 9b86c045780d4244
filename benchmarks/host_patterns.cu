// The HIP host patterns KL501/KL503 find, measured in CUDA C++ (HIP cannot run on the NVIDIA
// machines; hipMalloc/hipMemcpy/hipDeviceSynchronize map one to one onto these calls).
// Each slow form runs beside its fix, round-robin, in one process; prints one JSON row each.
//
//   nvcc -O2 -arch=sm_90 benchmarks/host_patterns.cu -o host_patterns && ./host_patterns [n] [steps]
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <functional>
#include <vector>

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t status = (call);                                                 \
        if (status != cudaSuccess) {                                                 \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(status)); \
            std::exit(1);                                                            \
        }                                                                            \
    } while (0)

__global__ void axpy(float *out, float a, const float *x, const float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}

static int n = 1 << 22, steps = 1000, blocks, threads = 256;
static float *d_x, *d_y, *d_out, *h_out, *pinned_out;

static double seconds(const std::function<void()> &body) {
    CHECK(cudaDeviceSynchronize());
    auto start = std::chrono::steady_clock::now();
    body();
    CHECK(cudaDeviceSynchronize());
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

static void pair(const char *rule, const char *pattern, int iterations, const std::function<void()> &slow,
                 const std::function<void()> &fixed, bool last) {
    slow();
    fixed();
    std::vector<double> s, f;
    for (int r = 0; r < 5; ++r) {
        s.push_back(seconds(slow));
        f.push_back(seconds(fixed));
    }
    double ms = median(s), mf = median(f);
    std::printf("  {\"rule\": \"%s\", \"pattern\": \"%s\", \"steps\": %d, \"slow_s\": %.6f, \"fixed_s\": %.6f, "
                "\"slow_over_fixed\": %.3f, \"language\": \"CUDA C++ (for HIP)\"}%s\n",
                rule, pattern, iterations, ms, mf, ms / mf, last ? "" : ",");
}

// A launcher of the shape the ROCm lesson started from: allocate, launch, free, every call.
static void launch_with_scratch_per_call() {
    float *scratch;
    CHECK(cudaMalloc(&scratch, n * sizeof(float)));
    axpy<<<blocks, threads>>>(scratch, 2.0f, d_x, d_y, n);
    CHECK(cudaFree(scratch));
}

static void launch_with_async_scratch_per_call(cudaStream_t stream) {
    float *scratch;
    CHECK(cudaMallocAsync(&scratch, n * sizeof(float), stream));
    axpy<<<blocks, threads, 0, stream>>>(scratch, 2.0f, d_x, d_y, n);
    CHECK(cudaFreeAsync(scratch, stream));
}

static float *grown = nullptr;
static size_t grown_bytes = 0;

static void launch_with_grown_scratch() {  // the fix: a buffer grown on demand, kept
    size_t bytes = n * sizeof(float);
    if (bytes > grown_bytes) {
        if (grown) CHECK(cudaFree(grown));
        CHECK(cudaMalloc(&grown, bytes));
        grown_bytes = bytes;
    }
    axpy<<<blocks, threads>>>(grown, 2.0f, d_x, d_y, n);
}

int main(int argc, char **argv) {
    if (argc > 1) n = std::atoi(argv[1]);
    if (argc > 2) steps = std::atoi(argv[2]);
    blocks = (n + threads - 1) / threads;
    size_t bytes = n * sizeof(float);
    CHECK(cudaMalloc(&d_x, bytes));
    CHECK(cudaMalloc(&d_y, bytes));
    CHECK(cudaMalloc(&d_out, bytes));
    CHECK(cudaMemset(d_x, 0, bytes));
    CHECK(cudaMemset(d_y, 0, bytes));
    h_out = static_cast<float *>(std::malloc(bytes));
    CHECK(cudaMallocHost(&pinned_out, bytes));
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    cudaDeviceProp properties;
    CHECK(cudaGetDeviceProperties(&properties, 0));
    std::printf("{\"device\": \"%s\", \"n\": %d, \"rows\": [\n", properties.name, n);

    pair("KL501", "cudaMalloc/cudaFree per step", steps, [] {
        for (int s = 0; s < steps; ++s) launch_with_scratch_per_call();
    }, [] {
        for (int s = 0; s < steps; ++s) launch_with_grown_scratch();
    }, false);
    pair("KL501", "cudaMallocAsync/cudaFreeAsync per step", steps, [&] {
        for (int s = 0; s < steps; ++s) launch_with_async_scratch_per_call(stream);
    }, [] {
        for (int s = 0; s < steps; ++s) launch_with_grown_scratch();
    }, false);
    pair("KL503", "blocking cudaMemcpy to the host per step", steps / 5, [&] {
        for (int s = 0; s < steps / 5; ++s) {
            axpy<<<blocks, threads>>>(d_out, 2.0f, d_x, d_y, n);
            CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
        }
    }, [&] {
        for (int s = 0; s < steps / 5; ++s) axpy<<<blocks, threads, 0, stream>>>(d_out, 2.0f, d_x, d_y, n);
        CHECK(cudaMemcpyAsync(pinned_out, d_out, bytes, cudaMemcpyDeviceToHost, stream));
        CHECK(cudaStreamSynchronize(stream));
    }, false);
    pair("KL503", "cudaDeviceSynchronize per step", steps, [] {
        for (int s = 0; s < steps; ++s) {
            axpy<<<blocks, threads>>>(d_out, 2.0f, d_x, d_y, n);
            CHECK(cudaDeviceSynchronize());
        }
    }, [] {
        for (int s = 0; s < steps; ++s) axpy<<<blocks, threads>>>(d_out, 2.0f, d_x, d_y, n);
        CHECK(cudaDeviceSynchronize());
    }, true);
    std::printf("]}\n");
    return 0;
}
