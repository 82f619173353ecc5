// ISA selection, type support and activation sizes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "kernels_test_util.h"

namespace hearth::cpu {
namespace {

using quant::Type;

TEST(KernelsIsa, ScalarAlwaysRunsAndForcingRoundTrips) {
    const Isa saved = active_isa();
    EXPECT_TRUE(isa_supported(Isa::Scalar));
    EXPECT_TRUE(force_isa(Isa::Scalar));
    EXPECT_EQ(active_isa(), Isa::Scalar);
    EXPECT_TRUE(force_isa(saved));
    EXPECT_EQ(active_isa(), saved);
}

TEST(KernelsIsa, UnsupportedIsaIsRefusedAndLeavesTheChoiceAlone) {
    const Isa saved = active_isa();
#if defined(__x86_64__) || defined(__i386__)
    EXPECT_FALSE(isa_supported(Isa::Neon));
    EXPECT_FALSE(force_isa(Isa::Neon));
#else
    EXPECT_FALSE(isa_supported(Isa::Avx2));
    EXPECT_FALSE(force_isa(Isa::Avx2));
#endif
    EXPECT_EQ(active_isa(), saved);
}

TEST(KernelsIsa, Names) {
    EXPECT_EQ(isa_name(Isa::Scalar), "scalar");
    EXPECT_EQ(isa_name(Isa::Avx2), "avx2");
    EXPECT_EQ(isa_name(Isa::Avx512), "avx512");
    EXPECT_EQ(isa_name(Isa::Neon), "neon");
}

// One-token weight streams are prefetched into L1 non-temporally on AMD, into L2 elsewhere,
// unless HEARTH_CPU_PREFETCH says which; the name follows the setting, and the scalar path has
// no software prefetch to name.
TEST(KernelsIsa, StreamPrefetchFollowsTheVendorOrTheOverride) {
    const char* env = std::getenv("HEARTH_CPU_PREFETCH");
    const std::string want = env ? env : "";
    if (want == "nta" || want == "l2") {
        EXPECT_EQ(detail::g_stream_prefetch_nta, want == "nta");
    } else {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_cpu_init();
        EXPECT_EQ(detail::g_stream_prefetch_nta, __builtin_cpu_is("amd") != 0);
#else
        EXPECT_FALSE(detail::g_stream_prefetch_nta);
#endif
    }
    const Isa saved = active_isa();
    const bool had = detail::g_stream_prefetch_nta;
    for (const test::IsaPath& p : test::isa_paths()) {
        SCOPED_TRACE(test::isa_path_name(p));
        ASSERT_TRUE(force_isa(p.isa));
        for (bool nta : {true, false}) {
            detail::set_stream_prefetch_nta(nta);
            EXPECT_EQ(stream_prefetch_name(), p.isa == Isa::Scalar ? "none" : nta ? "nta" : "l2");
        }
    }
    force_isa(saved);
    detail::set_stream_prefetch_nta(had);
}

TEST(KernelsIsa, EveryWeightTypeIsSupportedButNotTheDotHelpers) {
    for (Type t : test::weight_types())
        EXPECT_TRUE(supports_weight_type(t)) << quant::traits(t).name;
    EXPECT_FALSE(supports_weight_type(Type::Q8_K));
    EXPECT_FALSE(supports_weight_type(Type::Q8_1));
    EXPECT_FALSE(supports_weight_type(static_cast<Type>(4)));
}

TEST(KernelsIsa, ActivationRowBytesAreMultiplesOfFourAndGrowWithK) {
    for (Type t : test::weight_types()) {
        const size_t b = quant::traits(t).is_quantized ? quant::traits(t).block_size : 32;
        const size_t one = activation_row_bytes(t, b), two = activation_row_bytes(t, 2 * b);
        EXPECT_EQ(one % 4, 0u);
        EXPECT_EQ(two, 2 * one) << quant::traits(t).name;
        EXPECT_GE(one, b);
    }
    EXPECT_EQ(activation_row_bytes(Type::F16, 64), 256u);
}

TEST(KernelsIsa, EmptySliceWritesNothing) {
    std::vector<uint8_t> w(quant::row_bytes(Type::Q4_0, 32), 0);
    std::vector<uint8_t> xq(activation_row_bytes(Type::Q4_0, 32), 0);
    float out = 7.0f;
    gemv(Type::Q4_0, w.data(), 32, 1, 1, xq.data(), &out);
    gemm(Type::Q4_0, w.data(), 32, 0, 1, xq.data(), xq.size(), 0, &out, 1);
    EXPECT_EQ(out, 7.0f);
}

}  // namespace
}  // namespace hearth::cpu
