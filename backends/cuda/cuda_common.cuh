// Device helpers shared by the kernels: type ids, element addressing, error reporting, and the
// decoders of every weight format (deq32). The decoders evaluate in float32 in exactly the
// order of engine/quant's reference decoders, with explicitly rounded operations (__fmul_rn,
// __fsub_rn, __fadd_rn) so nvcc never contracts them into an FMA: GetRows is bit-exact with the
// CPU and the reference.
#pragma once

#include <cstdint>
#include <cstring>

#include <cuda_fp16.h>

#include "cuda_kernels.h"

namespace hearth::backend::cuda {

// The decoders are __host__ __device__: tests/backends/cuda checks them on the host against the
// reference decoders, bit for bit, on machines without a GPU.
#define HD __host__ __device__ __forceinline__

// Rounded float operations that are never fused into an FMA (on the host, nvcc's host compiler
// runs in ISO C++ mode, which does not contract).
HD float mul_rn(float a, float b) {
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
HD float add_rn(float a, float b) {
#ifdef __CUDA_ARCH__
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}
HD float sub_rn(float a, float b) {
#ifdef __CUDA_ARCH__
    return __fsub_rn(a, b);
#else
    return a - b;
#endif
}
HD float bits_to_float(uint32_t v) {
#ifdef __CUDA_ARCH__
    return __uint_as_float(v);
#else
    float f;
    std::memcpy(&f, &v, sizeof f);
    return f;
#endif
}

// DType ids (hearth/backend/tensor.h; GGUF's numbering).
enum : uint32_t {
    kF32 = 0,
    kF16 = 1,
    kQ4_0 = 2,
    kQ4_1 = 3,
    kQ5_0 = 6,
    kQ5_1 = 7,
    kQ8_0 = 8,
    kQ2_K = 10,
    kQ3_K = 11,
    kQ4_K = 12,
    kQ5_K = 13,
    kQ6_K = 14,
    kIQ4_NL = 20,
    kIQ4_XS = 23,
    kI32 = 26,
    kBF16 = 30,
};

__device__ __forceinline__ char* at(const DevTensor& t, int64_t i1, int64_t i2 = 0) {
    return t.p + i1 * t.nb[1] + i2 * t.nb[2];
}
__device__ __forceinline__ float* f32_at(const DevTensor& t, int64_t i1, int64_t i2 = 0) {
    return reinterpret_cast<float*>(at(t, i1, i2));
}
__device__ __forceinline__ int32_t i32_at(const DevTensor& t, int64_t i) {
    return reinterpret_cast<const int32_t*>(t.p)[i];
}

// Records the first error of a step (later ones are dropped).
__device__ __forceinline__ void report(DevError* err, int node, int32_t code, int64_t value) {
    if (atomicCAS(&err->code, 0, code) == 0) {
        err->node = node;
        err->value = value;
    }
}

HD float ld_f16(const uint8_t* p) {
    const unsigned short h = static_cast<unsigned short>(p[0] | (p[1] << 8));
    return __half2float(__ushort_as_half(h));
}
HD uint32_t ld_u32(const uint8_t* p) {
    return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}

__constant__ const int8_t kIq4Values[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                            1,    13,   25,  38,  53,  69,  89,  113};
inline constexpr int8_t kIq4ValuesHost[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                              1,    13,   25,  38,  53,  69,  89,  113};
HD float iq4_value(int i) {
#ifdef __CUDA_ARCH__
    return float(kIq4Values[i]);
#else
    return float(kIq4ValuesHost[i]);
#endif
}

// Bytes of one 32-element group's block (for the 32-element formats) or of the super-block.
template <uint32_t T>
struct Fmt;
template <>
struct Fmt<kF32> {
    static constexpr int block = 32, bytes = 128;
};
template <>
struct Fmt<kF16> {
    static constexpr int block = 32, bytes = 64;
};
template <>
struct Fmt<kBF16> {
    static constexpr int block = 32, bytes = 64;
};
template <>
struct Fmt<kQ4_0> {
    static constexpr int block = 32, bytes = 18;
};
template <>
struct Fmt<kQ4_1> {
    static constexpr int block = 32, bytes = 20;
};
template <>
struct Fmt<kQ5_0> {
    static constexpr int block = 32, bytes = 22;
};
template <>
struct Fmt<kQ5_1> {
    static constexpr int block = 32, bytes = 24;
};
template <>
struct Fmt<kQ8_0> {
    static constexpr int block = 32, bytes = 34;
};
template <>
struct Fmt<kIQ4_NL> {
    static constexpr int block = 32, bytes = 18;
};
template <>
struct Fmt<kQ2_K> {
    static constexpr int block = 256, bytes = 84;
};
template <>
struct Fmt<kQ3_K> {
    static constexpr int block = 256, bytes = 110;
};
template <>
struct Fmt<kQ4_K> {
    static constexpr int block = 256, bytes = 144;
};
template <>
struct Fmt<kQ5_K> {
    static constexpr int block = 256, bytes = 176;
};
template <>
struct Fmt<kQ6_K> {
    static constexpr int block = 256, bytes = 210;
};
template <>
struct Fmt<kIQ4_XS> {
    static constexpr int block = 256, bytes = 136;
};

HD void scale_min_k4(int j, const uint8_t* s, int& sc, int& m) {
    if (j < 4) {
        sc = s[j] & 63;
        m = s[j + 4] & 63;
    } else {
        sc = (s[j + 4] & 0x0F) | ((s[j - 4] >> 6) << 4);
        m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
    }
}

// One element of a float-format row (F32, F16, BF16), exact.
template <uint32_t T>
HD float deq_float(const uint8_t* row, int64_t i) {
    if constexpr (T == kF32) {
        return reinterpret_cast<const float*>(row)[i];
    } else if constexpr (T == kF16) {
        return __half2float(reinterpret_cast<const __half*>(row)[i]);
    } else {
        const uint32_t v = reinterpret_cast<const uint16_t*>(row)[i];
        return bits_to_float(v << 16);
    }
}
template <uint32_t T>
__host__ __device__ constexpr bool is_float_fmt() {
    return T == kF32 || T == kF16 || T == kBF16;
}

// Decodes group g (elements 32g .. 32g+31) of a row of type T into y[0..31].
template <uint32_t T>
HD void deq32(const uint8_t* row, int64_t g, float* y) {
    if constexpr (T == kF32 || T == kF16 || T == kBF16) {
        // Float rows may have any length and alignment (their block is one element).
#pragma unroll
        for (int i = 0; i < 32; ++i) y[i] = deq_float<T>(row, g * 32 + i);
    } else if constexpr (T == kQ4_0 || T == kIQ4_NL) {
        const uint8_t* b = row + g * 18;
        const float d = ld_f16(b);
#pragma unroll
        for (int j = 0; j < 16; ++j) {
            const int q = b[2 + j];
            if constexpr (T == kQ4_0) {
                y[j] = mul_rn(float((q & 0x0F) - 8), d);
                y[j + 16] = mul_rn(float((q >> 4) - 8), d);
            } else {
                y[j] = mul_rn(d, iq4_value(q & 0x0F));
                y[j + 16] = mul_rn(d, iq4_value(q >> 4));
            }
        }
    } else if constexpr (T == kQ4_1) {
        const uint8_t* b = row + g * 20;
        const float d = ld_f16(b), m = ld_f16(b + 2);
#pragma unroll
        for (int j = 0; j < 16; ++j) {
            const int q = b[4 + j];
            y[j] = add_rn(mul_rn(float(q & 0x0F), d), m);
            y[j + 16] = add_rn(mul_rn(float(q >> 4), d), m);
        }
    } else if constexpr (T == kQ5_0 || T == kQ5_1) {
        constexpr int base = T == kQ5_0 ? 6 : 8;
        const uint8_t* b = row + g * (T == kQ5_0 ? 22 : 24);
        const float d = ld_f16(b);
        const float m = T == kQ5_1 ? ld_f16(b + 2) : 0.f;
        const uint32_t qh = ld_u32(b + base - 4);
#pragma unroll
        for (int j = 0; j < 16; ++j) {
            const int q = b[base + j];
            const int lo = (q & 0x0F) | int(((qh >> j) & 1u) << 4);
            const int hi = (q >> 4) | int(((qh >> (j + 16)) & 1u) << 4);
            if constexpr (T == kQ5_0) {
                y[j] = mul_rn(float(lo - 16), d);
                y[j + 16] = mul_rn(float(hi - 16), d);
            } else {
                y[j] = add_rn(mul_rn(float(lo), d), m);
                y[j + 16] = add_rn(mul_rn(float(hi), d), m);
            }
        }
    } else if constexpr (T == kQ8_0) {
        const uint8_t* b = row + g * 34;
        const float d = ld_f16(b);
#pragma unroll
        for (int j = 0; j < 32; ++j) y[j] = mul_rn(float(int8_t(b[2 + j])), d);
    } else if constexpr (T == kQ2_K || T == kQ3_K) {
        // Group j of the super-block: element 128h + 32s + 16p + l with h = j/4, s = j%4.
        const uint8_t* b = row + (g >> 3) * Fmt<T>::bytes;
        const int j = int(g & 7), h = j >> 2, s = j & 3;
#pragma unroll
        for (int p = 0; p < 2; ++p) {
            if constexpr (T == kQ2_K) {
                const uint8_t sc = b[8 * h + 2 * s + p];
                const float d = ld_f16(b + 80), dmin = ld_f16(b + 82);
                const float dl = mul_rn(d, float(sc & 0x0F));
                const float ml = mul_rn(dmin, float(sc >> 4));
                const uint8_t* qs = b + 16 + 32 * h + 16 * p;
#pragma unroll
                for (int l = 0; l < 16; ++l)
                    y[16 * p + l] = sub_rn(mul_rn(dl, float((qs[l] >> (2 * s)) & 3)), ml);
            } else {
                const uint8_t* scales = b + 96;
                const int si = 8 * h + 2 * s + p;
                const int low = si < 8 ? (scales[si] & 0x0F) : (scales[si - 8] >> 4);
                const int high = (scales[8 + si % 4] >> (2 * (si / 4))) & 3;
                const float dl = mul_rn(ld_f16(b + 108), float((low | (high << 4)) - 32));
                const uint8_t* qs = b + 32 + 32 * h + 16 * p;
                const uint8_t* hm = b + 16 * p;
#pragma unroll
                for (int l = 0; l < 16; ++l) {
                    const int low2 = (qs[l] >> (2 * s)) & 3;
                    const bool hb = (hm[l] >> (4 * h + s)) & 1;
                    y[16 * p + l] = mul_rn(dl, float(hb ? low2 : low2 - 4));
                }
            }
        }
    } else if constexpr (T == kQ4_K || T == kQ5_K) {
        const uint8_t* b = row + (g >> 3) * Fmt<T>::bytes;
        const int j = int(g & 7), c = j >> 1, hi = j & 1;
        int sc, m;
        scale_min_k4(j, b + 4, sc, m);
        const float dl = mul_rn(ld_f16(b), float(sc));
        const float ml = mul_rn(ld_f16(b + 2), float(m));
        const uint8_t* qs = b + (T == kQ4_K ? 16 : 48) + 32 * c;
#pragma unroll
        for (int l = 0; l < 32; ++l) {
            int q = hi ? (qs[l] >> 4) : (qs[l] & 0x0F);
            if constexpr (T == kQ5_K) q |= ((b[16 + l] >> (2 * c + hi)) & 1) << 4;
            y[l] = sub_rn(mul_rn(dl, float(q)), ml);
        }
    } else if constexpr (T == kQ6_K) {
        // Element 128h + 32k + l: low 4 bits from ql (k odd: ql[l+32]; k >= 2: high nibble),
        // 2 high bits from qh[l] at bit 2k.
        const uint8_t* b = row + (g >> 3) * 210;
        const int j = int(g & 7), h = j >> 2, k = j & 3;
        const float d = ld_f16(b + 208);
        const int8_t* scales = reinterpret_cast<const int8_t*>(b + 192);
        const uint8_t* ql = b + 64 * h + (k & 1) * 32;
        const uint8_t* qh = b + 128 + 32 * h;
#pragma unroll
        for (int l = 0; l < 32; ++l) {
            const int lo = k >= 2 ? (ql[l] >> 4) : (ql[l] & 0x0F);
            const int q = (lo | (((qh[l] >> (2 * k)) & 3) << 4)) - 32;
            const float ds = mul_rn(d, float(scales[8 * h + 2 * k + l / 16]));
            y[l] = mul_rn(ds, float(q));
        }
    } else if constexpr (T == kIQ4_XS) {
        const uint8_t* b = row + (g >> 3) * 136;
        const int ib = int(g & 7);
        const float d = ld_f16(b);
        const int scales_h = b[2] | (b[3] << 8);
        const int ls =
            ((b[4 + ib / 2] >> (4 * (ib % 2))) & 0x0F) | (((scales_h >> (2 * ib)) & 3) << 4);
        const float dl = mul_rn(d, float(ls - 32));
        const uint8_t* qs = b + 8 + 16 * ib;
#pragma unroll
        for (int l = 0; l < 16; ++l) {
            y[l] = mul_rn(dl, iq4_value(qs[l] & 0x0F));
            y[l + 16] = mul_rn(dl, iq4_value(qs[l] >> 4));
        }
    }
}

// Calls f.template operator()<T>() for the weight type `type`; false if unsupported.
template <class F>
__host__ bool dispatch_weight(uint32_t type, F&& f) {
    switch (type) {
        case kF32:
            f.template operator()<kF32>();
            return true;
        case kF16:
            f.template operator()<kF16>();
            return true;
        case kBF16:
            f.template operator()<kBF16>();
            return true;
        case kQ4_0:
            f.template operator()<kQ4_0>();
            return true;
        case kQ4_1:
            f.template operator()<kQ4_1>();
            return true;
        case kQ5_0:
            f.template operator()<kQ5_0>();
            return true;
        case kQ5_1:
            f.template operator()<kQ5_1>();
            return true;
        case kQ8_0:
            f.template operator()<kQ8_0>();
            return true;
        case kQ2_K:
            f.template operator()<kQ2_K>();
            return true;
        case kQ3_K:
            f.template operator()<kQ3_K>();
            return true;
        case kQ4_K:
            f.template operator()<kQ4_K>();
            return true;
        case kQ5_K:
            f.template operator()<kQ5_K>();
            return true;
        case kQ6_K:
            f.template operator()<kQ6_K>();
            return true;
        case kIQ4_NL:
            f.template operator()<kIQ4_NL>();
            return true;
        case kIQ4_XS:
            f.template operator()<kIQ4_XS>();
            return true;
        default:
            return false;
    }
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

}  // namespace hearth::backend::cuda
