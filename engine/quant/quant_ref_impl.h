// Internal to engine/quant: the per-format reference routines behind quant_ref.h's dispatch, and
// the little helpers they share. Pointers are to whole blocks; nb is the number of blocks.
#pragma once

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

// Round to nearest, ties to even (ggml's nearest_int), valid for |v| < 2^22. Relies on the
// default floating-point rounding mode, which the engine never changes.
inline int nearest_int(float v) {
    return static_cast<int>(std::nearbyint(v));
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
void quantize_q4_k(const float* src, uint8_t* dst, size_t nb);
void quantize_q5_k(const float* src, uint8_t* dst, size_t nb);
void quantize_q6_k(const float* src, uint8_t* dst, size_t nb);
void quantize_q8_k(const float* src, uint8_t* dst, size_t nb);

// Non-linear 4-bit (quant_ref_iq4.cpp).
void dequantize_iq4_nl(const uint8_t* src, float* dst, size_t nb);
void dequantize_iq4_xs(const uint8_t* src, float* dst, size_t nb);

}  // namespace hearth::quant::detail
