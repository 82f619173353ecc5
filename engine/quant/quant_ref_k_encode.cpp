// Reference encoders for Q2_K, Q3_K, Q4_K, Q5_K, Q6_K and Q8_K, following ggml's
// quantize_row_*_ref (no importance matrix). The scale searches live in quant_ref_k_fit.cpp;
// every float expression keeps ggml's evaluation order so the bytes match ggml's output exactly.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>

#include "quant/quant_ref_impl.h"

namespace hearth::quant::detail {

namespace {

constexpr size_t kQkK = 256;

// Packs eight 6-bit scales and mins into the 12-byte layout of Q4_K/Q5_K.
void pack_scale_min_k4(const int* ls, const int* lm, uint8_t* s) {
    std::memset(s, 0, 12);
    for (int j = 0; j < 8; ++j) {
        if (j < 4) {
            s[j] = static_cast<uint8_t>(ls[j]);
            s[j + 4] = static_cast<uint8_t>(lm[j]);
        } else {
            s[j + 4] = static_cast<uint8_t>((ls[j] & 0x0F) | ((lm[j] & 0x0F) << 4));
            s[j - 4] |= static_cast<uint8_t>((ls[j] >> 4) << 6);
            s[j] |= static_cast<uint8_t>((lm[j] >> 4) << 6);
        }
    }
}

// Shared by Q4_K (nmax 15) and Q5_K (nmax 31): fits eight sub-blocks, writes d, dmin and the
// packed scales to the block head, and leaves the 256 codes in L.
void encode_k_scales(const float* x, uint8_t* head, uint8_t* L, int nmax, float rmin, int nstep) {
    float scales[8];
    float mins[8];
    float weights[32];
    float max_scale = 0;
    float max_min = 0;
    for (int j = 0; j < 8; ++j) {
        const float* xs = x + 32 * j;
        // Weight each element by the group's RMS plus its own magnitude: large values matter
        // more, but small ones are never ignored.
        float sum_x2 = 0;
        for (int l = 0; l < 32; ++l) sum_x2 += xs[l] * xs[l];
        const float av_x = std::sqrt(sum_x2 / 32);
        for (int l = 0; l < 32; ++l) weights[l] = av_x + std::fabs(xs[l]);
        scales[j] =
            fit_scale_min(32, nmax, xs, weights, L + 32 * j, mins[j], rmin, 0.1f, nstep, false);
        if (scales[j] > max_scale) max_scale = scales[j];
        if (mins[j] > max_min) max_min = mins[j];
    }
    const float inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
    const float inv_min = max_min > 0 ? 63.f / max_min : 0.f;
    int ls[8];
    int lm[8];
    for (int j = 0; j < 8; ++j) {
        ls[j] = std::min(63, nearest_int(inv_scale * scales[j]));
        lm[j] = std::min(63, nearest_int(inv_min * mins[j]));
    }
    store_f16(head, max_scale / 63.f);
    store_f16(head + 2, max_min / 63.f);
    pack_scale_min_k4(ls, lm, head + 4);

    // Requantize against the scales as they will actually be decoded. A sub-block whose scale
    // rounds to zero keeps the codes from the fit (they decode to -dmin*m either way).
    const float d = load_f16(head);
    const float dmin = load_f16(head + 2);
    for (int j = 0; j < 8; ++j) {
        uint8_t sc, m;
        unpack_scale_min_k4(j, head + 4, sc, m);
        const float dj = d * static_cast<float>(sc);
        if (dj == 0.0f) continue;
        const float dm = dmin * static_cast<float>(m);
        for (int i = 0; i < 32; ++i) {
            const int l = nearest_int((x[32 * j + i] + dm) / dj);
            L[32 * j + i] = static_cast<uint8_t>(std::clamp(l, 0, nmax));
        }
    }
}

// Packs 2-bit codes as Q2_K/Q3_K store them: qs[32h + l] holds elements 128h + l + 32s at bits
// 2s..2s+1 (s = 0..3).
void pack_2bit(const uint8_t* L, uint8_t* qs) {
    for (int h = 0; h < 2; ++h) {
        for (int l = 0; l < 32; ++l) {
            const uint8_t* q = L + 128 * h + l;
            qs[32 * h + l] =
                static_cast<uint8_t>(q[0] | (q[32] << 2) | (q[64] << 4) | (q[96] << 6));
        }
    }
}

}  // namespace

void quantize_q2_k(const float* src, uint8_t* dst, size_t nb) {
    uint8_t L[kQkK];
    for (size_t b = 0; b < nb; ++b, src += kQkK, dst += 84) {
        uint8_t* scales_out = dst;
        float scales[16];
        float mins[16];
        float weights[16];
        float max_scale = 0;
        float max_min = 0;
        for (int g = 0; g < 16; ++g) {
            const float* xs = src + 16 * g;
            for (int l = 0; l < 16; ++l) weights[l] = std::fabs(xs[l]);
            scales[g] =
                fit_scale_min(16, 3, xs, weights, L + 16 * g, mins[g], -0.5f, 0.1f, 15, true);
            max_scale = std::max(max_scale, scales[g]);
            max_min = std::max(max_min, mins[g]);
        }
        // Scales and mins become 4-bit multiples of d and dmin (low and high nibble).
        std::memset(scales_out, 0, 16);
        store_f16(dst + 80, max_scale > 0 ? max_scale / 15.f : 0.0f);
        store_f16(dst + 82, max_min > 0 ? max_min / 15.f : 0.0f);
        if (max_scale > 0) {
            const float iscale = 15.f / max_scale;
            for (int g = 0; g < 16; ++g) {
                scales_out[g] =
                    static_cast<uint8_t>(std::clamp(nearest_int(iscale * scales[g]), 0, 15));
            }
        }
        if (max_min > 0) {
            const float iscale = 15.f / max_min;
            for (int g = 0; g < 16; ++g) {
                const int l = std::clamp(nearest_int(iscale * mins[g]), 0, 15);
                scales_out[g] = static_cast<uint8_t>(scales_out[g] | (l << 4));
            }
        }
        const float d = load_f16(dst + 80);
        const float dmin = load_f16(dst + 82);
        for (int g = 0; g < 16; ++g) {
            const float dg = d * static_cast<float>(scales_out[g] & 0x0F);
            if (dg == 0.0f) continue;  // keep the fit's codes
            const float mg = dmin * static_cast<float>(scales_out[g] >> 4);
            for (int i = 0; i < 16; ++i) {
                const int l = nearest_int((src[16 * g + i] + mg) / dg);
                L[16 * g + i] = static_cast<uint8_t>(std::clamp(l, 0, 3));
            }
        }
        pack_2bit(L, dst + 16);
    }
}

void quantize_q3_k(const float* src, uint8_t* dst, size_t nb) {
    uint8_t L[kQkK];  // codes 0..7 (value + 4)
    for (size_t b = 0; b < nb; ++b, src += kQkK, dst += 110) {
        float scales[16];
        float max_scale = 0;
        float amax = 0;
        for (int g = 0; g < 16; ++g) {
            scales[g] = fit_scale_descent(16, 4, src + 16 * g, L + 16 * g);
            if (std::fabs(scales[g]) > amax) {
                amax = std::fabs(scales[g]);
                max_scale = scales[g];
            }
        }
        // Sixteen signed 6-bit scales (offset by 32): low nibbles in bytes 0..7 (two per byte),
        // the top two bits of scale g in byte 8 + g%4 at bit 2*(g/4).
        uint8_t* packed = dst + 96;
        std::memset(packed, 0, 12);
        if (max_scale != 0.0f) {
            const float iscale = -32.f / max_scale;
            for (int g = 0; g < 16; ++g) {
                const int l = std::clamp(nearest_int(iscale * scales[g]), -32, 31) + 32;
                if (g < 8) {
                    packed[g] = static_cast<uint8_t>(l & 0x0F);
                } else {
                    packed[g - 8] = static_cast<uint8_t>(packed[g - 8] | ((l & 0x0F) << 4));
                }
                packed[8 + g % 4] =
                    static_cast<uint8_t>(packed[8 + g % 4] | ((l >> 4) << (2 * (g / 4))));
            }
            store_f16(dst + 108, 1 / iscale);
        } else {
            store_f16(dst + 108, 0.0f);
        }
        const float d = load_f16(dst + 108);
        for (int g = 0; g < 16; ++g) {
            const int low = g < 8 ? (packed[g] & 0x0F) : (packed[g - 8] >> 4);
            const int high = (packed[8 + g % 4] >> (2 * (g / 4))) & 3;
            const float dg = d * static_cast<float>((low | (high << 4)) - 32);
            if (dg == 0.0f) continue;  // keep the fit's codes
            for (int i = 0; i < 16; ++i) {
                const int l = std::clamp(nearest_int(src[16 * g + i] / dg), -4, 3);
                L[16 * g + i] = static_cast<uint8_t>(l + 4);
            }
        }
        // High bit of element j (set when the code is >= 4) goes to hmask[j % 32], bit j / 32;
        // the remaining two bits are packed like Q2_K.
        uint8_t* hmask = dst;
        std::memset(hmask, 0, 32);
        for (int j = 0; j < 256; ++j) {
            if (L[j] > 3) {
                hmask[j % 32] = static_cast<uint8_t>(hmask[j % 32] | (1 << (j / 32)));
                L[j] = static_cast<uint8_t>(L[j] - 4);
            }
        }
        pack_2bit(L, dst + 32);
    }
}

void quantize_q4_k(const float* src, uint8_t* dst, size_t nb) {
    uint8_t L[kQkK];
    for (size_t b = 0; b < nb; ++b, src += kQkK, dst += 144) {
        encode_k_scales(src, dst, L, 15, -1.0f, 20);
        // Chunk c: low nibble = element 64c + l, high nibble = element 64c + 32 + l.
        uint8_t* qs = dst + 16;
        for (int c = 0; c < 4; ++c) {
            for (int l = 0; l < 32; ++l) {
                qs[32 * c + l] = static_cast<uint8_t>(L[64 * c + l] | (L[64 * c + 32 + l] << 4));
            }
        }
    }
}

void quantize_q5_k(const float* src, uint8_t* dst, size_t nb) {
    uint8_t L[kQkK];
    for (size_t b = 0; b < nb; ++b, src += kQkK, dst += 176) {
        encode_k_scales(src, dst, L, 31, -0.5f, 15);
        uint8_t* qh = dst + 16;
        uint8_t* qs = dst + 48;
        std::memset(qh, 0, 32);
        for (int c = 0; c < 4; ++c) {
            for (int l = 0; l < 32; ++l) {
                const int lo = L[64 * c + l];
                const int hi = L[64 * c + 32 + l];
                qs[32 * c + l] = static_cast<uint8_t>((lo & 0x0F) | ((hi & 0x0F) << 4));
                qh[l] |= static_cast<uint8_t>(((lo >> 4) << (2 * c)) | ((hi >> 4) << (2 * c + 1)));
            }
        }
    }
}

void quantize_q6_k(const float* src, uint8_t* dst, size_t nb) {
    uint8_t L[kQkK];  // codes 0..63 (value + 32)
    for (size_t b = 0; b < nb; ++b, src += kQkK, dst += 210) {
        float scales[16];
        float max_scale = 0;
        float max_abs_scale = 0;
        for (int g = 0; g < 16; ++g) {
            scales[g] = fit_scale_symmetric(16, 32, src + 16 * g, L + 16 * g);
            if (std::fabs(scales[g]) > max_abs_scale) {
                max_abs_scale = std::fabs(scales[g]);
                max_scale = scales[g];
            }
        }
        if (max_abs_scale < kGroupMaxEps) {
            std::memset(dst, 0, 210);
            continue;
        }
        // The group scale of largest magnitude maps to -128 so its sign is carried by d.
        const float iscale = -128.f / max_scale;
        store_f16(dst + 208, 1 / iscale);
        auto* qscales = reinterpret_cast<int8_t*>(dst + 192);
        for (int g = 0; g < 16; ++g) {
            qscales[g] =
                static_cast<int8_t>(std::clamp(nearest_int(iscale * scales[g]), -128, 127));
        }
        const float d = load_f16(dst + 208);
        for (int g = 0; g < 16; ++g) {
            const float dg = d * static_cast<float>(qscales[g]);
            if (dg == 0.0f) continue;  // keep the fit's codes
            for (int i = 0; i < 16; ++i) {
                const int l = std::clamp(nearest_int(src[16 * g + i] / dg), -32, 31);
                L[16 * g + i] = static_cast<uint8_t>(l + 32);
            }
        }
        // Half h packs elements 128h + 32k + l (k = 0..3) into ql[64h + ...] and qh[32h + l].
        for (int h = 0; h < 2; ++h) {
            uint8_t* ql = dst + 64 * h;
            uint8_t* qh = dst + 128 + 32 * h;
            const uint8_t* q = L + 128 * h;
            for (int l = 0; l < 32; ++l) {
                ql[l] = static_cast<uint8_t>((q[l] & 0x0F) | ((q[l + 64] & 0x0F) << 4));
                ql[l + 32] = static_cast<uint8_t>((q[l + 32] & 0x0F) | ((q[l + 96] & 0x0F) << 4));
                qh[l] = static_cast<uint8_t>((q[l] >> 4) | ((q[l + 32] >> 4) << 2) |
                                             ((q[l + 64] >> 4) << 4) | ((q[l + 96] >> 4) << 6));
            }
        }
    }
}

void quantize_q8_k(const float* src, uint8_t* dst, size_t nb) {
    for (size_t b = 0; b < nb; ++b, src += kQkK, dst += 292) {
        float max = 0;
        float amax = 0;
        for (size_t j = 0; j < kQkK; ++j) {
            if (std::fabs(src[j]) > amax) {
                amax = std::fabs(src[j]);
                max = src[j];
            }
        }
        if (amax == 0.0f) {
            std::memset(dst, 0, 292);
            continue;
        }
        const float iscale = -127.f / max;
        int8_t q[kQkK];
        for (size_t j = 0; j < kQkK; ++j) {
            q[j] = static_cast<int8_t>(std::clamp(nearest_int(iscale * src[j]), -128, 127));
            dst[4 + j] = static_cast<uint8_t>(q[j]);
        }
        store_u32(dst, std::bit_cast<uint32_t>(1 / iscale));
        for (size_t g = 0; g < 16; ++g) {
            int sum = 0;
            for (size_t i = 0; i < 16; ++i) sum += q[16 * g + i];
            const auto s = static_cast<uint16_t>(static_cast<int16_t>(sum));
            dst[260 + 2 * g] = static_cast<uint8_t>(s & 0xFF);
            dst[261 + 2 * g] = static_cast<uint8_t>(s >> 8);
        }
    }
}

}  // namespace hearth::quant::detail
