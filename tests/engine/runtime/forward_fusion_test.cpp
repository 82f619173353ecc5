// The CPU's short-step fusion (backends/cpu/cpu_fuse.h: Q/K/V in one dispatch, gate + up +
// SwiGLU in one, residual and bias adds folded into the MatMul before them) changes how the
// work is dispatched, never the numbers: a prompt, 12 greedy one-token steps and steps of 2, 5,
// 8 and 16 tokens (the sizes of batched decode and speculative verification) give
// bit-identical logits with fusion on and off, for every weight format the kernels treat
// differently (float rows, packed Q4_0 / Q8_0, file-format K-quants), on llama and on qwen2 (QKV
// biases, tied output), with 1, 2 and 3 threads; and fusion really ran (its group counter moved,
// and did not with it off).
#include <gtest/gtest.h>

#include <cstring>

#include "cpu/cpu_device.h"
#include "cpu/cpu_fuse.h"
#include "runtime/forward.h"
#include "runtime/kv_cache.h"
#include "synthetic_model.h"

namespace hearth::runtime::test {
namespace {

using backend::DType;

const std::vector<int32_t> kPrompt = {1, 17, 299, 42, 42, 5, 128, 0, 250, 77, 3};

// The prompt's last logits, then 12 greedy steps' logits, then the last logits of steps of
// several tokens; fusion as given while the stream is made.
std::vector<std::vector<float>> run(const SyntheticModel& m, bool fuse, int threads) {
    const bool had = backend::cpu_set_fusion(fuse);
    auto device = backend::make_cpu_device();
    auto weights = bind_weights(m.params, m.source, *device);
    EXPECT_TRUE(weights.is_ok());
    auto kv = KvCache::create(*device, m.params, 64, DType::F32);
    auto fw = Forward::create(*device, m.params, weights.value(), 64, 16, threads);
    backend::cpu_set_fusion(had);
    EXPECT_TRUE(kv.is_ok() && fw.is_ok());
    std::vector<std::vector<float>> out;
    auto logits = fw.value()->step(kPrompt, *kv.value());
    for (int i = 0; i <= 12 && logits.is_ok(); ++i) {
        out.emplace_back(logits->begin(), logits->end());
        const int32_t next =
            int32_t(std::max_element(logits->begin(), logits->end()) - logits->begin());
        if (i < 12) logits = fw.value()->step(std::span(&next, 1), *kv.value());
    }
    EXPECT_TRUE(logits.is_ok()) << logits.error_message();
    int32_t id = 3;
    for (size_t n : {2u, 5u, 8u, 16u}) {
        if (!logits.is_ok()) break;
        std::vector<int32_t> tokens(n);
        for (auto& t : tokens) t = (id = (id * 37 + 11) % 250);
        logits = fw.value()->step(tokens, *kv.value());
        if (logits.is_ok()) out.emplace_back(logits->begin(), logits->end());
    }
    EXPECT_TRUE(logits.is_ok()) << logits.error_message();
    return out;
}

class FusionByArch : public ::testing::TestWithParam<Arch> {};

TEST_P(FusionByArch, DecodeLogitsBitIdenticalWithFusionOnAndOff) {
    for (quant::Type wt : {quant::Type::F32, quant::Type::F16, quant::Type::BF16, quant::Type::Q8_0,
                           quant::Type::Q4_0, quant::Type::Q4_K}) {
        const auto m = make_synthetic(GetParam(), wt, 5);
        for (int threads : {1, 2, 3}) {
            const uint64_t before = backend::cpu_fused_groups();
            const auto plain = run(m, false, threads);
            EXPECT_EQ(backend::cpu_fused_groups(), before) << "fused with fusion off";
            const auto fused = run(m, true, threads);
            // 16 steps (12 of one token, 4 of several; the 11-token prompt too) x 2 layers x
            // (QKV, output + residual, gate/up/SwiGLU, down + residual)
            EXPECT_GE(backend::cpu_fused_groups() - before, 17u * 2u * 4u)
                << quant::traits(wt).name << ": fusion did not run";
            ASSERT_EQ(plain.size(), 17u);
            ASSERT_EQ(fused.size(), plain.size());
            for (size_t s = 0; s < plain.size(); ++s) {
                ASSERT_EQ(fused[s].size(), plain[s].size());
                EXPECT_EQ(
                    std::memcmp(fused[s].data(), plain[s].data(), plain[s].size() * sizeof(float)),
                    0)
                    << quant::traits(wt).name << " threads " << threads << " step " << s;
            }
        }
    }
}

// Q4_K_M files store V (and half the down projections) in another type than Q and K: Q6_K
// beside Q4_K, Q8_0 beside Q5_0. Those share the prepared activations, so Q, K and V still go
// as one dispatch, with the same bits as unfused.
TEST_P(FusionByArch, MixedTypesOfOneInputFuseWithTheSameBits) {
    const std::pair<quant::Type, quant::Type> mixes[] = {{quant::Type::Q4_K, quant::Type::Q6_K},
                                                         {quant::Type::Q5_0, quant::Type::Q8_0}};
    for (const auto& [wt, vt] : mixes) {
        const auto m = make_synthetic(GetParam(), wt, vt, 6);
        const auto plain = run(m, false, 2);
        const uint64_t before = backend::cpu_fused_mat_muls();
        const auto fused = run(m, true, 2);
        // 17 steps (the prompt too) x 2 layers x 7 products (Q, K, V; output; gate, up; down)
        EXPECT_EQ(backend::cpu_fused_mat_muls() - before, 17u * 2u * 7u)
            << quant::traits(wt).name << " + " << quant::traits(vt).name;
        ASSERT_EQ(plain.size(), 17u);
        ASSERT_EQ(fused.size(), plain.size());
        for (size_t s = 0; s < plain.size(); ++s)
            EXPECT_EQ(
                std::memcmp(fused[s].data(), plain[s].data(), plain[s].size() * sizeof(float)), 0)
                << quant::traits(wt).name << " + " << quant::traits(vt).name << " step " << s;
    }
}

INSTANTIATE_TEST_SUITE_P(Archs, FusionByArch, ::testing::Values(Arch::Llama, Arch::Qwen2),
                         [](const auto& info) {
                             return info.param == Arch::Llama ? "llama" : "qwen2";
                         });

}  // namespace
}  // namespace hearth::runtime::test
