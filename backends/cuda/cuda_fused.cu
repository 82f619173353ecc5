// RMS norm, alone or with the work of its neighbours in the graph done in the same pass: the
// residual Add before it (its sum is still written out, the graph uses it again) and the 8-bit
// quantization of its output for the dp4a products after it; and SwiGLU with that quantization.
// A decode step of an 8B model ran 22 kernels a layer, most of them a few microseconds of launch
// and one pass over a 16 KiB vector: fusing saves the launches and the passes. Each fused result
// is the same float as the separate kernels compute (same operations, same order).
#include "cuda_pdl.cuh"
#include "cuda_q8dot.cuh"

namespace hearth::backend::cuda {

namespace {

constexpr int kNormThreads = 1024;
// Elements a thread holds in registers between the passes (rows up to 8192 wide; wider rows
// loop in the same order, reading back what they wrote).
constexpr int kNormPerThread = 8;

// One block per token. Thread i handles elements i, i + 1024, ... in both passes (for the
// quantization each warp's 32 consecutive elements are one group). A row up to kNormPerThread
// * 1024 wide is loaded into registers at once, so each thread's loads (and the weights') are
// in flight together rather than one after another behind the stores of the sum.
template <bool kAdd, bool kQuant>
__global__ void __launch_bounds__(kNormThreads)
    k_rms_norm(DevTensor dst, DevTensor a, DevTensor b, DevTensor sum, DevTensor w, float eps,
               int8_t* q, float2* ds, bool early_w) {
    pdl_release();
    __shared__ double part[kNormThreads / 32];
    const int64_t t = blockIdx.x, n = a.ne[0];
    const int tid = int(threadIdx.x);
    const float* x = f32_at(a, t);
    const float* bx = kAdd ? f32_at(b, b.ne[1] == 1 ? 0 : t) : nullptr;
    float* s = kAdd ? f32_at(sum, t) : nullptr;
    const float* wr = f32_at(w, 0);
    const bool in_regs = n <= int64_t(kNormPerThread) * kNormThreads;
    // The weights are loaded with the row, so their latency hides behind the reduction's; with
    // early_w (no node of the step writes them) before pdl_wait(), while the kernel before may
    // still run (cuda_pdl.cuh).
    float v[kNormPerThread], wv[kNormPerThread];
    double ss = 0;
    auto load_w = [&] {
#pragma unroll
        for (int r = 0; r < kNormPerThread; ++r) {
            const int64_t i = tid + int64_t(r) * kNormThreads;
            wv[r] = i < n ? wr[i] : 0.f;
        }
    };
    if (in_regs && early_w) load_w();
    pdl_wait();
    if (in_regs) {
        if (!early_w) load_w();
#pragma unroll
        for (int r = 0; r < kNormPerThread; ++r) {
            const int64_t i = tid + int64_t(r) * kNormThreads;
            v[r] = i < n ? (kAdd ? x[i] + bx[i] : x[i]) : 0.f;
        }
#pragma unroll
        for (int r = 0; r < kNormPerThread; ++r) {
            const int64_t i = tid + int64_t(r) * kNormThreads;
            if (i >= n) break;
            if constexpr (kAdd) s[i] = v[r];
            ss += double(v[r]) * double(v[r]);
        }
    } else {
        for (int64_t i = tid; i < n; i += kNormThreads) {
            float e = x[i];
            if constexpr (kAdd) {
                e = e + bx[i];
                s[i] = e;
            }
            ss += double(e) * double(e);
        }
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
    if ((tid & 31) == 0) part[tid / 32] = ss;
    __syncthreads();
    if (tid < 32) {
        double p = part[tid];
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) p += __shfl_xor_sync(0xffffffffu, p, o);
        if (tid == 0) part[0] = 1.0 / sqrt(p / double(n) + double(eps));
    }
    __syncthreads();
    const double scale = part[0];
    const float* src = kAdd ? s : x;
    float* d = f32_at(dst, t);
    // n is a multiple of 32 on the quantizing path, so a warp is wholly in or out of range.
    auto finish = [&](int64_t i, float e, float we) {
        const float y = float(double(e) * scale * double(we));
        d[i] = y;
        if constexpr (kQuant)
            quantize_group_q8(y, q + t * n + (i - (tid & 31)), ds + t * (n / 32) + i / 32);
    };
    if (in_regs) {
#pragma unroll
        for (int r = 0; r < kNormPerThread; ++r) {
            const int64_t i = tid + int64_t(r) * kNormThreads;
            if (i >= n) break;
            finish(i, v[r], wv[r]);
        }
    } else {
        for (int64_t i = tid; i < n; i += kNormThreads) finish(i, src[i], wr[i]);
    }
}

// One warp per 32-element group of one token: silu(a) * b as k_elementwise computes it.
__global__ void k_swiglu_q8(DevTensor dst, DevTensor a, DevTensor b, int8_t* q, float2* ds,
                            int64_t groups_per_tok, int64_t total) {
    pdl_release();
    pdl_wait();
    const int64_t gi = int64_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
    if (gi >= total) return;
    const int64_t t = gi / groups_per_tok, i = (gi % groups_per_tok) * 32 + (threadIdx.x & 31);
    const float x = f32_at(a, t)[i];
    const float y = x / (1.f + expf(-x)) * f32_at(b, t)[i];
    f32_at(dst, t)[i] = y;
    quantize_group_q8(y, q + gi * 32, ds + gi);
}

}  // namespace

cudaError_t launch_rms_norm(cudaStream_t s, const DevTensor& dst, const DevTensor& a,
                            const DevTensor& w, float eps, const DevTensor* add_b,
                            const DevTensor* sum, void* q8_scratch, bool w_constant) {
    const int64_t nt = a.ne[1], n = a.ne[0];
    if (nt == 0) return cudaSuccess;
    if (q8_scratch && n % 32 != 0) return cudaErrorInvalidValue;
    if ((add_b == nullptr) != (sum == nullptr)) return cudaErrorInvalidValue;
    const Q8Act qa = q8_scratch ? q8_act(q8_scratch, n, nt) : Q8Act{nullptr, nullptr};
    const DevTensor none{};
    const DevTensor& b = add_b ? *add_b : none;
    const DevTensor& sm = sum ? *sum : none;
    // Nothing to read back until the whole row is summed: 1024 threads put all of a decode
    // step's loads in flight at once.
    const dim3 grid{unsigned(nt)}, block{unsigned(kNormThreads)};
    auto* const kernel = add_b ? (q8_scratch ? k_rms_norm<true, true> : k_rms_norm<true, false>)
                               : (q8_scratch ? k_rms_norm<false, true> : k_rms_norm<false, false>);
    launch_pdl(kernel, grid, block, s, dst, a, b, sm, w, eps, qa.q, qa.ds, w_constant);
    return cudaGetLastError();
}

cudaError_t launch_swiglu_q8(cudaStream_t s, const DevTensor& dst, const DevTensor& a,
                             const DevTensor& b, void* q8_scratch) {
    const int64_t n = dst.ne[0], nt = dst.ne[1];
    if (nt == 0) return cudaSuccess;
    if (n % 32 != 0) return cudaErrorInvalidValue;
    const Q8Act qa = q8_act(q8_scratch, n, nt);
    const int64_t groups = nt * (n / 32);
    launch_pdl(k_swiglu_q8, dim3(unsigned((groups + 7) / 8)), dim3(256), s, dst, a, b, qa.q, qa.ds,
               n / 32, groups);
    return cudaGetLastError();
}

}  // namespace hearth::backend::cuda
