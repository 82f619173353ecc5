// The KV cache formats on the device: one element decoded (attention reads cells in place) and
// one 32-element block quantized on append, exactly as engine/quant's reference does (Q8_0:
// round half away from zero; Q4_0: the largest magnitude maps to code 0). __host__ __device__,
// so tests/backends/cuda checks them on the host, bit for bit. And where a token's cell is.
#pragma once

#include <cmath>

#include "cuda_common.cuh"
#include "cuda_kernels.h"

namespace hearth::backend::cuda {

HD float div_rn(float a, float b) {
#ifdef __CUDA_ARCH__
    return __fdiv_rn(a, b);
#else
    return a / b;
#endif
}

// The scale of a block, at b (2-byte aligned: blocks of 34 / 18 bytes in rows of whole
// blocks). On the device one 16-bit store: built with CUDA 13.0 for sm_90, the two byte stores
// of the half's bits wrote 0 for the low byte on an H200 (tests/backends/cuda's device test),
// while F16 caches, written by 16-bit stores, were exact.
HD void store_f16(uint8_t* b, float v) {
#ifdef __CUDA_ARCH__
    *reinterpret_cast<__half*>(b) = __float2half_rn(v);
#else
    const unsigned short h = __half_as_ushort(__float2half_rn(v));
    b[0] = uint8_t(h & 0xFF);
    b[1] = uint8_t(h >> 8);
#endif
}

// The code (no scale) of element j of a Q8_0 / Q4_0 block b.
template <uint32_t T>
HD int kv_code(const uint8_t* b, int j) {
    if constexpr (T == kQ8_0) return int(int8_t(b[2 + j]));
    return (j < 16 ? (b[2 + j] & 0x0F) : (b[2 + j - 16] >> 4)) - 8;
}

// Element i of a cache row, decoded exactly as the reference decoders do.
template <uint32_t T>
HD float kv_elem(const uint8_t* row, int64_t i) {
    if constexpr (T == kF32) {
        return reinterpret_cast<const float*>(row)[i];
    } else if constexpr (T == kF16) {
        return __half2float(reinterpret_cast<const __half*>(row)[i]);
    } else {  // Q8_0, Q4_0
        const uint8_t* b = row + (i / 32) * Fmt<T>::bytes;
        return mul_rn(float(kv_code<T>(b, int(i % 32))), ld_f16(b));
    }
}

// Element i of an F32 / F16 cache row set to v (F16: rounded to nearest even, as the reference).
template <uint32_t T>
HD void store_kv_elem(uint8_t* row, int64_t i, float v) {
    static_assert(T == kF32 || T == kF16);
    if constexpr (T == kF32)
        reinterpret_cast<float*>(row)[i] = v;
    else
        reinterpret_cast<__half*>(row)[i] = __float2half_rn(v);
}

// Quantizes v[0..31] into the block at b (Q8_0: 34 bytes, Q4_0: 18 bytes).
template <uint32_t T>
HD void quantize_kv_block(const float* v, uint8_t* b) {
    if constexpr (T == kQ8_0) {
        float amax = 0.f;
        for (int j = 0; j < 32; ++j) amax = fmaxf(amax, fabsf(v[j]));
        const float d = div_rn(amax, 127.f);
        const float id = d != 0.f ? div_rn(1.f, d) : 0.f;
        store_f16(b, d);
        for (int j = 0; j < 32; ++j) {
            float q = roundf(mul_rn(v[j], id));  // ties away from zero
            if (!(q == q)) q = 0.f;
            q = fminf(fmaxf(q, -127.f), 127.f);
            b[2 + j] = uint8_t(int8_t(q));
        }
    } else {  // Q4_0: the largest magnitude (first on ties) maps to code 0
        float amax = 0.f, mx = 0.f;
        for (int j = 0; j < 32; ++j) {
            if (amax < fabsf(v[j])) {
                amax = fabsf(v[j]);
                mx = v[j];
            }
        }
        const float d = div_rn(mx, -8.f);
        const float id = d != 0.f ? div_rn(1.f, d) : 0.f;
        store_f16(b, d);
        auto code = [](float c) {
            if (!(c >= 0.f)) return 0;
            if (c >= 15.f) return 15;
            return int(c);
        };
        for (int j = 0; j < 16; ++j) {
            const int lo = code(add_rn(mul_rn(v[j], id), 8.5f));
            const int hi = code(add_rn(mul_rn(v[j + 16], id), 8.5f));
            b[2 + j] = uint8_t(lo | (hi << 4));
        }
    }
}

// The sequence of token t in a batch.
__device__ __forceinline__ int64_t kv_seq(const KvArgs& kv, int64_t t) {
    return kv.seq_ids.p ? i32_at(kv.seq_ids, t) : 0;
}

// The cache cell of (sequence s, position p), or -1 when any index is outside the table or
// the cache.
__device__ __forceinline__ int64_t kv_cell(const KvArgs& kv, int64_t s, int64_t p,
                                           int64_t n_cells) {
    if (s < 0 || s >= kv.block_table.ne[1] || p < 0) return -1;
    const int64_t blk = p / kv.block_size;
    if (blk >= kv.block_table.ne[0]) return -1;
    const int64_t b = reinterpret_cast<const int32_t*>(at(kv.block_table, s))[blk];
    const int64_t cell = b * kv.block_size + p % kv.block_size;
    return b < 0 || cell >= n_cells ? -1 : cell;
}

// The cache row token t writes (its sequence's cell for its position), or nullptr when the
// block table has no cell for it.
__device__ __forceinline__ uint8_t* kv_row(const DevTensor& cache, const KvArgs& kv, int64_t t) {
    const int64_t cell = kv_cell(kv, kv_seq(kv, t), i32_at(kv.positions, t), cache.ne[1]);
    return cell < 0 ? nullptr : reinterpret_cast<uint8_t*>(at(cache, cell));
}

}  // namespace hearth::backend::cuda
