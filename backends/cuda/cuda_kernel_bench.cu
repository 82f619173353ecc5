// hearth-cuda-kernel-bench: the decode matrix-vector kernels alone, on the weight shapes of the
// benchmark models, in every work split launch_mat_vec_q8 offers, so one GPU run says which
// split is fastest for which shape (mat_vec_q8_config's choice comes from these figures); the
// prefill kernels (tensor-core and float) on a 512-token batch; and the time a graph takes per
// tiny kernel (the launch floor a decode step of many small
// kernels meets). Weights are a constant byte pattern: the kernels' speed does not depend on
// the values. Prints one JSON object per line. Not installed; scripts/gpu-check.sh runs it.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "cuda_common.cuh"

using namespace hearth::backend::cuda;

namespace {

struct Shape {
    const char* name;
    uint32_t type;  // DType id
    int64_t k, m;
};

// Bytes of a row of k elements (k a multiple of the format's block), from the kernels' own
// block layouts.
int64_t row_bytes(uint32_t type, int64_t k) {
    int64_t bytes = 0;
    dispatch_weight(type, [&]<uint32_t T>() { bytes = k / Fmt<T>::block * Fmt<T>::bytes; });
    return bytes;
}

const char* type_name(uint32_t type) {
    switch (type) {
        case kQ4_0:
            return "Q4_0";
        case kQ8_0:
            return "Q8_0";
        case kQ4_K:
            return "Q4_K";
        case kQ6_K:
            return "Q6_K";
    }
    return "?";
}

DevTensor matrix(void* p, uint32_t type, int64_t k, int64_t m) {
    return dev_matrix(p, type, k, m, type == kF32 ? k * 4 : row_bytes(type, k));
}

// Microseconds per launch of `launch(i)`, i = 0 .. reps - 1, replayed from a graph of them.
template <class F>
double time_in_graph(cudaStream_t s, int reps, F&& launch) {
    cudaGraph_t g = nullptr;
    cudaGraphExec_t exec = nullptr;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    for (int i = 0; i < reps; ++i) launch(i);
    cudaStreamEndCapture(s, &g);
    if (cudaGraphInstantiate(&exec, g, 0) != cudaSuccess) return -1;
    cudaGraphLaunch(exec, s);  // warm-up
    cudaEvent_t t0, t1;
    cudaEventCreate(&t0);
    cudaEventCreate(&t1);
    cudaEventRecord(t0, s);
    constexpr int kGraphs = 5;
    for (int i = 0; i < kGraphs; ++i) cudaGraphLaunch(exec, s);
    cudaEventRecord(t1, s);
    cudaEventSynchronize(t1);
    float ms = 0;
    cudaEventElapsedTime(&ms, t0, t1);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(g);
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
    return double(ms) * 1e3 / (kGraphs * reps);
}

}  // namespace

