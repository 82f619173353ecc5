// GetRows and the matrix products for every weight format: a warp-per-row matrix-vector kernel
// for decode (up to kMaxVecT tokens share each decoded weight) and, for prefill, a tensor-core
// kernel for the block formats and a 64x64 shared-memory tiled float kernel for F32/F16/BF16.
// Weights are decoded with deq32 / deq_float (cuda_common.cuh).
#include "cuda_common.cuh"
#include "cuda_mma.cuh"
#include "cuda_pdl.cuh"

namespace hearth::backend::cuda {

namespace {

constexpr int kMaxVecT = 8;  // tokens per matrix-vector launch; more go to the tiled kernel
constexpr int kTile = 64;    // rows and tokens per tiled block
constexpr int kTileK = 64;   // elements of k per shared-memory stage

template <uint32_t T>
__global__ void k_get_rows(DevTensor dst, DevTensor table, DevTensor ids, DevError* err, int node) {
    pdl_release();
    pdl_wait();
    const int64_t t = blockIdx.x;
    const int32_t id = i32_at(ids, t);
    if (id < 0 || id >= table.ne[1]) {
        if (threadIdx.x == 0) report(err, node, kErrTokenId, id);
        return;
    }
    const auto* row = reinterpret_cast<const uint8_t*>(at(table, id));
    float* out = f32_at(dst, t);
    const int64_t n = table.ne[0];
    if constexpr (is_float_fmt<T>()) {
        for (int64_t i = threadIdx.x; i < n; i += blockDim.x) out[i] = deq_float<T>(row, i);
    } else {
        for (int64_t g = threadIdx.x; g < n / 32; g += blockDim.x) {
            float y[32];
            deq32<T>(row, g, y);
#pragma unroll
            for (int i = 0; i < 32; ++i) out[g * 32 + i] = y[i];
        }
    }
}

// acc[t] += row . x[:, t] over this lane's share of the row (lanes interleaved by element for
// float formats, by 32-element group for block formats).
template <uint32_t T>
__device__ __forceinline__ void row_dot(const uint8_t* row, int64_t k, const DevTensor& x,
                                        int64_t x_col0, int64_t x_col_stride, int nt,
                                        float (&acc)[kMaxVecT]) {
    const int lane = threadIdx.x & 31;
    if constexpr (T == kF16 || T == kBF16) {
        // 16-byte loads of 8 weights per lane where the row and the activations allow them
        // (the weights' bytes are what a decode step waits for: 2-byte loads left most of the
        // bandwidth unused).
        bool vec = k % 8 == 0 && reinterpret_cast<uintptr_t>(row) % 16 == 0;
        for (int t = 0; t < nt; ++t)
            vec =
                vec && reinterpret_cast<uintptr_t>(f32_at(x, x_col0 + t * x_col_stride)) % 16 == 0;
        if (vec) {
#pragma unroll 2
            for (int64_t i0 = int64_t(lane) * 8; i0 < k; i0 += 256) {
                const uint4 raw = *reinterpret_cast<const uint4*>(row + i0 * 2);
                const uint32_t words[4] = {raw.x, raw.y, raw.z, raw.w};
                float wv[8];
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    if constexpr (T == kF16) {
                        const float2 f =
                            __half22float2(*reinterpret_cast<const __half2*>(&words[e]));
                        wv[2 * e] = f.x;
                        wv[2 * e + 1] = f.y;
                    } else {
                        wv[2 * e] = bits_to_float(words[e] << 16);
                        wv[2 * e + 1] = bits_to_float(words[e] & 0xFFFF0000u);
                    }
                }
#pragma unroll
                for (int t = 0; t < kMaxVecT; ++t) {
                    if (t >= nt) break;
                    const auto* x4 =
                        reinterpret_cast<const float4*>(f32_at(x, x_col0 + t * x_col_stride) + i0);
                    const float4 a = x4[0], b = x4[1];
                    acc[t] += wv[0] * a.x + wv[1] * a.y + wv[2] * a.z + wv[3] * a.w + wv[4] * b.x +
                              wv[5] * b.y + wv[6] * b.z + wv[7] * b.w;
                }
            }
            return;
        }
    }
    if constexpr (is_float_fmt<T>()) {
        for (int64_t i = lane; i < k; i += 32) {
            const float wv = deq_float<T>(row, i);
#pragma unroll
            for (int t = 0; t < kMaxVecT; ++t)
                if (t < nt) acc[t] += wv * f32_at(x, x_col0 + t * x_col_stride)[i];
        }
    } else {
        for (int64_t g = lane; g < k / 32; g += 32) {
            float y[32];
            deq32<T>(row, g, y);
#pragma unroll
            for (int t = 0; t < kMaxVecT; ++t) {
                if (t >= nt) break;
                const float* xr = f32_at(x, x_col0 + t * x_col_stride) + g * 32;
                float s = 0.f;
#pragma unroll
                for (int i = 0; i < 32; ++i) s += y[i] * xr[i];
                acc[t] += s;
            }
        }
    }
}

// One warp per output row, 8 rows per block; nt <= kMaxVecT tokens.
template <uint32_t T>
__global__ void __launch_bounds__(256)
    k_mat_vec(DevTensor dst, DevTensor w, DevTensor x, int64_t t0, int nt) {
    pdl_release();
    pdl_wait();
    const int64_t r = int64_t(blockIdx.x) * 8 + threadIdx.x / 32;
    if (r >= w.ne[1]) return;
    float acc[kMaxVecT] = {};
    row_dot<T>(reinterpret_cast<const uint8_t*>(at(w, r)), w.ne[0], x, t0, 1, nt, acc);
#pragma unroll
    for (int t = 0; t < kMaxVecT; ++t) {
        if (t >= nt) break;
        const float v = warp_sum(acc[t]);
        if ((threadIdx.x & 31) == 0) f32_at(dst, t0 + t)[r] = v;
    }
}

// 64 rows x 64 tokens per block of 256 threads, each thread 4 x 4 outputs; k in stages of 64
// (two 32-element groups per row, decoded by 128 threads).
template <uint32_t T>
__global__ void __launch_bounds__(256) k_mat_mat(DevTensor dst, DevTensor w, DevTensor x) {
    __shared__ float ws[kTileK][kTile + 1];
    __shared__ float xs[kTileK][kTile + 1];
    const int tid = threadIdx.x;
    const int64_t r0 = int64_t(blockIdx.x) * kTile, t0 = int64_t(blockIdx.y) * kTile;
    const int64_t m = w.ne[1], k = w.ne[0], nt = x.ne[1];
    const int tr = tid / 16, tc = tid % 16;
    float acc[4][4] = {};
    for (int64_t k0 = 0; k0 < k; k0 += kTileK) {
        if constexpr (is_float_fmt<T>()) {
            for (int e = tid; e < kTileK * kTile; e += 256) {
                const int rr = e / kTileK, kk = e % kTileK;
                const int64_t r = r0 + rr, kc = k0 + kk;
                ws[kk][rr] = (r < m && kc < k)
                                 ? deq_float<T>(reinterpret_cast<const uint8_t*>(at(w, r)), kc)
                                 : 0.f;
            }
        } else if (tid < 2 * kTile) {
            const int rr = tid % kTile, half = tid / kTile;
            const int64_t r = r0 + rr, g = k0 / 32 + half;
            float y[32];
            if (r < m && g * 32 < k) {
                deq32<T>(reinterpret_cast<const uint8_t*>(at(w, r)), g, y);
            } else {
#pragma unroll
                for (int i = 0; i < 32; ++i) y[i] = 0.f;
            }
#pragma unroll
            for (int i = 0; i < 32; ++i) ws[half * 32 + i][rr] = y[i];
        }
        for (int e = tid; e < kTileK * kTile; e += 256) {
            const int tt = e / kTileK, kk = e % kTileK;
            const int64_t t = t0 + tt, kc = k0 + kk;
            xs[kk][tt] = (t < nt && kc < k) ? f32_at(x, t)[kc] : 0.f;
        }
        __syncthreads();
#pragma unroll 8
        for (int kk = 0; kk < kTileK; ++kk) {
            float a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                a[i] = ws[kk][tr * 4 + i];
                b[i] = xs[kk][tc * 4 + i];
            }
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        const int64_t t = t0 + tc * 4 + j;
        if (t >= nt) continue;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int64_t r = r0 + tr * 4 + i;
            if (r < m) f32_at(dst, t)[r] = acc[i][j];
        }
    }
}

