// Quantize -> dequantize error on seeded random data. Bounds are per format: a relative RMS
// error on Gaussian data (set a little above the measured value, so a real regression fails)
// and, for the 32-element formats, the worst-case per-element error their rounding guarantees.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <random>
#include <vector>

#include "quant/quant_ref.h"

namespace hearth::quant {
namespace {

struct Bound {
    Type type;
    double max_rel_rms;  // worst block's sqrt(sum err^2 / sum x^2), over 256-element blocks
};

// Relative RMS error bounds on N(0,1) data (per-block scale spread over 1e-3..1e3).
// Measured worst values (x86-64, this seed): F16 2.34e-4, BF16 1.83e-3, Q4_0 0.101, Q4_1 0.0913,
// Q5_0 0.050, Q5_1 0.0439, Q8_0 0.0063, Q4_K 0.0811, Q5_K 0.0428, Q6_K 0.0214, Q8_K 0.0095,
// IQ4_NL 0.0879, IQ4_XS 0.0881, Q2_K 0.357, Q3_K 0.172.
constexpr Bound kBounds[] = {
    {Type::F32, 0.0},      {Type::F16, 2.8e-4},   {Type::BF16, 2.2e-3}, {Type::Q4_0, 0.12},
    {Type::Q4_1, 0.11},    {Type::Q5_0, 0.06},    {Type::Q5_1, 0.053},  {Type::Q8_0, 0.0076},
    {Type::Q4_K, 0.097},   {Type::Q5_K, 0.052},   {Type::Q6_K, 0.026},  {Type::Q8_K, 0.0114},
    {Type::IQ4_NL, 0.105}, {Type::IQ4_XS, 0.105}, {Type::Q2_K, 0.43},   {Type::Q3_K, 0.21},
};

// n values, N(0,1) times a per-256-block scale 10^U(-3,3), seeded so runs are reproducible.
std::vector<float> gaussian_row(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_real_distribution<float> expo(-3.0f, 3.0f);
    std::vector<float> x(n);
    float scale = 1.0f;
    for (size_t i = 0; i < n; ++i) {
        if (i % 256 == 0) scale = std::pow(10.0f, expo(rng));
        x[i] = normal(rng) * scale;
    }
    return x;
}

std::vector<float> round_trip(Type t, const std::vector<float>& x) {
    std::vector<std::byte> q(row_bytes(t, x.size()));
    std::vector<float> y(x.size());
    EXPECT_TRUE(quantize(t, x, q));
    EXPECT_TRUE(dequantize(t, q, y));
    return y;
}

// Largest relative RMS error over 256-element blocks (or the whole row if shorter).
double worst_rel_rms(const std::vector<float>& x, const std::vector<float>& y) {
    double worst = 0;
    const size_t step = std::min<size_t>(256, x.size());
    for (size_t b = 0; b < x.size(); b += step) {
        double err = 0, ref = 0;
        for (size_t i = b; i < b + step; ++i) {
            err += (double(y[i]) - x[i]) * (double(y[i]) - x[i]);
            ref += double(x[i]) * x[i];
        }
        worst = std::max(worst, std::sqrt(err / ref));
    }
    return worst;
}

TEST(QuantRoundTrip, RelativeRmsWithinBound) {
    for (const Bound& bound : kBounds) {
        ASSERT_TRUE(can_quantize(bound.type)) << traits(bound.type).name;
        double worst = 0;
        for (size_t n : {size_t{256}, size_t{1024}, size_t{4096}, size_t{16384}}) {
            const auto x = gaussian_row(n, static_cast<uint32_t>(n) * 7 + 1);
            worst = std::max(worst, worst_rel_rms(x, round_trip(bound.type, x)));
        }
        std::printf("  %-5s worst relative RMS error %.3g (bound %.3g)\n",
                    std::string(traits(bound.type).name).c_str(), worst, bound.max_rel_rms);
        EXPECT_LE(worst, bound.max_rel_rms) << traits(bound.type).name;
    }
}

// Error of storing v as f16: half an ulp, relative 2^-11 for normals, absolute 2^-25 below.
double f16_error(double v) {
    return std::max(std::fabs(v) * 0x1p-11, 0x1p-25);
}

// Worst-case per-element error the 32-element formats' rounding allows for one block:
// half a step (a full step at the clamped end of Q4_0/Q5_0, whose grid is one code short on
// the side opposite the largest value), plus what storing d and m as f16 can add.
double block_error_bound(Type t, const float* x) {
    double amax = 0, min = x[0], max = x[0];
    for (int i = 0; i < 32; ++i) {
        amax = std::max(amax, std::fabs(double(x[i])));
        min = std::min(min, double(x[i]));
        max = std::max(max, double(x[i]));
    }
    double bound = 0;
    switch (t) {
        case Type::Q4_0:
            bound = amax / 8 + 8 * f16_error(amax / 8);
            break;
        case Type::Q5_0:
            bound = amax / 16 + 16 * f16_error(amax / 16);
            break;
        case Type::Q8_0:
            bound = amax / 254 + 127 * f16_error(amax / 127);
            break;
        case Type::Q4_1: {
            const double d = (max - min) / 15;
            bound = d / 2 + 15 * f16_error(d) + f16_error(min);
            break;
        }
        case Type::Q5_1: {
            const double d = (max - min) / 31;
            bound = d / 2 + 31 * f16_error(d) + f16_error(min);
            break;
        }
        default:
            ADD_FAILURE() << "no bound for " << traits(t).name;
    }
    return bound * (1 + 1e-5);  // float32 arithmetic inside the encoder
}

TEST(QuantRoundTrip, BasicFormatsMaxErrorWithinRoundingBound) {
    for (Type t : {Type::Q4_0, Type::Q4_1, Type::Q5_0, Type::Q5_1, Type::Q8_0}) {
        for (size_t n : {size_t{32}, size_t{64}, size_t{1024}, size_t{8192}}) {
            const auto x = gaussian_row(n, static_cast<uint32_t>(n) + 3);
            const auto y = round_trip(t, x);
            for (size_t b = 0; b < n; b += 32) {
                const double bound = block_error_bound(t, &x[b]);
                for (size_t i = b; i < b + 32; ++i) {
                    ASSERT_LE(std::fabs(double(y[i]) - x[i]), bound)
                        << traits(t).name << " n=" << n << " element " << i;
                }
            }
        }
    }
}

TEST(QuantRoundTrip, FloatFormatsRelativeErrorPerElement) {
    const auto x = gaussian_row(4096, 11);
    const auto y16 = round_trip(Type::F16, x);
    const auto yb16 = round_trip(Type::BF16, x);
    for (size_t i = 0; i < x.size(); ++i) {
        ASSERT_LE(std::fabs(double(y16[i]) - x[i]), f16_error(x[i])) << i;
        ASSERT_LE(std::fabs(double(yb16[i]) - x[i]), std::fabs(double(x[i])) * 0x1p-8) << i;
    }
}

TEST(QuantRoundTrip, ZerosStayZero) {
    for (const Bound& b : kBounds) {
        const std::vector<float> x(512, 0.0f);
        for (float v : round_trip(b.type, x)) ASSERT_EQ(v, 0.0f) << traits(b.type).name;
    }
}

// Blocks are independent: a block of NaN/inf must not change the bytes of its neighbours, and
// encoding it must stay defined behaviour (the sanitizer build checks that part).
TEST(QuantRoundTrip, NonFiniteBlockDoesNotLeak) {
    for (const Bound& b : kBounds) {
        const Type t = b.type;
        const size_t bs = traits(t).block_size == 1 ? 256 : traits(t).block_size;
        const auto clean = gaussian_row(3 * bs, 5);
        auto dirty = clean;
        dirty[bs + 1] = NAN;
        dirty[bs + 2] = INFINITY;
        dirty[bs + 3] = -INFINITY;
        dirty[bs + 4] = 3e38f;
        std::vector<std::byte> qc(row_bytes(t, clean.size())), qd(qc.size());
        ASSERT_TRUE(quantize(t, clean, qc));
        ASSERT_TRUE(quantize(t, dirty, qd));
        const size_t one = row_bytes(t, bs);
        EXPECT_TRUE(std::equal(qc.begin(), qc.begin() + one, qd.begin())) << traits(t).name;
        EXPECT_TRUE(std::equal(qc.end() - one, qc.end(), qd.end() - one)) << traits(t).name;
        std::vector<float> y(dirty.size());
        EXPECT_TRUE(dequantize(t, qd, y));
    }
}

}  // namespace
}  // namespace hearth::quant