int main() {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        std::printf("{\"error\": \"no CUDA device\"}\n");
        return 3;
    }
    cudaStream_t s = nullptr;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    const Shape shapes[] = {
        {"llama3-8b ffn_up", kQ4_K, 4096, 14336},   {"llama3-8b ffn_down", kQ4_K, 14336, 4096},
        {"llama3-8b ffn_down", kQ6_K, 14336, 4096}, {"llama3-8b attn_q", kQ4_K, 4096, 4096},
        {"llama3-8b attn_k", kQ4_K, 4096, 1024},    {"llama3-8b output", kQ6_K, 4096, 128256},
        {"llama3-8b ffn_up", kQ4_0, 4096, 14336},   {"llama3-8b attn_k", kQ4_0, 4096, 1024},
        {"llama3-8b ffn_up", kQ8_0, 4096, 14336},   {"tinyllama ffn_up", kQ4_0, 2048, 5632},
        {"tinyllama ffn_down", kQ4_0, 5632, 2048},  {"tinyllama attn_q", kQ4_0, 2048, 2048},
        {"tinyllama attn_k", kQ4_0, 2048, 256},     {"tinyllama ffn_up", kQ4_K, 2048, 5632},
        {"qwen2.5-0.5b ffn_up", kQ4_0, 896, 4864},
    };
    const MatVecConfig configs[] = {{0, 1}, {1, 1}, {1, 2}, {1, 4}, {2, 1},
                                    {2, 2}, {2, 4}, {4, 1}, {4, 2}, {4, 4}};
    size_t max_w = 0;
    int64_t max_k = 0, max_m = 0;
    for (const Shape& sh : shapes) {
        max_w = std::max(max_w, size_t(row_bytes(sh.type, sh.k) * sh.m));
        max_k = std::max(max_k, sh.k);
        max_m = std::max(max_m, sh.m);
    }
    // Room for several copies of each matrix, 4 x the L2 at least: a decode step reads each
    // matrix from memory (the model is larger than the L2), so the timed launches rotate over
    // copies that together exceed it (replaying one matrix that fits in the H200's 50 MB L2
    // would time the cache as much as the memory).
    const size_t l2 = size_t(prop.l2CacheSize > 0 ? prop.l2CacheSize : 64 << 20);
    const size_t w_room = std::max(max_w, 4 * l2);
    void *w = nullptr, *x = nullptr, *y = nullptr, *q8 = nullptr;
    const size_t q8_bytes = mat_vec_q8_scratch_bytes(max_k, 1);
    if (cudaMalloc(&w, w_room) || cudaMalloc(&x, size_t(max_k) * 4) ||
        cudaMalloc(&y, size_t(max_m) * 4) || cudaMalloc(&q8, q8_bytes)) {
        std::printf("{\"error\": \"cudaMalloc\"}\n");
        return 1;
    }
    cudaMemset(w, 0x11, w_room);  // f16 scales 0x1111: small normal numbers
    std::vector<float> xh(static_cast<size_t>(max_k));
    for (size_t i = 0; i < xh.size(); ++i) xh[i] = float(int(i % 17) - 8) * 0.125f;
    cudaMemcpy(x, xh.data(), xh.size() * 4, cudaMemcpyHostToDevice);

    for (const Shape& sh : shapes) {
        const DevTensor wt = matrix(w, sh.type, sh.k, sh.m);
        const DevTensor xt = matrix(x, kF32, sh.k, 1);
        const DevTensor yt = matrix(y, kF32, sh.m, 1);
        const double bytes = double(row_bytes(sh.type, sh.k)) * double(sh.m);
        // Copies 256-byte aligned, as many as fit; enough launches to touch 3 x the L2.
        const size_t stride = (size_t(bytes) + 255) / 256 * 256;
        const size_t copies = std::max<size_t>(1, w_room / stride);
        const int reps = int(std::clamp<size_t>(3 * l2 / stride + 1, 50, 2000));
        auto copy = [&](int i) {
            DevTensor t = wt;
            t.p += (size_t(i) % copies) * stride;
            return t;
        };
        // Quantize x once; every timed launch reuses it.
        launch_mat_vec_q8(s, yt, wt, xt, q8, true);
        const MatVecConfig chosen = mat_vec_q8_config(wt, 1);
        for (const MatVecConfig& c : configs) {
            if (cudaError_t e = launch_mat_vec_q8(s, yt, wt, xt, q8, false, c); e) {
                (void)cudaGetLastError();
                continue;  // a split this shape cannot take
            }
            const double us = time_in_graph(
                s, reps, [&](int i) { launch_mat_vec_q8(s, yt, copy(i), xt, q8, false, c); });
            std::printf(
                "{\"kernel\": \"mat_vec_q8\", \"shape\": \"%s\", \"type\": \"%s\", \"k\": %lld, "
                "\"m\": %lld, \"rows_per_warp\": %d, \"warps_per_row\": %d, \"chosen\": %s, "
                "\"us\": %.2f, \"gb_s\": %.0f}\n",
                sh.name, type_name(sh.type), static_cast<long long>(sh.k),
                static_cast<long long>(sh.m), c.rows_per_warp, c.warps_per_row,
                c.rows_per_warp == chosen.rows_per_warp && c.warps_per_row == chosen.warps_per_row
                    ? "true"
                    : "false",
                us, bytes / (us * 1e3));
        }
        // The chosen configuration once more launched as a decode step launches it on sm_90+:
        // with programmatic dependent launch, then also prefetching (cuda_pdl.cuh; only a grid
        // about one wave deep prefetches, so for the deeper ones the two lines time the same).
        if (prop.major >= 9) {
            for (const LaunchPolicy policy :
                 {LaunchPolicy{true, false}, LaunchPolicy{true, true}}) {
                const LaunchPolicyScope scope(policy);
                const double us = time_in_graph(
                    s, reps, [&](int i) { launch_mat_vec_q8(s, yt, copy(i), xt, q8, false); });
                std::printf(
                    "{\"kernel\": \"mat_vec_q8\", \"shape\": \"%s\", \"type\": \"%s\", "
                    "\"launch\": \"%s\", \"us\": %.2f, \"gb_s\": %.0f}\n",
                    sh.name, type_name(sh.type), policy.prefetch ? "pdl+prefetch" : "pdl", us,
                    bytes / (us * 1e3));
            }
        }
    }
    // Prefill: a 512-token batch through the two-pass tensor-core product, the one-pass one
    // and the float kernel.
    {
        constexpr int64_t kT = 512;
        void *xb = nullptr, *yb = nullptr;
        if (cudaMalloc(&xb, size_t(max_k) * kT * 4) || cudaMalloc(&yb, size_t(14336) * kT * 4)) {
            std::printf("{\"error\": \"cudaMalloc\"}\n");
            return 1;
        }
        cudaMemset(xb, 0, size_t(max_k) * kT * 4);
        for (const Shape& sh : shapes) {
            if (sh.m > 14336 || std::strncmp(sh.name, "qwen", 4) == 0) continue;
            const DevTensor wt = matrix(w, sh.type, sh.k, sh.m);
            DevTensor xt = matrix(xb, kF32, sh.k, kT), yt = matrix(yb, kF32, sh.m, kT);
            const size_t gemm_bytes = gemm_f16_scratch_bytes(wt, kT);
            void* gemm = nullptr;
            if (gemm_bytes && cudaMalloc(&gemm, gemm_bytes) != cudaSuccess) gemm = nullptr;
            for (const char* kind : {"gemm", "mma", "float"}) {
                const bool two_pass = std::strcmp(kind, "gemm") == 0;
                if (two_pass && !gemm) continue;
                const bool tc = std::strcmp(kind, "float") != 0;
                const double us = time_in_graph(s, 5, [&](int) {
                    if (two_pass)
                        launch_gemm_f16(s, yt, wt, xt, gemm, gemm_bytes);
                    else
                        launch_mat_mul(s, yt, wt, xt, tc);
                });
                const double flops = 2.0 * double(sh.k) * double(sh.m) * double(kT);
                std::printf(
                    "{\"kernel\": \"mat_mul %s\", \"shape\": \"%s\", \"type\": \"%s\", "
                    "\"k\": %lld, \"m\": %lld, \"tokens\": %lld, \"us\": %.1f, "
                    "\"tflops\": %.1f}\n",
                    kind, sh.name, type_name(sh.type), static_cast<long long>(sh.k),
                    static_cast<long long>(sh.m), static_cast<long long>(kT), us,
                    flops / (us * 1e6));
            }
            if (gemm) cudaFree(gemm);
        }
        cudaFree(xb);
        cudaFree(yb);
    }
    // The launch floor: a graph of tiny element-wise kernels (one 4096-float Add each).
    const DevTensor v = matrix(x, kF32, 4096, 1);
    const double us =
        time_in_graph(s, 200, [&](int) { launch_elementwise(s, Ew::Add, v, v, v, 1.f); });
    std::printf("{\"kernel\": \"add 4096 (launch floor)\", \"us\": %.2f}\n", us);
    if (prop.major >= 9) {
        const LaunchPolicyScope scope(LaunchPolicy{true, false});
        const double pdl_us =
            time_in_graph(s, 200, [&](int) { launch_elementwise(s, Ew::Add, v, v, v, 1.f); });
        std::printf("{\"kernel\": \"add 4096 (launch floor, pdl)\", \"us\": %.2f}\n", pdl_us);
    }
    if (cudaError_t e = cudaStreamSynchronize(s); e) {
        std::printf("{\"error\": \"%s\"}\n", cudaGetErrorString(e));
        return 1;
    }
    return 0;
}
