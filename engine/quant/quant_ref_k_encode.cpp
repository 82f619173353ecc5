// Reference encoders for Q4_K, Q5_K, Q6_K and Q8_K, following ggml's quantize_row_*_ref
// (no importance matrix). The scale searches are described in QUANT_FORMATS.md; every float
// expression keeps ggml's evaluation order so the bytes match ggml's output exactly.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>

#include "quant/quant_ref_impl.h"

namespace hearth::quant::detail {

namespace {

constexpr size_t kQkK = 256;
constexpr float kGroupMaxEps = 1e-15f;  // below this a group counts as all zero

// Fits x[i] ~= scale * L[i] - min_out with codes L in 0..nmax, minimising the weighted squared
// error. Starts from the plain min/max grid, then tries nstep+1 slightly different grid spacings
// (rmin + rdelta*k extra steps over the range) and, for each, solves the 2x2 least-squares
// problem for scale and offset with the codes held fixed. Keeps the best. The offset is never
// positive (a block whose values are all positive still starts at zero); the returned min_out is
// its negation, so it is >= 0. Returns the scale (0 for a constant block).
float fit_scale_min(int n, int nmax, const float* x, const float* w, uint8_t* L, float& min_out,
                    float rmin, float rdelta, int nstep) {
    float min = x[0];
    float max = x[0];
    float sum_w = w[0];
    float sum_x = sum_w * x[0];
    for (int i = 1; i < n; ++i) {
        if (x[i] < min) min = x[i];
        if (x[i] > max) max = x[i];
        sum_w += w[i];
        sum_x += w[i] * x[i];
    }
    if (min > 0) min = 0;
    if (max == min) {
        for (int i = 0; i < n; ++i) L[i] = 0;
        min_out = -min;
        return 0.0f;
    }
    float iscale = static_cast<float>(nmax) / (max - min);
    float scale = 1 / iscale;
    float best_error = 0;
    for (int i = 0; i < n; ++i) {
        const int l = std::clamp(nearest_int(iscale * (x[i] - min)), 0, nmax);
        L[i] = static_cast<uint8_t>(l);
        const float diff = scale * static_cast<float>(L[i]) + min - x[i];
        best_error += w[i] * (diff * diff);
    }
    std::array<uint8_t, 32> trial{};
    for (int step = 0; step <= nstep; ++step) {
        iscale =
            (rmin + rdelta * static_cast<float>(step) + static_cast<float>(nmax)) / (max - min);
        float sum_l = 0, sum_l2 = 0, sum_xl = 0;
        for (int i = 0; i < n; ++i) {
            const int l = std::clamp(nearest_int(iscale * (x[i] - min)), 0, nmax);
            trial[static_cast<size_t>(i)] = static_cast<uint8_t>(l);
            const float fl = static_cast<float>(l);
            sum_l += w[i] * fl;
            sum_l2 += w[i] * fl * fl;
            sum_xl += w[i] * fl * x[i];
        }
        const float det = sum_w * sum_l2 - sum_l * sum_l;
        if (!(det > 0)) continue;  // also skips NaN, as ggml's `if (D > 0)` does
        float this_scale = (sum_w * sum_xl - sum_x * sum_l) / det;
        float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / det;
        if (this_min > 0) {
            this_min = 0;
            this_scale = sum_xl / sum_l2;
        }
        float error = 0;
        for (int i = 0; i < n; ++i) {
            const float diff =
                this_scale * static_cast<float>(trial[static_cast<size_t>(i)]) + this_min - x[i];
            error += w[i] * (diff * diff);
        }
        if (error < best_error) {
            for (int i = 0; i < n; ++i) L[i] = trial[static_cast<size_t>(i)];
            best_error = error;
            scale = this_scale;
            min = this_min;
        }
    }
    min_out = -min;
    return scale;
}

// Symmetric fit for Q6_K: codes in -nmax..nmax-1 (stored offset by nmax in L), weights x^2.
// Tries the grid that maps the largest-magnitude value to -nmax, then 18 nearby grids
// (nmax +- 0.1k), each with the least-squares scale for its codes, and keeps the best fit.
float fit_scale_symmetric(int n, int nmax, const float* x, uint8_t* L) {
    float max = 0;
    float amax = 0;
    for (int i = 0; i < n; ++i) {
        const float ax = std::fabs(x[i]);
        if (ax > amax) {
            amax = ax;
            max = x[i];
        }
    }
    if (amax < kGroupMaxEps) {
        for (int i = 0; i < n; ++i) L[i] = 0;
        return 0.0f;
    }
    // Least-squares sums for the codes given by iscale; also writes L when asked.
    auto sums = [&](float iscale, float& sumlx, float& suml2, bool store) {
        sumlx = 0;
        suml2 = 0;
        for (int i = 0; i < n; ++i) {
            const int l = std::clamp(nearest_int(iscale * x[i]), -nmax, nmax - 1);
            if (store) L[i] = static_cast<uint8_t>(l + nmax);
            const float w = x[i] * x[i];
            const float fl = static_cast<float>(l);
            sumlx += w * x[i] * fl;
            suml2 += w * fl * fl;
        }
    };
    float sumlx, suml2;
    sums(static_cast<float>(-nmax) / max, sumlx, suml2, true);
    float scale = suml2 != 0 ? sumlx / suml2 : 0.0f;
    float best = scale * sumlx;
    for (int k = -9; k <= 9; ++k) {
        if (k == 0) continue;
        const float iscale = -(static_cast<float>(nmax) + 0.1f * static_cast<float>(k)) / max;
        sums(iscale, sumlx, suml2, false);
        if (suml2 > 0 && sumlx * sumlx > best * suml2) {
            sums(iscale, sumlx, suml2, true);
            scale = sumlx / suml2;
            best = scale * sumlx;
        }
    }
    return scale;
}

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
        scales[j] = fit_scale_min(32, nmax, xs, weights, L + 32 * j, mins[j], rmin, 0.1f, nstep);
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

}  // namespace

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
