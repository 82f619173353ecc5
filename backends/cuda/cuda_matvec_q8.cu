// Decode matrix-vector products with int8 dot products (dp4a) for the formats of the usual
// model files: Q4_0, Q8_0, Q4_K and Q6_K (Q4_K_M files are Q4_K + Q6_K). The activations are
// first quantized to 8 bits in blocks of 32 (a scale d and d * sum(q) per block, as ggml's Q8_1
// does), so each 32-element block of a weight row costs a few dp4a per token. The other formats
// use the float kernels of cuda_matmul.cu.
#include "cuda_q8dot.cuh"

namespace hearth::backend::cuda {

namespace {

constexpr int kMaxVecT = 8;

// One warp per 32-element group of one token: q = round(x / d), d = max|x| / 127.
__global__ void k_quantize_q8(DevTensor x, int8_t* q, float2* ds, int64_t groups_per_tok,
                              int64_t total) {
    const int64_t gi = int64_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
    if (gi >= total) return;
    const int lane = threadIdx.x & 31;
    const int64_t t = gi / groups_per_tok, g = gi % groups_per_tok;
    const float v = f32_at(x, t)[g * 32 + lane];
    const float amax = warp_max(fabsf(v));
    const float d = amax / 127.f;
    const int qi = d > 0.f ? __float2int_rn(v / d) : 0;
    const float sum = warp_sum(float(qi));  // exact: |sum| <= 32 * 127
    q[gi * 32 + lane] = int8_t(qi);
    if (lane == 0) ds[gi] = make_float2(d, d * sum);
}

// One warp per row, 8 rows per block; tokens t0 .. t0 + nt - 1 (nt <= kMaxVecT).
template <uint32_t T>
__global__ void __launch_bounds__(256) k_mat_vec_q8(DevTensor dst, DevTensor w, const int8_t* q,
                                                    const float2* ds, int64_t t0, int nt) {
    const int64_t r = int64_t(blockIdx.x) * 8 + threadIdx.x / 32;
    if (r >= w.ne[1]) return;
    const int lane = threadIdx.x & 31;
    const int64_t k = w.ne[0], units = k / Q8Dot<T>::kUnit, blocks = k / 32;
    const auto* row = reinterpret_cast<const uint8_t*>(at(w, r));
    float acc[kMaxVecT] = {};
    // Unrolled so that a lane has several units' loads in flight (a row of a 4096-wide Q4_0
    // matrix is only 4 units per lane: one at a time left the warp waiting on each).
#pragma unroll 4
    for (int64_t u = lane; u < units; u += 32) {
#pragma unroll
        for (int t = 0; t < kMaxVecT; ++t) {
            if (t >= nt) break;
            acc[t] += Q8Dot<T>::dot(row, u, q + (t0 + t) * k, ds + (t0 + t) * blocks);
        }
    }
#pragma unroll
    for (int t = 0; t < kMaxVecT; ++t) {
        if (t >= nt) break;
        const float v = warp_sum(acc[t]);
        if (lane == 0) f32_at(dst, t0 + t)[r] = v;
    }
}

}  // namespace

bool mat_vec_q8_supported(uint32_t type) {
    return type == kQ4_0 || type == kQ8_0 || type == kQ4_K || type == kQ6_K;
}

size_t mat_vec_q8_scratch_bytes(int64_t k, int64_t n_tokens) {
    return size_t(n_tokens) * size_t(k) + size_t(n_tokens) * size_t(k / 32) * sizeof(float2) + 256;
}

cudaError_t launch_mat_vec_q8(cudaStream_t s, const DevTensor& dst, const DevTensor& w,
                              const DevTensor& x, void* scratch, bool quantize_x) {
    const int64_t k = w.ne[0], m = w.ne[1], nt = x.ne[1];
    if (m == 0 || nt == 0) return cudaSuccess;
    auto* q = static_cast<int8_t*>(scratch);
    // The scales after the quants, 16-byte aligned.
    const size_t q_bytes = (size_t(nt) * size_t(k) + 255) / 256 * 256;
    auto* ds = reinterpret_cast<float2*>(static_cast<char*>(scratch) + q_bytes);
    const int64_t groups = nt * (k / 32);
    if (quantize_x)
        k_quantize_q8<<<unsigned((groups + 7) / 8), 256, 0, s>>>(x, q, ds, k / 32, groups);
    auto launch = [&]<uint32_t T>() {
        for (int64_t t0 = 0; t0 < nt; t0 += kMaxVecT) {
            const int n = int(nt - t0 < kMaxVecT ? nt - t0 : kMaxVecT);
            k_mat_vec_q8<T><<<unsigned((m + 7) / 8), 256, 0, s>>>(dst, w, q, ds, t0, n);
        }
    };
    switch (w.type) {
        case kQ4_0:
            launch.template operator()<kQ4_0>();
            break;
        case kQ8_0:
            launch.template operator()<kQ8_0>();
            break;
        case kQ4_K:
            launch.template operator()<kQ4_K>();
            break;
        case kQ6_K:
            launch.template operator()<kQ6_K>();
            break;
        default:
            return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

}  // namespace hearth::backend::cuda
