// The int8 dot products of the dp4a decode kernels (cuda_matvec_q8.cu), one unit of a weight
// row against 8-bit activations: __host__ __device__, so tests/backends/cuda checks them on the
// host against the reference decoders on machines without a GPU.
#pragma once

#include "cuda_common.cuh"

namespace hearth::backend::cuda {

// Where the dp4a decode kernels find nt tokens' k activations quantized to 8 bits in their
// scratch: the quants, then (16-byte aligned) one (d, d * sum(q)) pair per 32 elements.
struct Q8Act {
    int8_t* q;
    float2* ds;
};
inline Q8Act q8_act(void* scratch, int64_t k, int64_t nt) {
    const size_t q_bytes = (size_t(nt) * size_t(k) + 255) / 256 * 256;
    return {static_cast<int8_t*>(scratch),
            reinterpret_cast<float2*>(static_cast<char*>(scratch) + q_bytes)};
}

// One 32-element group quantized by a whole warp (lane i holds element i): q = rint(v / d),
// d = max|v| / 127, and the group's (d, d * sum(q)).
__device__ __forceinline__ void quantize_group_q8(float v, int8_t* q, float2* ds) {
    const int lane = int(threadIdx.x) & 31;
    const float d = warp_max(fabsf(v)) / 127.f;
    const int qi = d > 0.f ? __float2int_rn(v / d) : 0;
    const float sum = warp_sum(float(qi));  // exact: |sum| <= 32 * 127
    q[lane] = int8_t(qi);
    if (lane == 0) *ds = make_float2(d, d * sum);
}

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

// ---------------------------------------------------------------------------------------------
// The coalesced decode layout (k_mat_vec_q8_lanes): kLanes consecutive lanes share one block (or
// super-block) of a row, each taking a fixed run of its quants, so a warp's loads cover one
// contiguous stretch of the row (32 lanes x 8 or 16 bytes) instead of each lane walking its own
// block with 2-byte loads: the per-lane layout left most of an H200's bandwidth unused.

// Eight bytes at a 2-byte aligned address, as two words: the aligned words around them,
// funnel-shifted. Reads at most the aligned word holding the last byte, so a tensor whose size
// is a multiple of 4 is never read past its end.
HD void ld8_a2(const uint8_t* p, uint32_t (&v)[2]) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    const auto* w = reinterpret_cast<const uint32_t*>(a & ~uintptr_t(3));
    const int sh = int(a & 3) * 8;
    const uint32_t w0 = w[0], w1 = w[1];
    if (sh == 0) {
        v[0] = w0;
        v[1] = w1;
        return;
    }
    const uint32_t w2 = w[2];
#ifdef __CUDA_ARCH__
    v[0] = __funnelshift_r(w0, w1, sh);
    v[1] = __funnelshift_r(w1, w2, sh);
#else
    v[0] = (w0 >> sh) | (w1 << (32 - sh));
    v[1] = (w1 >> sh) | (w2 << (32 - sh));
#endif
}
// Sixteen bytes at a 16-byte aligned address.
HD void ld16_a16(const uint8_t* p, uint32_t (&v)[4]) {
#ifdef __CUDA_ARCH__
    const uint4 r = *reinterpret_cast<const uint4*>(p);
    v[0] = r.x;
    v[1] = r.y;
    v[2] = r.z;
    v[3] = r.w;
#else
    std::memcpy(v, p, 16);
#endif
}
// N int8 activations (N = 8 or 16) at an N-byte aligned address, as words.
template <int N>
HD void ld_act(const int8_t* p, int (&v)[N / 4]) {
#ifdef __CUDA_ARCH__
    if constexpr (N == 16) {
        const int4 r = *reinterpret_cast<const int4*>(p);
        v[0] = r.x;
        v[1] = r.y;
        v[2] = r.z;
        v[3] = r.w;
    } else {
        const int2 r = *reinterpret_cast<const int2*>(p);
        v[0] = r.x;
        v[1] = r.y;
    }
#else
    std::memcpy(v, p, N);
#endif
}
HD float ld_f16_a2(const uint8_t* p) {
#ifdef __CUDA_ARCH__
    return __half2float(__ushort_as_half(*reinterpret_cast<const unsigned short*>(p)));
#else
    return ld_f16(p);
#endif
}

// One lane's share of a block: load() reads the weights once (they serve every token of the
// launch), dot() multiplies them with one token's activations `a` and scales `ds`, both pointing
// at the block's first element. Lane j of the block's kLanes.
template <uint32_t T>
struct Q8Lane;

// The 32-element formats with a 2-byte scale before their quants (Q4_0, Q8_0), L lanes a
// block: lane j holds its 8 quant bytes (the j-th run of 8) and the scale.
template <uint32_t T, int L>
struct Q8LaneBlock32 {
    static constexpr int kLanes = L, kElems = Fmt<T>::block, kBytes = Fmt<T>::bytes;
    struct W {
        uint32_t q[2];
        float d;
    };
    HD static W load(const uint8_t* b, int j) {
        W w;
        ld8_a2(b + 2 + 8 * j, w.q);
        w.d = ld_f16_a2(b);
        return w;
    }
};

