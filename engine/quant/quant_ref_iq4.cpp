// Reference decode for the non-linear 4-bit formats IQ4_NL (blocks of 32) and IQ4_XS
// (super-blocks of 256 with 6-bit sub-block scales). Codes index kIq4nlValues.
#include "quant/quant_ref_impl.h"

namespace hearth::quant::detail {

void dequantize_iq4_nl(const uint8_t* src, float* dst, size_t nb) {
    for (size_t b = 0; b < nb; ++b, src += 18, dst += 32) {
        const float d = load_f16(src);
        const uint8_t* qs = src + 2;
        for (size_t j = 0; j < 16; ++j) {
            dst[j] = d * static_cast<float>(kIq4nlValues[qs[j] & 0x0F]);
            dst[j + 16] = d * static_cast<float>(kIq4nlValues[qs[j] >> 4]);
        }
    }
}

void dequantize_iq4_xs(const uint8_t* src, float* dst, size_t nb) {
    for (size_t b = 0; b < nb; ++b, src += 136, dst += 256) {
        const float d = load_f16(src);
        const int scales_h = src[2] | (src[3] << 8);
        const uint8_t* scales_l = src + 4;
        for (size_t ib = 0; ib < 8; ++ib) {
            const int ls =
                ((scales_l[ib / 2] >> (4 * (ib % 2))) & 0x0F) | (((scales_h >> (2 * ib)) & 3) << 4);
            const float dl = d * static_cast<float>(ls - 32);
            const uint8_t* qs = src + 8 + 16 * ib;
            float* y = dst + 32 * ib;
            for (size_t j = 0; j < 16; ++j) {
                y[j] = dl * static_cast<float>(kIq4nlValues[qs[j] & 0x0F]);
                y[j + 16] = dl * static_cast<float>(kIq4nlValues[qs[j] >> 4]);
            }
        }
    }
}

}  // namespace hearth::quant::detail