// Tensor-core prefill for the block formats: weights decoded (deq32) and activations rounded
// to half precision in shared memory, multiplied by mma.sync with float accumulators. 128 rows
// x 64 tokens per block of 8 warps, each warp 32 x 32 (2 x 4 tiles of 16 x 8); k in stages of
// 64 (two groups per row). Half-precision activations are what this trades for speed: their
// error is far below the 8-bit activations the CPU's integer kernels use, and the float kernel
// (k_mat_mat) stays for F32/F16/BF16 weights, whose products the parity suite holds exact.
constexpr int kMmaRows = 128, kMmaToks = 64, kMmaK = 64;
constexpr int kMmaStride =
    kMmaK + 8;  // halves a shared row: 36 words, fragment loads conflict-free

__device__ __forceinline__ uint32_t ld_half2(const __half* p) {
    return *reinterpret_cast<const uint32_t*>(p);
}

template <uint32_t T>
__global__ void __launch_bounds__(256, 2) k_mat_mat_mma(DevTensor dst, DevTensor w, DevTensor x) {
    __shared__ __align__(16) __half ws[kMmaRows][kMmaStride];
    __shared__ __align__(16) __half xs[kMmaToks][kMmaStride];
    const int tid = int(threadIdx.x), lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, tig = lane & 3;  // the fragment's row group and column pair
    const int wm = warp & 3, wn = warp >> 2;  // this warp's 32 rows and 32 tokens
    const int64_t r0 = int64_t(blockIdx.x) * kMmaRows, t0 = int64_t(blockIdx.y) * kMmaToks;
    const int64_t m = w.ne[1], k = w.ne[0], nt = x.ne[1];
    float acc[2][4][4] = {};
    for (int64_t k0 = 0; k0 < k; k0 += kMmaK) {
        {  // weights: thread -> row tid % 128, group tid / 128 of the stage's two
            const int rr = tid % kMmaRows, half = tid / kMmaRows;
            const int64_t r = r0 + rr, gi = k0 / 32 + half;
            float y[32];
            if (r < m && gi * 32 < k) {
                deq32<T>(reinterpret_cast<const uint8_t*>(at(w, r)), gi, y);
            } else {
#pragma unroll
                for (int i = 0; i < 32; ++i) y[i] = 0.f;
            }
            auto* d2 = reinterpret_cast<__half2*>(&ws[rr][half * 32]);
#pragma unroll
            for (int i = 0; i < 16; ++i) d2[i] = __floats2half2_rn(y[2 * i], y[2 * i + 1]);
        }
        {  // activations: thread -> token tid / 4, elements (tid % 4) * 16 .. + 15
            const int tt = tid / 4, kk = (tid % 4) * 16;
            const int64_t t = t0 + tt;
            auto* d2 = reinterpret_cast<__half2*>(&xs[tt][kk]);
            if (t < nt && k0 + kk + 16 <= k) {  // k is a multiple of 32: whole runs of 16
                const float* xr = f32_at(x, t) + k0 + kk;
#pragma unroll
                for (int i = 0; i < 8; ++i) d2[i] = __floats2half2_rn(xr[2 * i], xr[2 * i + 1]);
            } else {
#pragma unroll
                for (int i = 0; i < 8; ++i) d2[i] = __floats2half2_rn(0.f, 0.f);
            }
        }
        __syncthreads();
#pragma unroll
        for (int kb = 0; kb < kMmaK; kb += 16) {
            uint32_t a[2][4], b[4][2];
#pragma unroll
            for (int i = 0; i < 2; ++i) {
                const int rb = wm * 32 + i * 16;
                a[i][0] = ld_half2(&ws[rb + g][kb + 2 * tig]);
                a[i][1] = ld_half2(&ws[rb + g + 8][kb + 2 * tig]);
                a[i][2] = ld_half2(&ws[rb + g][kb + 2 * tig + 8]);
                a[i][3] = ld_half2(&ws[rb + g + 8][kb + 2 * tig + 8]);
            }
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const int nb = wn * 32 + j * 8;
                b[j][0] = ld_half2(&xs[nb + g][kb + 2 * tig]);
                b[j][1] = ld_half2(&xs[nb + g][kb + 2 * tig + 8]);
            }
#pragma unroll
            for (int i = 0; i < 2; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) mma_16x8x16(acc[i][j], a[i], b[j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
            store_mma_tile(dst, acc[i][j], r0 + wm * 32 + i * 16, t0 + wn * 32 + j * 8, m, nt, 0);
}

// One warp per output row of one (expert slot j, token t) pair: blockIdx.y = t * kk + j.
template <uint32_t T>
__global__ void __launch_bounds__(256)
    k_moe_mat_vec(DevTensor dst, DevTensor w, DevTensor x, DevTensor ids, DevError* err, int node) {
    const int64_t kk = ids.ne[0];
    const int64_t j = blockIdx.y % kk, t = blockIdx.y / kk;
    const int32_t id = reinterpret_cast<const int32_t*>(at(ids, t))[j];
    if (id < 0 || id >= w.ne[2]) {
        if (threadIdx.x == 0 && blockIdx.x == 0) report(err, node, kErrExpertId, id);
        return;
    }
    const int64_t r = int64_t(blockIdx.x) * 8 + threadIdx.x / 32;
    if (r >= w.ne[1]) return;
    // x's column (j or 0, t) as a one-token view.
    DevTensor xv = x;
    xv.p = at(x, x.ne[1] == 1 ? 0 : j, t);
    float acc[kMaxVecT] = {};
    row_dot<T>(reinterpret_cast<const uint8_t*>(at(w, r, id)), w.ne[0], xv, 0, 1, 1, acc);
    const float v = warp_sum(acc[0]);
    if ((threadIdx.x & 31) == 0) f32_at(dst, j, t)[r] = v;
}

unsigned blocks(int64_t n, int64_t per) {
    return static_cast<unsigned>((n + per - 1) / per);
}

}  // namespace

bool weight_type_supported(uint32_t type) {
    int unused = 0;
    return dispatch_weight(type, [&]<uint32_t T>() { unused += int(T); });
}

cudaError_t launch_get_rows(cudaStream_t s, const DevTensor& dst, const DevTensor& table,
                            const DevTensor& ids, DevError* err, int node) {
    if (dst.ne[1] == 0) return cudaSuccess;
    dispatch_weight(table.type, [&]<uint32_t T>() {
        launch_pdl(k_get_rows<T>, dim3(unsigned(dst.ne[1])), dim3(256), s, dst, table, ids, err,
                   node);
    });
    return cudaGetLastError();
}

cudaError_t launch_mat_mul(cudaStream_t s, const DevTensor& dst, const DevTensor& w,
                           const DevTensor& x, bool tensor_cores) {
    const int64_t m = w.ne[1], nt = x.ne[1];
    if (m == 0 || nt == 0) return cudaSuccess;
    dispatch_weight(w.type, [&]<uint32_t T>() {
        if (nt <= 2 * kMaxVecT) {  // decode and short batches: read each weight once per 8
            for (int64_t t0 = 0; t0 < nt; t0 += kMaxVecT) {
                const int n = int(nt - t0 < kMaxVecT ? nt - t0 : kMaxVecT);
                launch_pdl(k_mat_vec<T>, blocks(m, 8), dim3(256), s, dst, w, x, t0, n);
            }
        } else if (tensor_cores && !is_float_fmt<T>()) {
            const dim3 grid(blocks(m, kMmaRows), blocks(nt, kMmaToks));
            k_mat_mat_mma<T><<<grid, 256, 0, s>>>(dst, w, x);
        } else {
            const dim3 grid(blocks(m, kTile), blocks(nt, kTile));
            k_mat_mat<T><<<grid, 256, 0, s>>>(dst, w, x);
        }
    });
    return cudaGetLastError();
}

cudaError_t launch_moe_mat_mul(cudaStream_t s, const DevTensor& dst, const DevTensor& w,
                               const DevTensor& x, const DevTensor& ids, DevError* err, int node) {
    const int64_t pairs = ids.ne[0] * ids.ne[1];
    if (pairs == 0 || w.ne[1] == 0) return cudaSuccess;
    dispatch_weight(w.type, [&]<uint32_t T>() {
        const dim3 grid(blocks(w.ne[1], 8), unsigned(pairs));
        k_moe_mat_vec<T><<<grid, 256, 0, s>>>(dst, w, x, ids, err, node);
    });
    return cudaGetLastError();
}

}  // namespace hearth::backend::cuda
