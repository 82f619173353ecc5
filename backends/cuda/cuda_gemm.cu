// Prefill matrix products of block-format weights in two passes: the weight rows decoded to
// half precision once (into a scratch matrix), the activations rounded to half once, then a
// tiled tensor-core product of the two half matrices (mma.sync m16n8k16, float sums) with
// cp.async double buffering and ldmatrix fragment loads. The one-pass mma kernel
// (cuda_matmul.cu) decoded every weight tile again for each 64 tokens, which bound it to
// 19-45 TFLOPS on an H200; here the decode is a pass over the weights, and the product reads
// halves at the rate the tensor cores take them.
// The operands are the one-pass kernel's exactly (deq32 rounded to half, activations rounded to
// half) and the k16 steps are summed in the same order, so both give the same floats.
#include <algorithm>

#include "cuda_common.cuh"
#include "cuda_kernels.h"
#include "cuda_mma.cuh"

namespace hearth::backend::cuda {

namespace {

constexpr int kBm = 128, kBn = 128, kBk = 32, kThreads = 256;
// Halves a shared row: 80 bytes, so the 8 rows an ldmatrix reads fall in distinct banks.
constexpr int kStride = kBk + 8;
// The decoded weights kept at once: a matrix of more halves is done in chunks of rows.
constexpr size_t kMaxWeightScratch = size_t(128) << 20;

size_t align256(size_t n) {
    return (n + 255) / 256 * 256;
}

int64_t chunk_rows(int64_t m, int64_t k) {
    const int64_t fit = int64_t(kMaxWeightScratch / (2 * size_t(k))) / kBm * kBm;
    return std::min(m, std::max<int64_t>(kBm, fit));
}

// Rows [r0, r0 + n) of w as halves, row-major in w16 (k a row): one thread per 32 elements.
template <uint32_t T>
__global__ void k_weights_to_f16(__half* w16, DevTensor w, int64_t r0, int64_t n) {
    const int64_t k = w.ne[0], groups = k / 32;
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n * groups) return;
    const int64_t r = i / groups, g = i % groups;
    float y[32];
    deq32<T>(reinterpret_cast<const uint8_t*>(at(w, r0 + r)), g, y);
    auto* out = reinterpret_cast<uint4*>(w16 + r * k + g * 32);
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        __half2 h[4];
#pragma unroll
        for (int e = 0; e < 4; ++e)
            h[e] = __floats2half2_rn(y[8 * q + 2 * e], y[8 * q + 2 * e + 1]);
        uint4 v;
        memcpy(&v, h, sizeof v);
        out[q] = v;
    }
}

// x (k x nt floats, a row a token) as halves, a row a token: one thread per pair.
__global__ void k_acts_to_f16(__half* x16, DevTensor x) {
    const int64_t k = x.ne[0], pairs = k / 2;
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= x.ne[1] * pairs) return;
    const int64_t t = i / pairs, e = 2 * (i % pairs);
    const float* xr = f32_at(x, t);
    reinterpret_cast<__half2*>(x16 + t * k)[e / 2] = __floats2half2_rn(xr[e], xr[e + 1]);
}

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, bool pred) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const auto s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    const int n = pred ? 16 : 0;  // 0: the 16 bytes are zero-filled, nothing is read
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(n));
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
// Waits until at most one committed group (the newest) is still in flight.
__device__ __forceinline__ void cp_async_wait_all_but_one() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group 1;\n" ::);
#endif
}
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* smem) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const auto s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s));
#else
    r[0] = r[1] = r[2] = r[3] = 0;
#endif
}

