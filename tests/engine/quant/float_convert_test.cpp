// f16/bf16 conversions against an independent float64 oracle: every half and bfloat16 value
// decodes exactly, and float32 -> 16-bit picks the nearest value with ties to even.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "quant/quant_ref.h"

namespace hearth::quant {
namespace {

// The value a binary16 bit pattern stands for, from the IEEE definition, in float64.
double half_value(uint16_t h) {
    const int sign = (h & 0x8000) ? -1 : 1;
    const int exp = (h >> 10) & 0x1F;
    const int mant = h & 0x3FF;
    if (exp == 0) return sign * std::ldexp(mant, -24);
    if (exp == 31) return mant ? std::numeric_limits<double>::quiet_NaN() : sign * INFINITY;
    return sign * std::ldexp(1024 + mant, exp - 25);
}

// Nearest binary16 for a finite non-negative float by exhaustive table + ties to even. Inf takes
// the slot after 65504 as 65536, which is what IEEE overflow rounding amounts to.
uint16_t oracle_f16_positive(float f) {
    static const std::vector<double> values = [] {
        std::vector<double> v;
        for (uint32_t h = 0; h <= 0x7BFF; ++h) v.push_back(half_value(static_cast<uint16_t>(h)));
        v.push_back(65536.0);  // stands for 0x7C00
        return v;
    }();
    const double x = f;
    if (x >= 65536.0) return 0x7C00;
    const auto hi_it = std::upper_bound(values.begin(), values.end(), x);
    const auto hi = static_cast<uint16_t>(hi_it - values.begin());
    const auto lo = static_cast<uint16_t>(hi - 1);
    const double dlo = x - values[lo];
    const double dhi = values[hi] - x;
    if (dlo < dhi) return lo;
    if (dhi < dlo) return hi;
    return (lo & 1) ? hi : lo;
}

uint16_t oracle_f16(float f) {
    const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
    if (std::isinf(f)) return sign | 0x7C00;
    return sign | oracle_f16_positive(std::fabs(f));
}

// Nearest bfloat16 for a finite float: the two candidates around it, ties to even.
uint16_t oracle_bf16(float f) {
    const uint32_t x = std::bit_cast<uint32_t>(f);
    const auto lo = static_cast<uint16_t>(x >> 16);  // truncation toward zero
    const auto hi = static_cast<uint16_t>(lo + 1);   // next one away from zero (may be inf)
    const double v = std::fabs(static_cast<double>(f));
    const double vlo = std::fabs(static_cast<double>(bf16_to_f32(lo)));
    const double vhi = std::fabs(static_cast<double>(std::bit_cast<float>(uint32_t{hi} << 16)));
    if ((x & 0xFFFF) == 0) return lo;
    // Past the largest finite bfloat16, the upper candidate is inf; IEEE treats it as 2^128.
    const double vhi_eff = std::isinf(vhi) ? std::ldexp(1.0, 128) : vhi;
    if (v - vlo < vhi_eff - v) return lo;
    if (vhi_eff - v < v - vlo) return hi;
    return (lo & 1) ? hi : lo;
}

TEST(FloatConvert, EveryHalfDecodesExactly) {
    for (uint32_t h = 0; h <= 0xFFFF; ++h) {
        const float got = f16_to_f32(static_cast<uint16_t>(h));
        const double want = half_value(static_cast<uint16_t>(h));
        if (std::isnan(want)) {
            ASSERT_TRUE(std::isnan(got)) << std::hex << h;
            ASSERT_EQ(std::signbit(got), (h & 0x8000) != 0) << std::hex << h;
        } else {
            ASSERT_EQ(static_cast<double>(got), want) << std::hex << h;
            ASSERT_EQ(std::signbit(got), (h & 0x8000) != 0) << std::hex << h;  // -0.0 too
        }
    }
}

TEST(FloatConvert, HalfRoundTripsThroughFloat) {
    for (uint32_t h = 0; h <= 0xFFFF; ++h) {
        const auto hh = static_cast<uint16_t>(h);
        const uint16_t back = f32_to_f16(f16_to_f32(hh));
        if ((h & 0x7FFF) > 0x7C00) {
            // NaN: stays NaN, sign and top payload bits kept, quiet bit set.
            ASSERT_EQ(back, hh | 0x0200) << std::hex << h;
        } else {
            ASSERT_EQ(back, hh) << std::hex << h;
        }
    }
}

TEST(FloatConvert, FloatToHalfMatchesOracleAtEveryTie) {
    // Midpoints between neighbouring halves (all exactly representable as float) are where
    // round-to-nearest-even matters; check them and the floats one ulp either side.
    for (uint32_t h = 0; h < 0x7C00; ++h) {
        const double mid = (half_value(static_cast<uint16_t>(h)) +
                            (h == 0x7BFF ? 65536.0 : half_value(static_cast<uint16_t>(h + 1)))) /
                           2;
        const auto f = static_cast<float>(mid);
        ASSERT_EQ(static_cast<double>(f), mid);
        for (float g : {std::nextafter(f, 0.0f), f, std::nextafter(f, INFINITY)}) {
            ASSERT_EQ(f32_to_f16(g), oracle_f16(g)) << g;
            ASSERT_EQ(f32_to_f16(-g), oracle_f16(-g)) << -g;
        }
    }
}

TEST(FloatConvert, FloatToHalfMatchesOracleOnBitPatternSweep) {
    // A stride prime to 2^32 visits every exponent and many mantissa patterns.
    for (uint64_t i = 0; i < (uint64_t{1} << 32); i += 16381) {
        const float f = std::bit_cast<float>(static_cast<uint32_t>(i));
        if (std::isnan(f)) {
            const uint16_t h = f32_to_f16(f);
            ASSERT_TRUE((h & 0x7FFF) > 0x7C00) << std::hex << i;
            continue;
        }
        ASSERT_EQ(f32_to_f16(f), oracle_f16(f)) << std::hex << i;
#if defined(__FLT16_MAX__)
        // A second, compiler-provided conversion where the toolchain has _Float16.
        ASSERT_EQ(f32_to_f16(f), std::bit_cast<uint16_t>(static_cast<_Float16>(f))) << f;
#endif
    }
}

TEST(FloatConvert, HalfEdgeCases) {
    EXPECT_EQ(f32_to_f16(0.0f), 0x0000);
    EXPECT_EQ(f32_to_f16(-0.0f), 0x8000);
    EXPECT_EQ(f32_to_f16(1.0f), 0x3C00);
    EXPECT_EQ(f32_to_f16(65504.0f), 0x7BFF);
    EXPECT_EQ(f32_to_f16(std::nextafter(65520.0f, 0.0f)), 0x7BFF);
    EXPECT_EQ(f32_to_f16(65520.0f), 0x7C00);  // tie with an odd mantissa: up, to inf
    EXPECT_EQ(f32_to_f16(1e10f), 0x7C00);
    EXPECT_EQ(f32_to_f16(-INFINITY), 0xFC00);
    EXPECT_EQ(f32_to_f16(0x1p-24f), 0x0001);         // smallest subnormal
    EXPECT_EQ(f32_to_f16(0x1p-25f), 0x0000);         // tie between 0 and it: even is 0
    EXPECT_EQ(f32_to_f16(0x1.000002p-25f), 0x0001);  // just above the tie
    EXPECT_EQ(f32_to_f16(0x1.8p-24f), 0x0002);       // tie between 1 and 2 ulps: even
    EXPECT_EQ(f32_to_f16(0x1.ff8p-15f), 0x03FF);     // largest subnormal
    EXPECT_EQ(f32_to_f16(0x1.ffcp-15f), 0x0400);     // tie, odd: up into the smallest normal
    EXPECT_EQ(f32_to_f16(std::nanf("")) & 0x7E00, 0x7E00);
    EXPECT_EQ(f32_to_f16(std::bit_cast<float>(0x7F800001u)) & 0x7E00, 0x7E00);  // sNaN stays NaN
    EXPECT_TRUE(std::isinf(f16_to_f32(0x7C00)));
    EXPECT_EQ(f16_to_f32(0x0001), 0x1p-24f);
}

TEST(FloatConvert, EveryBfloat16RoundTrips) {
    for (uint32_t h = 0; h <= 0xFFFF; ++h) {
        const auto hh = static_cast<uint16_t>(h);
        const float f = bf16_to_f32(hh);
        ASSERT_EQ(std::bit_cast<uint32_t>(f), h << 16);
        if ((h & 0x7FFF) > 0x7F80) {
            ASSERT_EQ(f32_to_bf16(f), hh | 0x0040) << std::hex << h;
        } else {
            ASSERT_EQ(f32_to_bf16(f), hh) << std::hex << h;
        }
    }
}

TEST(FloatConvert, FloatToBfloat16MatchesOracle) {
    for (uint64_t i = 0; i < (uint64_t{1} << 32); i += 16381) {
        const float f = std::bit_cast<float>(static_cast<uint32_t>(i));
        if (std::isnan(f)) {
            const uint16_t h = f32_to_bf16(f);
            ASSERT_TRUE((h & 0x7FFF) > 0x7F80) << std::hex << i;
            continue;
        }
        if (std::isinf(f)) continue;
        ASSERT_EQ(f32_to_bf16(f), oracle_bf16(f)) << std::hex << i;
    }
    // Ties in both parities, and every pattern's exact midpoint for a few exponents.
    for (uint32_t hi = 0x3F00; hi < 0x3F80; ++hi) {
        const float mid = std::bit_cast<float>((hi << 16) | 0x8000u);
        ASSERT_EQ(f32_to_bf16(mid), oracle_bf16(mid));
        ASSERT_EQ(f32_to_bf16(mid), (hi & 1) ? hi + 1 : hi);
    }
    EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x7F7FFFFFu)), 0x7F80);  // max float: inf
    EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x7F800001u)), 0x7FC0);  // sNaN: quiet NaN
    EXPECT_EQ(f32_to_bf16(-0.0f), 0x8000);
}

}  // namespace
}  // namespace hearth::quant
