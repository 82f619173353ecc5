// Reference decoders for the K-quants (super-blocks of 256): Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, Q8_K.
// Each follows the layout in QUANT_FORMATS.md and evaluates in float32 in ggml's operation order,
// e.g. (d * sc) * q - (dmin * m), so results are bit-exact with ggml's dequantizers.
#include <bit>
#include <cstring>

#include "quant/quant_ref_impl.h"

namespace hearth::quant::detail {

namespace {
constexpr size_t kQkK = 256;
}

void dequantize_q2_k(const uint8_t* src, float* dst, size_t nb) {
    for (size_t b = 0; b < nb; ++b, src += 84, dst += kQkK) {
        const uint8_t* scales = src;
        const float d = load_f16(src + 80);
        const float dmin = load_f16(src + 82);
        // Element 128h + 32s + 16p + l: bits 2s..2s+1 of qs[32h + 16p + l], scale byte 8h+2s+p.
        for (size_t h = 0; h < 2; ++h) {
            const uint8_t* qs = src + 16 + 32 * h;
            for (size_t s = 0; s < 4; ++s) {
                for (size_t p = 0; p < 2; ++p) {
                    const uint8_t sc = scales[8 * h + 2 * s + p];
                    const float dl = d * static_cast<float>(sc & 0x0F);
                    const float ml = dmin * static_cast<float>(sc >> 4);
                    float* y = dst + 128 * h + 32 * s + 16 * p;
                    for (size_t l = 0; l < 16; ++l) {
                        const int q = (qs[16 * p + l] >> (2 * s)) & 3;
                        y[l] = dl * static_cast<float>(q) - ml;
                    }
                }
            }
        }
    }
}

namespace {

// Sixteen 6-bit scales packed into 12 bytes: low nibbles in bytes 0..7, the top two bits of
// scale j in byte 8 + j%4 at bit 2*(j/4). Returned already offset to the signed range -32..31.
int q3k_scale(const uint8_t* s, size_t j) {
    const int low = j < 8 ? (s[j] & 0x0F) : (s[j - 8] >> 4);
    const int high = (s[8 + j % 4] >> (2 * (j / 4))) & 3;
    return (low | (high << 4)) - 32;
}

}  // namespace

void dequantize_q3_k(const uint8_t* src, float* dst, size_t nb) {
    for (size_t b = 0; b < nb; ++b, src += 110, dst += kQkK) {
        const uint8_t* hmask = src;
        const uint8_t* scales = src + 96;
        const float d = load_f16(src + 108);
        // Same element indexing as Q2_K; the high bit sits in hmask[16p + l] at bit 4h + s (the
        // mask bytes are shared by both halves). A clear high bit means "subtract 4".
        for (size_t h = 0; h < 2; ++h) {
            const uint8_t* qs = src + 32 + 32 * h;
            for (size_t s = 0; s < 4; ++s) {
                for (size_t p = 0; p < 2; ++p) {
                    const float dl = d * static_cast<float>(q3k_scale(scales, 8 * h + 2 * s + p));
                    float* y = dst + 128 * h + 32 * s + 16 * p;
                    for (size_t l = 0; l < 16; ++l) {
                        const int low2 = (qs[16 * p + l] >> (2 * s)) & 3;
                        const bool high = (hmask[16 * p + l] >> (4 * h + s)) & 1;
                        y[l] = dl * static_cast<float>(high ? low2 : low2 - 4);
                    }
                }
            }
        }
    }
}

void dequantize_q4_k(const uint8_t* src, float* dst, size_t nb) {
    for (size_t b = 0; b < nb; ++b, src += 144, dst += kQkK) {
        const float d = load_f16(src);
        const float dmin = load_f16(src + 2);
        const uint8_t* scales = src + 4;
        // Chunk c of 64 elements: low nibbles are sub-block 2c, high nibbles sub-block 2c+1.
        for (int c = 0; c < 4; ++c) {
            const uint8_t* qs = src + 16 + 32 * c;
            uint8_t sc, m;
            unpack_scale_min_k4(2 * c, scales, sc, m);
            const float d1 = d * static_cast<float>(sc);
            const float m1 = dmin * static_cast<float>(m);
            unpack_scale_min_k4(2 * c + 1, scales, sc, m);
            const float d2 = d * static_cast<float>(sc);
            const float m2 = dmin * static_cast<float>(m);
            float* y = dst + 64 * c;
            for (size_t l = 0; l < 32; ++l) y[l] = d1 * static_cast<float>(qs[l] & 0x0F) - m1;
            for (size_t l = 0; l < 32; ++l) y[32 + l] = d2 * static_cast<float>(qs[l] >> 4) - m2;
        }
    }
}

void dequantize_q5_k(const uint8_t* src, float* dst, size_t nb) {
    for (size_t b = 0; b < nb; ++b, src += 176, dst += kQkK) {
        const float d = load_f16(src);
        const float dmin = load_f16(src + 2);
        const uint8_t* scales = src + 4;
        const uint8_t* qh = src + 16;
        // As Q4_K, plus a fifth bit: bit 2c of qh[l] for the low nibble, bit 2c+1 for the high.
        for (int c = 0; c < 4; ++c) {
            const uint8_t* qs = src + 48 + 32 * c;
            uint8_t sc, m;
            unpack_scale_min_k4(2 * c, scales, sc, m);
            const float d1 = d * static_cast<float>(sc);
            const float m1 = dmin * static_cast<float>(m);
            unpack_scale_min_k4(2 * c + 1, scales, sc, m);
            const float d2 = d * static_cast<float>(sc);
            const float m2 = dmin * static_cast<float>(m);
            float* y = dst + 64 * c;
            for (size_t l = 0; l < 32; ++l) {
                const int q = (qs[l] & 0x0F) | (((qh[l] >> (2 * c)) & 1) << 4);
                y[l] = d1 * static_cast<float>(q) - m1;
            }
            for (size_t l = 0; l < 32; ++l) {
                const int q = (qs[l] >> 4) | (((qh[l] >> (2 * c + 1)) & 1) << 4);
                y[32 + l] = d2 * static_cast<float>(q) - m2;
            }
        }
    }
}

void dequantize_q6_k(const uint8_t* src, float* dst, size_t nb) {
    for (size_t b = 0; b < nb; ++b, src += 210, dst += kQkK) {
        const float d = load_f16(src + 208);
        const auto* scales = reinterpret_cast<const int8_t*>(src + 192);
        for (size_t h = 0; h < 2; ++h) {
            const uint8_t* ql = src + 64 * h;
            const uint8_t* qh = src + 128 + 32 * h;
            float* y = dst + 128 * h;
            for (size_t l = 0; l < 32; ++l) {
                // Four elements 32 apart share one qh byte (2 bits each) and two ql bytes.
                const int q0 = ((ql[l] & 0x0F) | (((qh[l] >> 0) & 3) << 4)) - 32;
                const int q1 = ((ql[l + 32] & 0x0F) | (((qh[l] >> 2) & 3) << 4)) - 32;
                const int q2 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
                const int q3 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
                const int q[4] = {q0, q1, q2, q3};
                for (size_t k = 0; k < 4; ++k) {
                    const size_t e = 128 * h + 32 * k + l;
                    y[32 * k + l] =
                        d * static_cast<float>(scales[e / 16]) * static_cast<float>(q[k]);
                }
            }
        }
    }
}

void dequantize_q8_k(const uint8_t* src, float* dst, size_t nb) {
    for (size_t b = 0; b < nb; ++b, src += 292, dst += kQkK) {
        // d is a float32 here (not f16); bsums are not needed to decode.
        const float d = std::bit_cast<float>(load_u32(src));
        for (size_t j = 0; j < kQkK; ++j) {
            dst[j] = d * static_cast<float>(static_cast<int8_t>(src[4 + j]));
        }
    }
}

}  // namespace hearth::quant::detail
