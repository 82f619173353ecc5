// Decoders against an element-wise oracle on random blocks. The vectors exercise two inputs;
// random bytes reach every bit of every field (negative Q6_K scales, all Q3_K scale bits, every
// qh bit). The oracle is written per element straight from the formulas in QUANT_FORMATS.md
// ("element 128h + 32s + 16p + l uses ...") and evaluates in float64, so it shares neither code
// nor loop structure with the decoders; results agree to float32 rounding.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "quant/quant_ref.h"

namespace hearth::quant {
namespace {

constexpr int kIq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                            1,    13,   25,  38,  53,  69,  89,  113};

double f16(const uint8_t* p) {
    const int h = p[0] | (p[1] << 8);
    const double sign = (h & 0x8000) ? -1.0 : 1.0;
    const int exp = (h >> 10) & 31;
    const int mant = h & 1023;
    return exp == 0 ? sign * std::ldexp(mant, -24) : sign * std::ldexp(1024 + mant, exp - 25);
}
int lo(uint8_t b) {
    return b & 15;
}
int hi(uint8_t b) {
    return b >> 4;
}

// An element's value and the sum of magnitudes of the terms that make it (for the tolerance).
struct Value {
    double v;
    double mag;
};
Value prod(double a, double b) {
    return {a * b, std::fabs(a * b)};
}
Value affine(double a, double b, double c) {  // a*b + c
    return {a * b + c, std::fabs(a * b) + std::fabs(c)};
}

// Q4_K/Q5_K scale and min of sub-block j, from the description of the 12-byte packing.
void k4_scale_min(const uint8_t* s, int j, int& sc, int& m) {
    if (j < 4) {
        sc = s[j] & 63;
        m = s[j + 4] & 63;
    } else {
        sc = (s[j + 4] & 15) | ((s[j - 4] >> 6) << 4);
        m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
    }
}

Value oracle(Type t, const uint8_t* b, int e) {
    switch (t) {
        case Type::Q4_0: {
            const int nib = e < 16 ? lo(b[2 + e]) : hi(b[2 + e - 16]);
            return prod(nib - 8, f16(b));
        }
        case Type::Q4_1: {
            const int nib = e < 16 ? lo(b[4 + e]) : hi(b[4 + e - 16]);
            return affine(nib, f16(b), f16(b + 2));
        }
        case Type::Q5_0:
        case Type::Q5_1: {
            const bool has_min = t == Type::Q5_1;
            const uint8_t* qh = b + (has_min ? 4 : 2);
            const uint8_t* qs = qh + 4;
            const int bit = (qh[e / 8] >> (e % 8)) & 1;  // bit e of the LE uint32
            const int code = (e < 16 ? lo(qs[e]) : hi(qs[e - 16])) | (bit << 4);
            return has_min ? affine(code, f16(b), f16(b + 2)) : prod(code - 16, f16(b));
        }
        case Type::Q8_0:
            return prod(static_cast<int8_t>(b[2 + e]), f16(b));
        case Type::Q2_K:
        case Type::Q3_K: {
            const int h = e / 128, s = (e % 128) / 32, p = (e % 32) / 16, l = e % 16;
            const int j = 8 * h + 2 * s + p;
            if (t == Type::Q2_K) {
                const int q = (b[16 + 32 * h + 16 * p + l] >> (2 * s)) & 3;
                const int sc = b[j];
                const Value a = prod(f16(b + 80) * (sc & 15), q);
                const Value m = prod(f16(b + 82), sc >> 4);
                return {a.v - m.v, a.mag + m.mag};
            }
            const int low2 = (b[32 + 32 * h + 16 * p + l] >> (2 * s)) & 3;
            const int high = (b[16 * p + l] >> (4 * h + s)) & 1;
            const uint8_t* sc = b + 96;
            const int sl = j < 8 ? (sc[j] & 15) : (sc[j - 8] >> 4);
            const int sh = (sc[8 + j % 4] >> (2 * (j / 4))) & 3;
            return prod(f16(b + 108) * ((sl | (sh << 4)) - 32), high ? low2 : low2 - 4);
        }
        case Type::Q4_K:
        case Type::Q5_K: {
            const int c = e / 64, r = e % 64, l = r % 32;
            const int j = 2 * c + (r >= 32 ? 1 : 0);
            int sc, m;
            k4_scale_min(b + 4, j, sc, m);
            const uint8_t* qs = b + (t == Type::Q4_K ? 16 : 48);
            int q = r < 32 ? lo(qs[32 * c + l]) : hi(qs[32 * c + l]);
            if (t == Type::Q5_K) q += 16 * ((b[16 + l] >> j) & 1);
            const Value a = prod(f16(b) * sc, q);
            const Value mm = prod(f16(b + 2), m);
            return {a.v - mm.v, a.mag + mm.mag};
        }
        case Type::Q6_K: {
            const int h = e / 128, k = (e % 128) / 32, l = e % 32;
            const uint8_t* L = b + 64 * h;
            const uint8_t* H = b + 128 + 32 * h;
            const int nib = k == 0   ? lo(L[l])
                            : k == 1 ? lo(L[l + 32])
                            : k == 2 ? hi(L[l])
                                     : hi(L[l + 32]);
            const int code = nib | (((H[l] >> (2 * k)) & 3) << 4);
            return prod(f16(b + 208) * static_cast<int8_t>(b[192 + e / 16]), code - 32);
        }
        case Type::Q8_K: {
            const float d =
                std::bit_cast<float>(static_cast<uint32_t>(b[0] | (b[1] << 8) | (b[2] << 16)) |
                                     (static_cast<uint32_t>(b[3]) << 24));
            return prod(d, static_cast<int8_t>(b[4 + e]));
        }
        case Type::IQ4_NL: {
            const int code = e < 16 ? lo(b[2 + e]) : hi(b[2 + e - 16]);
            return prod(f16(b), kIq4nl[code]);
        }
        case Type::IQ4_XS: {
            const int ib = e / 32, r = e % 32;
            const int scales_h = b[2] | (b[3] << 8);
            const int ls =
                ((b[4 + ib / 2] >> (4 * (ib % 2))) & 15) | (((scales_h >> (2 * ib)) & 3) << 4);
            const uint8_t q = b[8 + 16 * ib + r % 16];
            return prod(f16(b) * (ls - 32), kIq4nl[r < 16 ? lo(q) : hi(q)]);
        }
        default:
            ADD_FAILURE() << "no oracle for " << traits(t).name;
            return {0, 0};
    }
}

// Byte offsets of the f16 scale fields, overwritten with sane values so that products stay
// finite and the comparison is about layout, not overflow.
std::vector<int> f16_fields(Type t) {
    switch (t) {
        case Type::Q4_0:
        case Type::Q5_0:
        case Type::Q8_0:
        case Type::IQ4_NL:
        case Type::IQ4_XS:
            return {0};
        case Type::Q4_1:
        case Type::Q5_1:
        case Type::Q4_K:
        case Type::Q5_K:
            return {0, 2};
        case Type::Q2_K:
            return {80, 82};
        case Type::Q3_K:
            return {108};
        case Type::Q6_K:
            return {208};
        default:
            return {};
    }
}

TEST(QuantLayout, DecodersMatchElementOracleOnRandomBlocks) {
    constexpr Type kTypes[] = {Type::Q4_0, Type::Q4_1,   Type::Q5_0,  Type::Q5_1, Type::Q8_0,
                               Type::Q2_K, Type::Q3_K,   Type::Q4_K,  Type::Q5_K, Type::Q6_K,
                               Type::Q8_K, Type::IQ4_NL, Type::IQ4_XS};
    std::mt19937 rng(1234);
    std::uniform_int_distribution<int> byte(0, 255);
    std::uniform_real_distribution<float> scale(-2.0f, 2.0f);
    for (Type t : kTypes) {
        const auto& tr = traits(t);
        const size_t blocks = 64;
        std::vector<uint8_t> data(blocks * tr.type_size);
        for (auto& x : data) x = static_cast<uint8_t>(byte(rng));
        for (size_t blk = 0; blk < blocks; ++blk) {
            uint8_t* p = data.data() + blk * tr.type_size;
            for (int off : f16_fields(t)) {
                const uint16_t h = f32_to_f16(scale(rng));
                p[off] = static_cast<uint8_t>(h & 0xFF);
                p[off + 1] = static_cast<uint8_t>(h >> 8);
            }
            if (t == Type::Q8_K) {
                const auto bits = std::bit_cast<uint32_t>(scale(rng));
                for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(bits >> (8 * i));
            }
        }
        const size_t n = blocks * tr.block_size;
        std::vector<float> y(n);
        dequantize_row(t, data.data(), y.data(), n);
        for (size_t i = 0; i < n; ++i) {
            const uint8_t* blk = data.data() + (i / tr.block_size) * tr.type_size;
            const Value want = oracle(t, blk, static_cast<int>(i % tr.block_size));
            ASSERT_NEAR(y[i], want.v, 1e-6 * want.mag + 1e-30) << tr.name << " element " << i;
        }
    }
}

}  // namespace
}  // namespace hearth::quant
