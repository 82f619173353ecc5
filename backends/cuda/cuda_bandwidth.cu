// hearth-cuda-bandwidth: the GPU's memory bandwidth from device-to-device copies, counting the
// bytes read and written (scripts/gpu-check.sh divides it by a model's bytes per token to get
// the decode floor). Prints one JSON object. usage: hearth-cuda-bandwidth [MiB per copy]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace {

int fail(const char* what, cudaError_t e) {
    std::printf("{\"error\": \"%s: %s\"}\n", what, cudaGetErrorString(e));
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    const size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2048;
    const size_t bytes = (mib > 0 ? mib : 2048) << 20;
    cudaDeviceProp p{};
    if (cudaError_t e = cudaGetDeviceProperties(&p, 0); e) return fail("device 0", e);
    void *a = nullptr, *b = nullptr;
    if (cudaError_t e = cudaMalloc(&a, bytes); e) return fail("cudaMalloc", e);
    if (cudaError_t e = cudaMalloc(&b, bytes); e) return fail("cudaMalloc", e);
    cudaMemset(a, 1, bytes);
    cudaMemset(b, 0, bytes);
    cudaEvent_t t0, t1;
    cudaEventCreate(&t0);
    cudaEventCreate(&t1);
    for (int i = 0; i < 3; ++i) cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);  // warm-up
    constexpr int kReps = 20;
    cudaEventRecord(t0);
    for (int i = 0; i < kReps; ++i)
        cudaMemcpyAsync(i % 2 ? a : b, i % 2 ? b : a, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(t1);
    if (cudaError_t e = cudaEventSynchronize(t1); e) return fail("copy", e);
    float ms = 0;
    cudaEventElapsedTime(&ms, t0, t1);
    const double gbs = 2.0 * double(bytes) * kReps / (double(ms) * 1e6);
    std::printf(
        "{\"device\": \"%s\", \"copy_bytes\": %zu, \"copies\": %d, \"ms\": %.3f, "
        "\"d2d_gb_s\": %.1f}\n",
        p.name, bytes, kReps, double(ms), gbs);
    cudaFree(a);
    cudaFree(b);
    return 0;
}