// dst rows r_out + [0, m), tokens [0, nt) = w16 (m x k halves) times x16 (nt x k halves)
// transposed. A block: 128 rows x 128 tokens, k in stages of 32 (two in flight); 8 warps of
// 64 rows x 32 tokens (4 x 4 tiles of 16 x 8).
__global__ void __launch_bounds__(kThreads, 2)
    k_gemm_f16(DevTensor dst, const __half* w16, const __half* x16, int64_t m, int64_t k,
               int64_t nt, int64_t r_out) {
    __shared__ __align__(16) __half as[2][kBm][kStride];
    __shared__ __align__(16) __half bs[2][kBn][kStride];
    const int tid = int(threadIdx.x), lane = tid & 31, warp = tid >> 5;
    const int wm = warp & 1, wn = warp >> 1;
    const int64_t r0 = int64_t(blockIdx.x) * kBm, t0 = int64_t(blockIdx.y) * kBn;
    // A stage: 128 rows x 4 runs of 8 halves (16 bytes) for each operand; two runs a thread.
    auto load = [&](int buf, int64_t k0) {
#pragma unroll
        for (int c = 0; c < 2; ++c) {
            const int idx = tid + c * kThreads, row = idx >> 2, col = (idx & 3) * 8;
            const int64_t r = r0 + row, t = t0 + row;
            cp_async16(&as[buf][row][col], w16 + (r < m ? r : 0) * k + k0 + col, r < m);
            cp_async16(&bs[buf][row][col], x16 + (t < nt ? t : 0) * k + k0 + col, t < nt);
        }
    };
    float acc[4][4][4] = {};
    const int64_t stages = k / kBk;
    load(0, 0);
    cp_async_commit();
    for (int64_t s = 0; s < stages; ++s) {
        const int buf = int(s & 1);
        if (s + 1 < stages) load(buf ^ 1, (s + 1) * kBk);
        cp_async_commit();  // an empty group on the last stage keeps the count uniform
        cp_async_wait_all_but_one();
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < kBk; kk += 16) {
            uint32_t a[4][4], b[4][2];
            // ldmatrix.x4: lanes 8q..8q+7 address the rows of matrix q. A's matrices are
            // (rows 0-7, k 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15): a[0..3] of the mma.
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int row = wm * 64 + i * 16 + (lane & 7) + ((lane >> 3) & 1) * 8;
                ldmatrix_x4(a[i], &as[buf][row][kk + (lane >> 4) * 8]);
            }
            // B's (tokens 0-7, k 0-7), (0-7, 8-15), (8-15, 0-7), (8-15, 8-15): two n8 tiles.
#pragma unroll
            for (int j = 0; j < 2; ++j) {
                const int tok = wn * 32 + j * 16 + (lane & 7) + (lane >> 4) * 8;
                uint32_t r[4];
                ldmatrix_x4(r, &bs[buf][tok][kk + ((lane >> 3) & 1) * 8]);
                b[2 * j][0] = r[0];
                b[2 * j][1] = r[1];
                b[2 * j + 1][0] = r[2];
                b[2 * j + 1][1] = r[3];
            }
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) mma_16x8x16(acc[i][j], a[i], b[j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
            store_mma_tile(dst, acc[i][j], r0 + wm * 64 + i * 16, t0 + wn * 32 + j * 8, m, nt,
                           r_out);
}

unsigned grid_of(int64_t n, int64_t per) {
    return static_cast<unsigned>((n + per - 1) / per);
}

}  // namespace

bool gemm_f16_applies(const DevTensor& w, int64_t n_tokens) {
    bool block_format = false;
    const bool known =
        dispatch_weight(w.type, [&]<uint32_t T>() { block_format = !is_float_fmt<T>(); });
    return known && block_format && n_tokens > kGemmMinTokens && w.ne[0] % kBk == 0 &&
           w.ne[2] <= 1 && w.ne[3] <= 1;
}

size_t gemm_f16_scratch_bytes(const DevTensor& w, int64_t n_tokens) {
    const int64_t k = w.ne[0], m = w.ne[1];
    if (!gemm_f16_applies(w, n_tokens) || m == 0) return 0;
    return align256(size_t(n_tokens) * size_t(k) * 2) + size_t(chunk_rows(m, k)) * size_t(k) * 2;
}

cudaError_t launch_gemm_f16(cudaStream_t s, const DevTensor& dst, const DevTensor& w,
                            const DevTensor& x, void* scratch, size_t scratch_bytes) {
    const int64_t k = w.ne[0], m = w.ne[1], nt = x.ne[1];
    if (m == 0 || nt == 0) return cudaSuccess;
    if (!gemm_f16_applies(w, nt) || x.ne[0] != k) return cudaErrorInvalidValue;
    // The row chunk is what the scratch holds after the activations (at most chunk_rows).
    const size_t x_bytes = align256(size_t(nt) * size_t(k) * 2);
    const int64_t fit =
        scratch_bytes > x_bytes ? int64_t((scratch_bytes - x_bytes) / (2 * size_t(k))) : 0;
    const int64_t rows = std::min(chunk_rows(m, k), fit >= m ? m : fit / kBm * kBm);
    if (rows <= 0) return cudaErrorInvalidValue;
    auto* x16 = static_cast<__half*>(scratch);
    auto* w16 = reinterpret_cast<__half*>(static_cast<char*>(scratch) + x_bytes);
    k_acts_to_f16<<<grid_of(nt * (k / 2), 256), 256, 0, s>>>(x16, x);
    for (int64_t c0 = 0; c0 < m; c0 += rows) {
        const int64_t n = std::min(rows, m - c0);
        dispatch_weight(w.type, [&]<uint32_t T>() {
            if constexpr (!is_float_fmt<T>())
                k_weights_to_f16<T><<<grid_of(n * (k / 32), 256), 256, 0, s>>>(w16, w, c0, n);
        });
        const dim3 grid(grid_of(n, kBm), grid_of(nt, kBn));
        k_gemm_f16<<<grid, kThreads, 0, s>>>(dst, w16, x16, n, k, nt, c0);
    }
    return cudaGetLastError();
}

}  // namespace hearth::backend::cuda
