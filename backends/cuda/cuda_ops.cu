// Element-wise ops, RoPE and the mixture-of-experts routing and combine (RMS norm is in
// cuda_fused.cu). Element-wise math is float32 with the full-precision library functions (no
// fast-math); RoPE's angles are double, as in the reference ops, so positions in the thousands
// keep their precision.
#include "cuda_argmax.cuh"
#include "cuda_common.cuh"
#include "cuda_pdl.cuh"
#include "cuda_rope.cuh"

namespace hearth::backend::cuda {

namespace {

__global__ void k_elementwise(Ew op, DevTensor dst, DevTensor a, DevTensor b, float alpha) {
    pdl_release();
    pdl_wait();
    const int64_t n = dst.ne[0], total = dst.ne[0] * dst.ne[1];
    for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
         e += int64_t(gridDim.x) * blockDim.x) {
        const int64_t i = e % n, t = e / n;
        const float x = f32_at(a, t)[i];
        float y = 0.f;
        switch (op) {
            case Ew::Add:
                y = x + f32_at(b, b.ne[1] == 1 ? 0 : t)[i];
                break;
            case Ew::SwiGlu:
                y = x / (1.f + expf(-x)) * f32_at(b, t)[i];
                break;
            case Ew::GeGlu: {
                constexpr float kC = 0.79788456080286535588f;  // sqrt(2 / pi)
                y = 0.5f * x * (1.f + tanhf(kC * (x + 0.044715f * x * x * x))) * f32_at(b, t)[i];
                break;
            }
            case Ew::Scale:
                y = x * alpha;
                break;
            case Ew::SoftCap:
                y = alpha * tanhf(x / alpha);
                break;
        }
        f32_at(dst, t)[i] = y;
    }
}

// a (items [0, n_a)) and, when n_b > 0, b rotated the same way (items [n_a, n_a + n_b)).
__global__ void k_rope(DevTensor dst, DevTensor a, DevTensor dst_b, DevTensor b, DevTensor pos,
                       DevTensor ff, RopeArgs r, int64_t n_a, int64_t n_b) {
    pdl_release();
    pdl_wait();
    for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < n_a + n_b;
         e += int64_t(gridDim.x) * blockDim.x) {
        if (e < n_a)
            rope_item(dst, a, pos, ff, r, e, RopeStore{});
        else
            rope_item(dst_b, b, pos, ff, r, e - n_a, RopeStore{});
    }
}

// One thread per token: softmax over the experts, then k passes each taking the largest
// probability after the previous pick in (probability descending, id ascending) order.
__global__ void k_moe_route(DevTensor wout, DevTensor ids, DevTensor logits, int32_t k,
                            bool renorm) {
    const int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= logits.ne[1]) return;
    const float* x = f32_at(logits, t);
    const int64_t ne = logits.ne[0];
    double mx = -INFINITY, sum = 0;
    for (int64_t e = 0; e < ne; ++e) mx = fmax(mx, double(x[e]));
    for (int64_t e = 0; e < ne; ++e) sum += exp(double(x[e]) - mx);
    auto* id_out = reinterpret_cast<int32_t*>(at(ids, t));
    float* w = f32_at(wout, t);
    double prev_p = INFINITY, chosen = 0;
    int64_t prev_e = -1;
    for (int32_t j = 0; j < k; ++j) {
        int64_t best = -1;
        double best_p = -1;
        for (int64_t e = 0; e < ne; ++e) {
            const double p = exp(double(x[e]) - mx);
            const bool after = p < prev_p || (p == prev_p && e > prev_e);
            if (after && p > best_p) {
                best = e;
                best_p = p;
            }
        }
        id_out[j] = int32_t(best);
        chosen += best_p / sum;
        prev_p = best_p;
        prev_e = best;
    }
    for (int32_t j = 0; j < k; ++j) {
        const double pj = exp(double(x[id_out[j]]) - mx) / sum;
        w[j] = float(renorm ? pj / chosen : pj);
    }
}

__global__ void k_moe_combine(DevTensor dst, DevTensor a, DevTensor w) {
    const int64_t n = dst.ne[0], total = n * dst.ne[1], kk = a.ne[1];
    for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
         e += int64_t(gridDim.x) * blockDim.x) {
        const int64_t i = e % n, t = e / n;
        const float* wt = f32_at(w, t);
        double s = 0;
        for (int64_t j = 0; j < kk; ++j) s += double(wt[j]) * double(f32_at(a, j, t)[i]);
        f32_at(dst, t)[i] = float(s);
    }
}

