// RMSNorm's row (kernels.h rms_norm_row) on every ISA this CPU runs: the same bits as the
// scalar row for every length from 1 to 70 and the models' widths (tails of every size),
// within rounding of a float64 RMSNorm, in place like out of place; a row of zeros gives
// zeros (the scale is finite: 1 / sqrt(eps)), and huge values do not overflow the sum.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/kernels.h"
#include "kernels_test_util.h"

namespace hearth::cpu {
namespace {

class NormKernel : public ::testing::Test {
    test::IsaRestore restore_;
};

std::vector<float> values(size_t n, uint32_t seed, float spread) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> d(0.0f, spread);
    std::vector<float> v(n);
    for (float& x : v) x = d(rng);
    return v;
}

std::vector<float> norm(const std::vector<float>& x, const std::vector<float>& w, float eps) {
    std::vector<float> out(x.size());
    rms_norm_row(x.data(), w.data(), eps, out.data(), x.size());
    return out;
}

std::vector<size_t> lengths() {
    std::vector<size_t> n;
    for (size_t i = 1; i <= 70; ++i) n.push_back(i);
    for (size_t i : {255, 256, 257, 896, 2048, 2049, 4096}) n.push_back(i);
    return n;
}

TEST_F(NormKernel, EveryIsaGivesTheScalarBits) {
    for (size_t n : lengths()) {
        const auto x = values(n, uint32_t(n), 3.0f), w = values(n, uint32_t(n) + 1000, 1.0f);
        ASSERT_TRUE(force_isa(Isa::Scalar));
        const auto want = norm(x, w, 1e-6f);
        for (Isa isa : {Isa::Avx2, Isa::Avx512, Isa::Neon}) {
            if (!force_isa(isa)) continue;
            const auto got = norm(x, w, 1e-6f);
            EXPECT_EQ(std::memcmp(got.data(), want.data(), n * sizeof(float)), 0)
                << isa_name(isa) << " n=" << n;
        }
    }
}

TEST_F(NormKernel, EveryIsaMatchesFloat64) {
    for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Neon}) {
        if (!force_isa(isa)) continue;
        for (size_t n : {size_t{7}, size_t{64}, size_t{896}, size_t{2051}}) {
            const auto x = values(n, 7, 0.5f), w = values(n, 8, 1.0f);
            const float eps = 1e-5f;
            double ss = 0;
            for (float v : x) ss += double(v) * double(v);
            const double scale = 1.0 / std::sqrt(ss / double(n) + double(eps));
            const auto got = norm(x, w, eps);
            for (size_t i = 0; i < n; ++i) {
                const double want = double(x[i]) * scale * double(w[i]);
                EXPECT_LE(std::fabs(got[i] - want), 4e-7 * std::fabs(want) + 1e-30)
                    << isa_name(isa) << " n=" << n << " i=" << i;
            }
        }
    }
}

TEST_F(NormKernel, InPlaceZerosAndHugeValues) {
    for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Neon}) {
        if (!force_isa(isa)) continue;
        const size_t n = 37;
        const auto x = values(n, 3, 2.0f), w = values(n, 4, 1.0f);
        const auto out = norm(x, w, 1e-6f);
        auto in_place = x;
        rms_norm_row(in_place.data(), w.data(), 1e-6f, in_place.data(), n);
        EXPECT_EQ(std::memcmp(in_place.data(), out.data(), n * sizeof(float)), 0) << isa_name(isa);

        const std::vector<float> zeros(n, 0.0f);
        for (float v : norm(zeros, w, 1e-6f)) EXPECT_EQ(v, 0.0f) << isa_name(isa);

        // squares past float's range: the double sums keep them (x / rms is about +-1)
        std::vector<float> huge(n, 3e30f);
        huge[5] = -3e30f;
        const std::vector<float> ones(n, 1.0f);
        const auto h = norm(huge, ones, 1e-6f);
        for (size_t i = 0; i < n; ++i) {
            ASSERT_TRUE(std::isfinite(h[i])) << isa_name(isa);
            EXPECT_NEAR(std::fabs(h[i]), 1.0f, 1e-6f) << isa_name(isa);
        }
    }
}

}  // namespace
}  // namespace hearth::cpu
