// The int8 dot products of the dp4a decode kernels (cuda_matvec_q8.cu), one unit of a weight
// row against 8-bit activations: __host__ __device__, so tests/backends/cuda checks them on the
// host against the reference decoders on machines without a GPU.
#pragma once

#include "cuda_common.cuh"

namespace hearth::backend::cuda {

// Sum of the four int8 products of a and b, plus c.
HD int dp4a(int a, int b, int c) {
#ifdef __CUDA_ARCH__
    return __dp4a(a, b, c);
#else
    for (int i = 0; i < 4; ++i) c += int(int8_t(a >> (8 * i))) * int(int8_t(b >> (8 * i)));
    return c;
#endif
}
// Each byte (0..63 here) minus 32, as signed bytes.
HD uint32_t minus32_bytes(uint32_t v) {
#ifdef __CUDA_ARCH__
    return __vsubss4(v, 0x20202020u);
#else
    uint32_t r = 0;
    for (int i = 0; i < 4; ++i) r |= uint32_t(uint8_t(int(uint8_t(v >> (8 * i))) - 32)) << (8 * i);
    return r;
#endif
}

// Four bytes at a 2-byte aligned address (block formats put their quants at odd 2-byte offsets).
HD int ld_i32_a2(const uint8_t* p) {
    const auto* h = reinterpret_cast<const uint16_t*>(p);
    return int(uint32_t(h[0]) | (uint32_t(h[1]) << 16));
}
HD int ld_i32(const int8_t* p) {
    return *reinterpret_cast<const int*>(p);
}

// The dot product of one unit of a weight row with token t's quantized activations: a unit is
// one 32-block (Q4_0, Q8_0, Q6_K) or the 64 elements sharing one 32-byte run of Q4_K nibbles.
template <uint32_t T>
struct Q8Dot;

template <>
struct Q8Dot<kQ4_0> {
    static constexpr int kUnit = 32;
    HD static float dot(const uint8_t* row, int64_t u, const int8_t* a, const float2* ds) {
        const uint8_t* b = row + u * 18;
        const int8_t* au = a + u * 32;
        int s = 0;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int v = ld_i32_a2(b + 2 + 4 * i);
            s = dp4a(v & 0x0F0F0F0F, ld_i32(au + 4 * i), s);
            s = dp4a((v >> 4) & 0x0F0F0F0F, ld_i32(au + 16 + 4 * i), s);
        }
        const float2 d2 = ds[u];
        return ld_f16(b) * (d2.x * float(s) - 8.f * d2.y);
    }
};

template <>
struct Q8Dot<kQ8_0> {
    static constexpr int kUnit = 32;
    HD static float dot(const uint8_t* row, int64_t u, const int8_t* a, const float2* ds) {
        const uint8_t* b = row + u * 34;
        const int8_t* au = a + u * 32;
        int s = 0;
#pragma unroll
        for (int i = 0; i < 8; ++i) s = dp4a(ld_i32_a2(b + 2 + 4 * i), ld_i32(au + 4 * i), s);
        return ld_f16(b) * ds[u].x * float(s);
    }
};

template <>
struct Q8Dot<kQ4_K> {
    static constexpr int kUnit = 64;
    HD static float dot(const uint8_t* row, int64_t u, const int8_t* a, const float2* ds) {
        const int64_t sb = u / 4;
        const int c = int(u % 4);
        const uint8_t* b = row + sb * 144;
        int sc0, m0, sc1, m1;
        scale_min_k4(2 * c, b + 4, sc0, m0);
        scale_min_k4(2 * c + 1, b + 4, sc1, m1);
        const uint8_t* qs = b + 16 + 32 * c;
        const int64_t j0 = sb * 8 + 2 * c;  // the activation blocks of the two sub-blocks
        const int8_t* a0 = a + j0 * 32;
        const int8_t* a1 = a0 + 32;
        int s0 = 0, s1 = 0;
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            const int v = ld_i32_a2(qs + 4 * i);
            s0 = dp4a(v & 0x0F0F0F0F, ld_i32(a0 + 4 * i), s0);
            s1 = dp4a((v >> 4) & 0x0F0F0F0F, ld_i32(a1 + 4 * i), s1);
        }
        const float2 d0 = ds[j0], d1 = ds[j0 + 1];
        return ld_f16(b) * (float(sc0) * d0.x * float(s0) + float(sc1) * d1.x * float(s1)) -
               ld_f16(b + 2) * (float(m0) * d0.y + float(m1) * d1.y);
    }
};

template <>
struct Q8Dot<kQ6_K> {
    static constexpr int kUnit = 32;
    HD static float dot(const uint8_t* row, int64_t u, const int8_t* a, const float2* ds) {
        const int64_t sb = u / 8;
        const int j = int(u % 8), h = j / 4, k = j % 4;
        const uint8_t* b = row + sb * 210;
        const uint8_t* ql = b + 64 * h + (k & 1) * 32;
        const uint8_t* qh = b + 128 + 32 * h;
        const int shift = k >= 2 ? 4 : 0;
        const int8_t* au = a + u * 32;
        int s0 = 0, s1 = 0;
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            const uint32_t vl = uint32_t(ld_i32_a2(ql + 4 * i));
            const uint32_t vh = uint32_t(ld_i32_a2(qh + 4 * i));
            const uint32_t q6 =
                ((vl >> shift) & 0x0F0F0F0Fu) | (((vh >> (2 * k)) & 0x03030303u) << 4);
            const int q = int(minus32_bytes(q6));
            if (i < 4)
                s0 = dp4a(q, ld_i32(au + 4 * i), s0);
            else
                s1 = dp4a(q, ld_i32(au + 4 * i), s1);
        }
        const auto* sc = reinterpret_cast<const int8_t*>(b + 192);
        return ld_f16(b + 208) * ds[u].x *
               (float(sc[8 * h + 2 * k]) * float(s0) + float(sc[8 * h + 2 * k + 1]) * float(s1));
    }
};

}  // namespace hearth::backend::cuda