// One block per column: each thread scans a strided share, then a tree in shared memory (the
// order is total, so the tree's shape does not change the result).
__global__ void k_argmax(DevTensor dst, DevTensor a) {
    pdl_release();
    pdl_wait();
    __shared__ uint32_t sv[kArgMaxThreads], si[kArgMaxThreads];
    const int64_t t = blockIdx.x;
    const int tid = int(threadIdx.x);
    uint32_t bv, bi;
    argmax_scan(f32_at(a, t), a.ne[0], tid, kArgMaxThreads, bv, bi);
    sv[tid] = bv;
    si[tid] = bi;
    __syncthreads();
    for (int s = kArgMaxThreads / 2; s > 0; s >>= 1) {
        if (tid < s && argmax_better(sv[tid + s], si[tid + s], sv[tid], si[tid])) {
            sv[tid] = sv[tid + s];
            si[tid] = si[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0)
        *reinterpret_cast<int32_t*>(at(dst, t)) = si[0] == kArgMaxNone ? 0 : int32_t(si[0]);
}

unsigned grid_for(int64_t total, int per_block) {
    const int64_t b = (total + per_block - 1) / per_block;
    return static_cast<unsigned>(b < 65536 ? (b > 0 ? b : 1) : 65536);
}

}  // namespace

cudaError_t launch_elementwise(cudaStream_t s, Ew op, const DevTensor& dst, const DevTensor& a,
                               const DevTensor& b, float alpha) {
    const int64_t total = dst.ne[0] * dst.ne[1];
    if (total == 0) return cudaSuccess;
    launch_pdl(k_elementwise, dim3(grid_for(total, 256)), dim3(256), s, op, dst, a, b, alpha);
    return cudaGetLastError();
}

cudaError_t launch_rope(cudaStream_t s, const DevTensor& dst, const DevTensor& a,
                        const DevTensor& positions, const DevTensor& freq_factors,
                        const RopeArgs& r, const DevTensor* dst_b, const DevTensor* b) {
    if ((dst_b == nullptr) != (b == nullptr)) return cudaErrorInvalidValue;
    const int64_t n_a = rope_items(a, r), n_b = b ? rope_items(*b, r) : 0;
    if (n_a + n_b == 0) return cudaSuccess;
    const DevTensor none{};
    launch_pdl(k_rope, dim3(grid_for(n_a + n_b, 256)), dim3(256), s, dst, a, dst_b ? *dst_b : none,
               b ? *b : none, positions, freq_factors, r, n_a, n_b);
    return cudaGetLastError();
}

cudaError_t launch_moe_route(cudaStream_t s, const DevTensor& weights, const DevTensor& ids,
                             const DevTensor& logits, int32_t k, bool renorm) {
    if (logits.ne[1] == 0) return cudaSuccess;
    k_moe_route<<<grid_for(logits.ne[1], 64), 64, 0, s>>>(weights, ids, logits, k, renorm);
    return cudaGetLastError();
}

cudaError_t launch_moe_combine(cudaStream_t s, const DevTensor& dst, const DevTensor& a,
                               const DevTensor& w) {
    const int64_t total = dst.ne[0] * dst.ne[1];
    if (total == 0) return cudaSuccess;
    k_moe_combine<<<grid_for(total, 256), 256, 0, s>>>(dst, a, w);
    return cudaGetLastError();
}

cudaError_t launch_argmax(cudaStream_t s, const DevTensor& dst, const DevTensor& a) {
    if (a.ne[1] == 0) return cudaSuccess;
    launch_pdl(k_argmax, dim3(unsigned(a.ne[1])), dim3(kArgMaxThreads), s, dst, a);
    return cudaGetLastError();
}

}  // namespace hearth::backend::cuda

namespace hearth::backend::cuda {

LaunchPolicy& launch_policy() {
    thread_local LaunchPolicy policy;
    return policy;
}

bool kernels_loadable(int device) {
    if (cudaSetDevice(device) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    cudaFuncAttributes attr{};
    const cudaError_t e = cudaFuncGetAttributes(&attr, k_elementwise);
    (void)cudaGetLastError();
    return e == cudaSuccess;
}

}  // namespace hearth::backend::cuda

namespace hearth::backend::cuda {

const char* built_architectures() {
    return HEARTH_CUDA_ARCHS_TEXT;
}

}  // namespace hearth::backend::cuda
