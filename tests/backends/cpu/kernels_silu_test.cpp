// SwiGLU's element function (kernels.h silu_mul) on every ISA this CPU runs: against a float64
// silu(g) * u over ordinary, tiny, huge and signed-zero inputs; an element's bits the same
// whatever span it is computed in (alone, at any offset, in any length: the fused and unfused
// SwiGLU split rows differently); in place like out of place.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/kernels.h"
#include "kernels_test_util.h"

namespace hearth::cpu {
namespace {

class SiluKernel : public ::testing::Test {
    test::IsaRestore restore_;
};

struct Inputs {
    std::vector<float> g, u;
};

Inputs inputs(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> wide(-20.0f, 20.0f), unit(-2.0f, 2.0f);
    Inputs in;
    const float special[] = {0.0f,  -0.0f,  1e-30f, -1e-30f, 1e-3f,  -1e-3f,  86.0f, -86.0f,
                             87.5f, -87.5f, 88.7f,  -88.7f,  100.0f, -100.0f, 1e30f, -1e30f};
    for (float s : special) in.g.push_back(s);
    while (in.g.size() < n) in.g.push_back(wide(rng));
    in.g.resize(n);
    for (size_t i = 0; i < n; ++i) in.u.push_back(unit(rng));
    return in;
}

double reference(float g, float u) {
    const double x = g;
    return x / (1.0 + std::exp(-x)) * double(u);
}

TEST_F(SiluKernel, EveryIsaMatchesFloat64) {
    const Inputs in = inputs(203, 1);
    for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Neon}) {
        if (!force_isa(isa)) continue;
        std::vector<float> out(in.g.size());
        silu_mul(in.g.data(), in.u.data(), out.data(), out.size());
        for (size_t i = 0; i < out.size(); ++i) {
            const double want = reference(in.g[i], in.u[i]);
            // 1e-7 relative from the exp, a few roundings more; below 1e-30 the result is 0 or
            // tiny either way
            EXPECT_LE(std::fabs(out[i] - want), 2e-6 * std::fabs(want) + 1e-30)
                << isa_name(isa) << " g=" << in.g[i] << " u=" << in.u[i];
        }
    }
}

TEST_F(SiluKernel, AnElementGetsTheSameBitsInEverySpan) {
    const Inputs in = inputs(77, 2);
    const size_t n = in.g.size();
    for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Neon}) {
        if (!force_isa(isa)) continue;
        std::vector<float> whole(n);
        silu_mul(in.g.data(), in.u.data(), whole.data(), n);
        for (size_t b : {size_t{0}, size_t{1}, size_t{5}, size_t{16}, size_t{33}})
            for (size_t len :
                 {size_t{1}, size_t{3}, size_t{8}, size_t{15}, size_t{17}, size_t{40}}) {
                if (b + len > n) continue;
                std::vector<float> part(len);
                silu_mul(in.g.data() + b, in.u.data() + b, part.data(), len);
                EXPECT_EQ(std::memcmp(part.data(), whole.data() + b, len * sizeof(float)), 0)
                    << isa_name(isa) << " span [" << b << ", " << b + len << ")";
            }
        std::vector<float> g = in.g;
        silu_mul(g.data(), in.u.data(), g.data(), n);  // out == g
        EXPECT_EQ(std::memcmp(g.data(), whole.data(), n * sizeof(float)), 0) << isa_name(isa);
        std::vector<float> u = in.u;
        silu_mul(in.g.data(), u.data(), u.data(), n);  // out == u
        EXPECT_EQ(std::memcmp(u.data(), whole.data(), n * sizeof(float)), 0) << isa_name(isa);
    }
}

}  // namespace
}  // namespace hearth::cpu
