// Reference decode and encode for the non-linear 4-bit formats IQ4_NL (blocks of 32) and IQ4_XS
// (super-blocks of 256 with 6-bit sub-block scales). Codes index kIq4nlValues.
#include <algorithm>
#include <cmath>
#include <cstring>

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

// --- encoders -------------------------------------------------------------------------------
//
// Both follow ggml's default search (what ggml_quantize_chunk / llama-quantize use without an
// importance matrix): per 32-element group, weight each element by x^2, start from the scale
// that maps the largest-magnitude value to the table end, then try 15 nearby grids
// ((k - 127) / max, k = -7..7) and keep the least-squares scale with the best fit.

namespace {

constexpr int kSearch = 7;

// The code whose table value is nearest to v (ties go to the larger code).
int nearest_code(float v) {
    const int8_t* t = kIq4nlValues;
    if (v <= t[0]) return 0;
    if (v >= t[15]) return 15;
    int lo = 0, hi = 15;  // t[lo] <= v < t[hi]
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (v < t[mid]) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    return v - t[lo] < t[hi] - v ? lo : hi;
}

// Best scale for one group of 32; 0 for an all-zero group.
float fit_group_scale(const float* x) {
    float amax = 0, max = 0;
    for (int j = 0; j < 32; ++j) {
        if (std::fabs(x[j]) > amax) {
            amax = std::fabs(x[j]);
            max = x[j];
        }
    }
    if (amax < kGroupMaxEps) return 0.0f;
    // Least-squares sums (weights x^2) for the codes that inverse scale id picks.
    auto fit = [&](float id, float& sumqx, float& sumq2) {
        sumqx = 0;
        sumq2 = 0;
        for (int j = 0; j < 32; ++j) {
            const auto q = static_cast<float>(kIq4nlValues[nearest_code(id * x[j])]);
            const float w = x[j] * x[j];
            sumqx += w * q * x[j];
            sumq2 += w * q * q;
        }
    };
    float sumqx, sumq2;
    fit(1 / (-max / static_cast<float>(kIq4nlValues[0])), sumqx, sumq2);
    float d = sumqx / sumq2;
    float best = d * sumqx;
    for (int k = -kSearch; k <= kSearch; ++k) {
        fit(static_cast<float>(k + kIq4nlValues[0]) / max, sumqx, sumq2);
        if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
            d = sumqx / sumq2;
            best = d * sumqx;
        }
    }
    return d;
}

// Codes for 32 values at scale d, packed in split-halves order into 16 bytes.
void pack_codes(const float* x, float d, uint8_t* qs) {
    const float id = d != 0.0f ? 1 / d : 0.0f;
    for (int j = 0; j < 16; ++j) {
        qs[j] = static_cast<uint8_t>(nearest_code(id * x[j]) | (nearest_code(id * x[j + 16]) << 4));
    }
}

}  // namespace

void quantize_iq4_nl(const float* src, uint8_t* dst, size_t nb) {
    for (size_t b = 0; b < nb; ++b, src += 32, dst += 18) {
        const float d = fit_group_scale(src);
        store_f16(dst, d);
        // Codes against the unrounded scale, as ggml does; an all-zero group gets code 8
        // (value 1 * 0), the nearest table entry to zero.
        pack_codes(src, d, dst + 2);
    }
}

void quantize_iq4_xs(const float* src, uint8_t* dst, size_t nb) {
    for (size_t b = 0; b < nb; ++b, src += 256, dst += 136) {
        float scales[8];
        float max_scale = 0, amax_scale = 0;
        for (int ib = 0; ib < 8; ++ib) {
            scales[ib] = fit_group_scale(src + 32 * ib);
            if (std::fabs(scales[ib]) > amax_scale) {
                amax_scale = std::fabs(scales[ib]);
                max_scale = scales[ib];
            }
        }
        // Group scales become 6-bit signed multiples of d; the largest maps to -32.
        const float d = -max_scale / 32;
        store_f16(dst, d);
        const float id = d != 0.0f ? 1 / d : 0.0f;
        uint16_t scales_h = 0;
        uint8_t* scales_l = dst + 4;
        std::memset(scales_l, 0, 4);
        for (int ib = 0; ib < 8; ++ib) {
            const int l = std::clamp(nearest_int(id * scales[ib]), -32, 31);
            pack_codes(src + 32 * ib, d * static_cast<float>(l), dst + 8 + 16 * ib);
            const int ls = l + 32;
            scales_l[ib / 2] |= static_cast<uint8_t>((ls & 0x0F) << (4 * (ib % 2)));
            scales_h |= static_cast<uint16_t>((ls >> 4) << (2 * ib));
        }
        dst[2] = static_cast<uint8_t>(scales_h & 0xFF);
        dst[3] = static_cast<uint8_t>(scales_h >> 8);
    }
}

}  // namespace hearth::quant::detail