// 18-byte blocks, 2 lanes: lane j takes quant bytes 8j..8j+7, that is elements 8j..8j+7 (low
// nibbles) and 16+8j..16+8j+7 (high nibbles). The block's -8 offset is counted by lane 0.
template <>
struct Q8Lane<kQ4_0> : Q8LaneBlock32<kQ4_0, 2> {
    HD static float dot(const W& w, int j, const int8_t* a, const float2* ds) {
        int lo[2], hi[2];
        ld_act<8>(a + 8 * j, lo);
        ld_act<8>(a + 16 + 8 * j, hi);
        int s = 0;
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            s = dp4a(int(w.q[i] & 0x0F0F0F0Fu), lo[i], s);
            s = dp4a(int((w.q[i] >> 4) & 0x0F0F0F0Fu), hi[i], s);
        }
        const float2 d2 = ds[0];
        return w.d * (d2.x * float(s) - (j == 0 ? 8.f * d2.y : 0.f));
    }
};

// 34-byte blocks, 4 lanes of 8 quants each.
template <>
struct Q8Lane<kQ8_0> : Q8LaneBlock32<kQ8_0, 4> {
    HD static float dot(const W& w, int j, const int8_t* a, const float2* ds) {
        int x[2];
        ld_act<8>(a + 8 * j, x);
        const int s = dp4a(int(w.q[1]), x[1], dp4a(int(w.q[0]), x[0], 0));
        return w.d * ds[0].x * float(s);
    }
};

// 144-byte super-blocks, 8 lanes: lane j = 2c + h takes 16 of the 32 bytes of nibble run c,
// that is elements 64c + 16h .. +15 (low nibbles, sub-block 2c) and 64c + 32 + 16h .. +15 (high,
// sub-block 2c + 1). The mins are counted by the h = 0 lanes.
template <>
struct Q8Lane<kQ4_K> {
    static constexpr int kLanes = 8, kElems = Fmt<kQ4_K>::block, kBytes = Fmt<kQ4_K>::bytes;
    struct W {
        uint32_t q[4];
        float d0, d1, m0, m1;  // d * scale and dmin * min of the two sub-blocks
    };
    HD static W load(const uint8_t* b, int j) {
        const int c = j >> 1, h = j & 1;
        W w;
        ld16_a16(b + 16 + 32 * c + 16 * h, w.q);
        int sc0, mn0, sc1, mn1;
        scale_min_k4(2 * c, b + 4, sc0, mn0);
        scale_min_k4(2 * c + 1, b + 4, sc1, mn1);
        const float d = ld_f16_a2(b), dmin = ld_f16_a2(b + 2);
        w.d0 = d * float(sc0);
        w.d1 = d * float(sc1);
        w.m0 = dmin * float(mn0);
        w.m1 = dmin * float(mn1);
        return w;
    }
    HD static float dot(const W& w, int j, const int8_t* a, const float2* ds) {
        const int c = j >> 1, h = j & 1;
        int lo[4], hi[4];
        ld_act<16>(a + 64 * c + 16 * h, lo);
        ld_act<16>(a + 64 * c + 32 + 16 * h, hi);
        int s0 = 0, s1 = 0;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            s0 = dp4a(int(w.q[i] & 0x0F0F0F0Fu), lo[i], s0);
            s1 = dp4a(int((w.q[i] >> 4) & 0x0F0F0F0Fu), hi[i], s1);
        }
        const float2 a0 = ds[2 * c], a1 = ds[2 * c + 1];
        float r = w.d0 * a0.x * float(s0) + w.d1 * a1.x * float(s1);
        if (h == 0) r -= w.m0 * a0.y + w.m1 * a1.y;
        return r;
    }
};

// 210-byte super-blocks, 8 lanes: lane j = 4h + l takes positions 8l .. 8l+7 of half h in all
// four quarters (ql bytes from both 32-byte runs, the matching qh bytes), 32 elements.
template <>
struct Q8Lane<kQ6_K> {
    static constexpr int kLanes = 8, kElems = Fmt<kQ6_K>::block, kBytes = Fmt<kQ6_K>::bytes;
    struct W {
        uint32_t lo[2], hi[2], qh[2];
        float sc[4];  // d * the scale of each quarter's 16 elements this lane holds
    };
    HD static W load(const uint8_t* b, int j) {
        const int h = j >> 2, l0 = (j & 3) * 8;
        W w;
        ld8_a2(b + 64 * h + l0, w.lo);
        ld8_a2(b + 64 * h + 32 + l0, w.hi);
        ld8_a2(b + 128 + 32 * h + l0, w.qh);
        const auto* sc = reinterpret_cast<const int8_t*>(b + 192 + 8 * h + (l0 >> 4));
        const float d = ld_f16_a2(b + 208);
#pragma unroll
        for (int k = 0; k < 4; ++k) w.sc[k] = d * float(sc[2 * k]);
        return w;
    }
    HD static float dot(const W& w, int j, const int8_t* a, const float2* ds) {
        const int h = j >> 2, l0 = (j & 3) * 8;
        float r = 0.f;
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            int x[2];
            ld_act<8>(a + 128 * h + 32 * k + l0, x);
            int s = 0;
#pragma unroll
            for (int i = 0; i < 2; ++i) {
                const uint32_t src = (k & 1) ? w.hi[i] : w.lo[i];
                const uint32_t q6 = ((src >> (k >= 2 ? 4 : 0)) & 0x0F0F0F0Fu) |
                                    (((w.qh[i] >> (2 * k)) & 0x03030303u) << 4);
                s = dp4a(int(minus32_bytes(q6)), x[i], s);
            }
            r += w.sc[k] * ds[4 * h + k].x * float(s);
        }
        return r;
    }
};

}  // namespace hearth::backend::cuda
