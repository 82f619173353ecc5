// Reference decode/encode for the 32-element block formats Q4_0, Q4_1, Q5_0, Q5_1 and Q8_0.
// Float operations are written in ggml's order (see QUANT_FORMATS.md) so results are bit-exact.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "quant/quant_ref_impl.h"

namespace hearth::quant::detail {

namespace {

constexpr size_t kQk = 32;

// The signed value of largest magnitude (first one wins on ties), as the symmetric encoders use.
float signed_absmax(const float* x) {
    float amax = 0.0f;
    float max = 0.0f;
    for (size_t j = 0; j < kQk; ++j) {
        if (amax < std::fabs(x[j])) {
            amax = std::fabs(x[j]);
            max = x[j];
        }
    }
    return max;
}

void min_max(const float* x, float& min, float& max) {
    min = x[0];
    max = x[0];
    for (size_t j = 1; j < kQk; ++j) {
        min = std::min(min, x[j]);
        max = std::max(max, x[j]);
    }
}

}  // namespace

// --- decoders -------------------------------------------------------------------------------

void dequantize_q4_0(const uint8_t* src, float* dst, size_t nb) {
    for (size_t b = 0; b < nb; ++b, src += 18, dst += kQk) {
        const float d = load_f16(src);
        const uint8_t* qs = src + 2;
        for (size_t j = 0; j < 16; ++j) {
            dst[j] = static_cast<float>((qs[j] & 0x0F) - 8) * d;
            dst[j + 16] = static_cast<float>((qs[j] >> 4) - 8) * d;
        }
    }
}

void dequantize_q4_1(const uint8_t* src, float* dst, size_t nb) {
    for (size_t b = 0; b < nb; ++b, src += 20, dst += kQk) {
        const float d = load_f16(src);
        const float m = load_f16(src + 2);
        const uint8_t* qs = src + 4;
        for (size_t j = 0; j < 16; ++j) {
            dst[j] = static_cast<float>(qs[j] & 0x0F) * d + m;
            dst[j + 16] = static_cast<float>(qs[j] >> 4) * d + m;
        }
    }
}

void dequantize_q5_0(const uint8_t* src, float* dst, size_t nb) {
    for (size_t b = 0; b < nb; ++b, src += 22, dst += kQk) {
        const float d = load_f16(src);
        const uint32_t qh = load_u32(src + 2);
        const uint8_t* qs = src + 6;
        for (size_t j = 0; j < 16; ++j) {
            const int lo = (qs[j] & 0x0F) | static_cast<int>(((qh >> j) & 1u) << 4);
            const int hi = (qs[j] >> 4) | static_cast<int>(((qh >> (j + 16)) & 1u) << 4);
            dst[j] = static_cast<float>(lo - 16) * d;
            dst[j + 16] = static_cast<float>(hi - 16) * d;
        }
    }
}

void dequantize_q5_1(const uint8_t* src, float* dst, size_t nb) {
    for (size_t b = 0; b < nb; ++b, src += 24, dst += kQk) {
        const float d = load_f16(src);
        const float m = load_f16(src + 2);
        const uint32_t qh = load_u32(src + 4);
        const uint8_t* qs = src + 8;
        for (size_t j = 0; j < 16; ++j) {
            const int lo = (qs[j] & 0x0F) | static_cast<int>(((qh >> j) & 1u) << 4);
            const int hi = (qs[j] >> 4) | static_cast<int>(((qh >> (j + 16)) & 1u) << 4);
            dst[j] = static_cast<float>(lo) * d + m;
            dst[j + 16] = static_cast<float>(hi) * d + m;
        }
    }
}

void dequantize_q8_0(const uint8_t* src, float* dst, size_t nb) {
    for (size_t b = 0; b < nb; ++b, src += 34, dst += kQk) {
        const float d = load_f16(src);
        for (size_t j = 0; j < kQk; ++j) {
            dst[j] = static_cast<float>(static_cast<int8_t>(src[2 + j])) * d;
        }
    }
}

// --- encoders -------------------------------------------------------------------------------
//
// ggml computes each code as min(max_code, (int)(v + offset)) and relies on v + offset being
// non-negative. to_code does the same truncation but also maps NaN and out-of-range values
// (from inf/NaN inputs or a scale that overflows) into 0..max_code, so no input is UB.

namespace {

int to_code(float v, int max_code) {
    if (!(v >= 0.0f)) return 0;
    if (v >= static_cast<float>(max_code)) return max_code;
    return static_cast<int>(v);
}

}  // namespace

void quantize_q4_0(const float* src, uint8_t* dst, size_t nb) {
    for (size_t b = 0; b < nb; ++b, src += kQk, dst += 18) {
        // The largest-magnitude element maps to code 0 (value -8*d), keeping its sign.
        const float d = signed_absmax(src) / -8.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        store_f16(dst, d);
        for (size_t j = 0; j < 16; ++j) {
            const int lo = to_code(src[j] * id + 8.5f, 15);
            const int hi = to_code(src[j + 16] * id + 8.5f, 15);
            dst[2 + j] = static_cast<uint8_t>(lo | (hi << 4));
        }
    }
}

void quantize_q4_1(const float* src, uint8_t* dst, size_t nb) {
    for (size_t b = 0; b < nb; ++b, src += kQk, dst += 20) {
        float min, max;
        min_max(src, min, max);
        const float d = (max - min) / 15.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        store_f16(dst, d);
        store_f16(dst + 2, min);
        for (size_t j = 0; j < 16; ++j) {
            const int lo = to_code((src[j] - min) * id + 0.5f, 15);
            const int hi = to_code((src[j + 16] - min) * id + 0.5f, 15);
            dst[4 + j] = static_cast<uint8_t>(lo | (hi << 4));
        }
    }
}

void quantize_q5_0(const float* src, uint8_t* dst, size_t nb) {
    for (size_t b = 0; b < nb; ++b, src += kQk, dst += 22) {
        const float d = signed_absmax(src) / -16.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        store_f16(dst, d);
        uint32_t qh = 0;
        for (size_t j = 0; j < 16; ++j) {
            const int lo = to_code(src[j] * id + 16.5f, 31);
            const int hi = to_code(src[j + 16] * id + 16.5f, 31);
            dst[6 + j] = static_cast<uint8_t>((lo & 0x0F) | ((hi & 0x0F) << 4));
            qh |= static_cast<uint32_t>(lo >> 4) << j;
            qh |= static_cast<uint32_t>(hi >> 4) << (j + 16);
        }
        store_u32(dst + 2, qh);
    }
}

void quantize_q5_1(const float* src, uint8_t* dst, size_t nb) {
    for (size_t b = 0; b < nb; ++b, src += kQk, dst += 24) {
        float min, max;
        min_max(src, min, max);
        const float d = (max - min) / 31.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        store_f16(dst, d);
        store_f16(dst + 2, min);
        uint32_t qh = 0;
        for (size_t j = 0; j < 16; ++j) {
            const int lo = to_code((src[j] - min) * id + 0.5f, 31);
            const int hi = to_code((src[j + 16] - min) * id + 0.5f, 31);
            dst[8 + j] = static_cast<uint8_t>((lo & 0x0F) | ((hi & 0x0F) << 4));
            qh |= static_cast<uint32_t>(lo >> 4) << j;
            qh |= static_cast<uint32_t>(hi >> 4) << (j + 16);
        }
        store_u32(dst + 4, qh);
    }
}

void quantize_q8_0(const float* src, uint8_t* dst, size_t nb) {
    for (size_t b = 0; b < nb; ++b, src += kQk, dst += 34) {
        float amax = 0.0f;
        for (size_t j = 0; j < kQk; ++j) amax = std::max(amax, std::fabs(src[j]));
        const float d = amax / 127.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        store_f16(dst, d);
        for (size_t j = 0; j < kQk; ++j) {
            // roundf: ties away from zero, as ggml's Q8_0 encoder does (not nearest_int).
            float v = std::round(src[j] * id);
            if (!(v == v)) v = 0.0f;
            v = std::clamp(v, -127.0f, 127.0f);
            dst[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(v));
        }
    }
}

}  // namespace hearth::quant::detail
