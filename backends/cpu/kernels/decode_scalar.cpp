// Scalar decoding of weight rows into floats, written from docs/QUANT_FORMATS.md. The scalar
// kernels use it; the tests check it against the engine's quant reference.
#include <cstring>

#include "kernels/kernels_internal.h"

namespace hearth::cpu::detail {

namespace {

using quant::Type;

constexpr int8_t kIq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                               1,    13,   25,  38,  53,  69,  89,  113};

float f16_at(const uint8_t* p) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return half_to_float(h);
}

uint32_t u32_at(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// Q4_K / Q5_K 6-bit scale and min of sub-block j.
void k_scale_min(const uint8_t* s, int j, int& sc, int& m) {
    if (j < 4) {
        sc = s[j] & 63;
        m = s[j + 4] & 63;
    } else {
        sc = (s[j + 4] & 0x0F) | ((s[j - 4] >> 6) << 4);
        m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
    }
}

void decode_q4_0(const uint8_t* b, float* y) {
    const float d = f16_at(b);
    for (int j = 0; j < 16; ++j) {
        y[j] = static_cast<float>((b[2 + j] & 15) - 8) * d;
        y[j + 16] = static_cast<float>((b[2 + j] >> 4) - 8) * d;
    }
}

void decode_q4_1(const uint8_t* b, float* y) {
    const float d = f16_at(b), m = f16_at(b + 2);
    for (int j = 0; j < 16; ++j) {
        y[j] = static_cast<float>(b[4 + j] & 15) * d + m;
        y[j + 16] = static_cast<float>(b[4 + j] >> 4) * d + m;
    }
}

void decode_q5(const uint8_t* b, float* y, bool has_min) {
    const float d = f16_at(b);
    const float m = has_min ? f16_at(b + 2) : 0.0f;
    const uint8_t* p = b + (has_min ? 4 : 2);
    const uint32_t qh = u32_at(p);
    const uint8_t* qs = p + 4;
    const int offset = has_min ? 0 : 16;
    for (int j = 0; j < 16; ++j) {
        const int lo = (qs[j] & 15) | static_cast<int>(((qh >> j) & 1) << 4);
        const int hi = (qs[j] >> 4) | static_cast<int>(((qh >> (j + 16)) & 1) << 4);
        y[j] = static_cast<float>(lo - offset) * d + m;
        y[j + 16] = static_cast<float>(hi - offset) * d + m;
    }
}

void decode_q8_0(const uint8_t* b, float* y) {
    const float d = f16_at(b);
    for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<int8_t>(b[2 + j])) * d;
}

void decode_iq4_nl(const uint8_t* b, float* y) {
    const float d = f16_at(b);
    for (int j = 0; j < 16; ++j) {
        y[j] = d * static_cast<float>(kIq4nl[b[2 + j] & 15]);
        y[j + 16] = d * static_cast<float>(kIq4nl[b[2 + j] >> 4]);
    }
}

void decode_q2_k(const uint8_t* b, float* y) {
    const uint8_t* scales = b;
    const uint8_t* qs = b + 16;
    const float d = f16_at(b + 80), dmin = f16_at(b + 82);
    for (int h = 0; h < 2; ++h)
        for (int s = 0; s < 4; ++s)
            for (int p = 0; p < 2; ++p) {
                const uint8_t sc = scales[8 * h + 2 * s + p];
                const float dl = d * static_cast<float>(sc & 15);
                const float ml = dmin * static_cast<float>(sc >> 4);
                for (int l = 0; l < 16; ++l) {
                    const int q = (qs[32 * h + 16 * p + l] >> (2 * s)) & 3;
                    y[128 * h + 32 * s + 16 * p + l] = dl * static_cast<float>(q) - ml;
                }
            }
}

void decode_q3_k(const uint8_t* b, float* y) {
    const uint8_t* hmask = b;
    const uint8_t* qs = b + 32;
    const uint8_t* sc = b + 96;
    const float d = f16_at(b + 108);
    for (int h = 0; h < 2; ++h)
        for (int s = 0; s < 4; ++s)
            for (int p = 0; p < 2; ++p) {
                const int j = 8 * h + 2 * s + p;
                const int lo = j < 8 ? (sc[j] & 15) : (sc[j - 8] >> 4);
                const int hi = (sc[8 + (j % 4)] >> (2 * (j / 4))) & 3;
                const float dl = d * static_cast<float>((lo | (hi << 4)) - 32);
                for (int l = 0; l < 16; ++l) {
                    const int low2 = (qs[32 * h + 16 * p + l] >> (2 * s)) & 3;
                    const bool bit = (hmask[16 * p + l] >> (4 * h + s)) & 1;
                    y[128 * h + 32 * s + 16 * p + l] =
                        dl * static_cast<float>(bit ? low2 : low2 - 4);
                }
            }
}

