// Internal to engine/quant: the per-format reference routines behind quant_ref.h's dispatch, and
// the little helpers they share. Pointers are to whole blocks; nb is the number of blocks.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "quant/quant_ref.h"

namespace hearth::quant::detail {

inline float load_f16(const uint8_t* p) {
    return f16_to_f32(static_cast<uint16_t>(p[0] | (p[1] << 8)));
}
inline void store_f16(uint8_t* p, float v) {
    const uint16_t h = f32_to_f16(v);
    p[0] = static_cast<uint8_t>(h & 0xFF);
    p[1] = static_cast<uint8_t>(h >> 8);
}
inline uint32_t load_u32(const uint8_t* p) {
    return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
           (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}
inline void store_u32(uint8_t* p, uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// Round to nearest, ties to even (ggml's nearest_int). Adding 1.5 * 2^23 leaves the rounded
// integer in the low mantissa bits, using the FPU's own round-to-nearest-even; unlike
// std::nearbyint this needs no libm call on baseline x86-64, which matters in the K-quant
// searches. Exact for |v| < 2^22; larger values and NaN (from inf/NaN inputs) saturate instead
// of being undefined, and callers clamp the result anyway.
inline int nearest_int(float v) {
    constexpr float kLimit = 4194303.0f;
    if (!(std::fabs(v) <= kLimit)) return v > 0 ? 4194303 : (v < 0 ? -4194303 : 0);
    const float shifted = v + 12582912.0f;
    return static_cast<int>(std::bit_cast<uint32_t>(shifted) & 0x007FFFFFu) - 0x00400000;
}

// Unpacks scale and min j (0..7) from the 12-byte 6-bit packing shared by Q4_K and Q5_K.
inline void unpack_scale_min_k4(int j, const uint8_t* s, uint8_t& sc, uint8_t& m) {
    if (j < 4) {
        sc = s[j] & 63;
        m = s[j + 4] & 63;
    } else {
        sc = static_cast<uint8_t>((s[j + 4] & 0x0F) | ((s[j - 4] >> 6) << 4));
        m = static_cast<uint8_t>((s[j + 4] >> 4) | ((s[j] >> 6) << 4));
    }
}

// A group whose largest magnitude is below this is treated as all zero by the encoders.
inline constexpr float kGroupMaxEps = 1e-15f;

// The IQ4_NL / IQ4_XS code book.
inline constexpr int8_t kIq4nlValues[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                            1,    13,   25,  38,  53,  69,  89,  113};

// 32-element formats (quant_ref_basic.cpp).
void dequantize_q4_0(const uint8_t* src, float* dst, size_t nb);
void dequantize_q4_1(const uint8_t* src, float* dst, size_t nb);
void dequantize_q5_0(const uint8_t* src, float* dst, size_t nb);
void dequantize_q5_1(const uint8_t* src, float* dst, size_t nb);
void dequantize_q8_0(const uint8_t* src, float* dst, size_t nb);
void quantize_q4_0(const float* src, uint8_t* dst, size_t nb);
void quantize_q4_1(const float* src, uint8_t* dst, size_t nb);
void quantize_q5_0(const float* src, uint8_t* dst, size_t nb);
void quantize_q5_1(const float* src, uint8_t* dst, size_t nb);
void quantize_q8_0(const float* src, uint8_t* dst, size_t nb);

// K-quants (quant_ref_k.cpp decodes, quant_ref_k_encode.cpp encodes).
void dequantize_q2_k(const uint8_t* src, float* dst, size_t nb);
void dequantize_q3_k(const uint8_t* src, float* dst, size_t nb);
void dequantize_q4_k(const uint8_t* src, float* dst, size_t nb);
void dequantize_q5_k(const uint8_t* src, float* dst, size_t nb);
void dequantize_q6_k(const uint8_t* src, float* dst, size_t nb);
void dequantize_q8_k(const uint8_t* src, float* dst, size_t nb);
void quantize_q2_k(const float* src, uint8_t* dst, size_t nb);
void quantize_q3_k(const float* src, uint8_t* dst, size_t nb);
void quantize_q4_k(const float* src, uint8_t* dst, size_t nb);
void quantize_q5_k(const float* src, uint8_t* dst, size_t nb);
void quantize_q6_k(const float* src, uint8_t* dst, size_t nb);
void quantize_q8_k(const float* src, uint8_t* dst, size_t nb);

// Scale searches for the K-quant encoders (quant_ref_k_fit.cpp); n <= 32.
// Asymmetric: x ~= scale * L - min_out, L in 0..nmax, weighted squared (or absolute) error.
float fit_scale_min(int n, int nmax, const float* x, const float* w, uint8_t* L, float& min_out,
                    float rmin, float rdelta, int nstep, bool abs_error);
// Symmetric, weights x^2, grid search: x ~= scale * (L - nmax), L in 0..2*nmax-1 (Q6_K).
float fit_scale_symmetric(int n, int nmax, const float* x, uint8_t* L);
// Symmetric, weights x^2, coordinate descent on the codes: x ~= scale * (L - nmax) (Q3_K).
float fit_scale_descent(int n, int nmax, const float* x, uint8_t* L);

// Non-linear 4-bit (quant_ref_iq4.cpp).
void dequantize_iq4_nl(const uint8_t* src, float* dst, size_t nb);
void dequantize_iq4_xs(const uint8_t* src, float* dst, size_t nb);
void quantize_iq4_nl(const float* src, uint8_t* dst, size_t nb);
void quantize_iq4_xs(const float* src, uint8_t* dst, size_t nb);

}  // namespace hearth::quant::detail