void decode_q45_k(const uint8_t* b, float* y, bool five) {
    const float d = f16_at(b), dmin = f16_at(b + 2);
    const uint8_t* scales = b + 4;
    const uint8_t* qh = b + 16;
    const uint8_t* qs = five ? b + 48 : b + 16;
    for (int c = 0; c < 4; ++c)
        for (int half = 0; half < 2; ++half) {
            const int j = 2 * c + half;
            int sc, m;
            k_scale_min(scales, j, sc, m);
            const float dl = d * static_cast<float>(sc), ml = dmin * static_cast<float>(m);
            for (int l = 0; l < 32; ++l) {
                int q = half ? (qs[32 * c + l] >> 4) : (qs[32 * c + l] & 15);
                if (five) q |= ((qh[l] >> j) & 1) << 4;
                y[32 * j + l] = dl * static_cast<float>(q) - ml;
            }
        }
}

void decode_q6_k(const uint8_t* b, float* y) {
    const int8_t* scales = reinterpret_cast<const int8_t*>(b + 192);
    const float d = f16_at(b + 208);
    for (int h = 0; h < 2; ++h) {
        const uint8_t* L = b + 64 * h;
        const uint8_t* H = b + 128 + 32 * h;
        for (int l = 0; l < 32; ++l) {
            const int q[4] = {(L[l] & 15) | (((H[l] >> 0) & 3) << 4),
                              (L[l + 32] & 15) | (((H[l] >> 2) & 3) << 4),
                              (L[l] >> 4) | (((H[l] >> 4) & 3) << 4),
                              (L[l + 32] >> 4) | (((H[l] >> 6) & 3) << 4)};
            for (int r = 0; r < 4; ++r) {
                const int e = 128 * h + 32 * r + l;
                y[e] = d * static_cast<float>(scales[e / 16]) * static_cast<float>(q[r] - 32);
            }
        }
    }
}

void decode_iq4_xs(const uint8_t* b, float* y) {
    const float d = f16_at(b);
    uint16_t scales_h;
    std::memcpy(&scales_h, b + 2, 2);
    const uint8_t* scales_l = b + 4;
    const uint8_t* qs = b + 8;
    for (int ib = 0; ib < 8; ++ib) {
        const int ls =
            ((scales_l[ib / 2] >> (4 * (ib % 2))) & 15) | (((scales_h >> (2 * ib)) & 3) << 4);
        const float dl = d * static_cast<float>(ls - 32);
        for (int j = 0; j < 16; ++j) {
            y[32 * ib + j] = dl * static_cast<float>(kIq4nl[qs[16 * ib + j] & 15]);
            y[32 * ib + 16 + j] = dl * static_cast<float>(kIq4nl[qs[16 * ib + j] >> 4]);
        }
    }
}

}  // namespace

float half_to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
    const uint32_t exp = (h >> 10) & 0x1F;
    uint32_t mant = h & 0x3FF;
    uint32_t bits;
    if (exp == 0x1F) {
        bits = sign | 0x7F800000u | (mant << 13);  // inf / NaN
    } else if (exp != 0) {
        bits = sign | ((exp + 112) << 23) | (mant << 13);
    } else if (mant == 0) {
        bits = sign;
    } else {  // subnormal: normalise the mantissa
        int e = 113;
        while (!(mant & 0x400)) {
            mant <<= 1;
            --e;
        }
        bits = sign | (static_cast<uint32_t>(e) << 23) | ((mant & 0x3FF) << 13);
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

void decode_row(quant::Type wtype, const uint8_t* row, size_t k, float* out) {
    const auto& tr = quant::traits(wtype);
    switch (wtype) {
        case Type::F32:
            std::memcpy(out, row, k * 4);
            return;
        case Type::F16:
            for (size_t i = 0; i < k; ++i) out[i] = f16_at(row + 2 * i);
            return;
        case Type::BF16:
            for (size_t i = 0; i < k; ++i) {
                uint16_t h;
                std::memcpy(&h, row + 2 * i, 2);
                out[i] = bf16_to_float(h);
            }
            return;
        default:
            break;
    }
    const size_t nb = k / tr.block_size;
    for (size_t i = 0; i < nb; ++i) {
        const uint8_t* b = row + i * tr.type_size;
        float* y = out + i * tr.block_size;
        switch (wtype) {
            case Type::Q4_0:
                decode_q4_0(b, y);
                break;
            case Type::Q4_1:
                decode_q4_1(b, y);
                break;
            case Type::Q5_0:
                decode_q5(b, y, false);
                break;
            case Type::Q5_1:
                decode_q5(b, y, true);
                break;
            case Type::Q8_0:
                decode_q8_0(b, y);
                break;
            case Type::IQ4_NL:
                decode_iq4_nl(b, y);
                break;
            case Type::Q2_K:
                decode_q2_k(b, y);
                break;
            case Type::Q3_K:
                decode_q3_k(b, y);
                break;
            case Type::Q4_K:
                decode_q45_k(b, y, false);
                break;
            case Type::Q5_K:
                decode_q45_k(b, y, true);
                break;
            case Type::Q6_K:
                decode_q6_k(b, y);
                break;
            case Type::IQ4_XS:
                decode_iq4_xs(b, y);
                break;
            default:
                break;  // not a weight type; supports_weight_type() said so
        }
    }
}

}  // namespace hearth::cpu::detail
