// Whole models on the CUDA plugin against the CPU (label cuda; every case skips with the reason
// where no CUDA device is usable, e.g. on CI). Synthetic llama/qwen2 F32 models at every split
// point give the CPU's greedy tokens; quantized ones (Q4_0, Q4_K, Q6_K, Q8_0) stay within
// tolerance of the CPU (both round activations to 8 bits in decode, each its own way; the GPU's
// prefill multiplies float ones); a
// step replayed from a captured CUDA graph equals the eager one; stories260K greedy equals the
// CPU's, and a chat session reuses its cache across turns on the GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "cpu/cpu_device.h"
#include "hearth/engine.h"
#include "hearth/session.h"
#include "registry.h"
#include "runtime/forward.h"
#include "runtime/kv_cache.h"
#include "runtime/placement.h"
#include "synthetic_model.h"
#include "test_data.h"

namespace hearth::runtime::test {
namespace {

using backend::DType;

#define REQUIRE_CUDA(dev)                                                                  \
    auto dev##_result = backend::Registry::probe().create("cuda");                         \
    if (!dev##_result) GTEST_SKIP() << "no CUDA device: " << dev##_result.error_message(); \
    std::unique_ptr<backend::Device> dev = std::move(dev##_result.value())

const std::vector<int32_t> kPrompt = {1, 17, 299, 42, 42, 5, 128, 0, 250, 77, 3};

class CudaSplit : public ::testing::TestWithParam<Arch> {};

TEST_P(CudaSplit, EverySplitPointMatchesTheCpu) {
    REQUIRE_CUDA(gpu);
    const auto m = make_synthetic(GetParam(), quant::Type::F32, 7);
    auto cpu = backend::make_cpu_device();
    const SplitRun base = run_split(m, *cpu, nullptr, 0, false, kPrompt, 8, DType::F32);
    ASSERT_EQ(base.tokens.size(), 8u);
    for (int64_t n = 0; n <= m.params.n_layer; ++n) {
        for (bool head : {false, true}) {
            if (head && n != m.params.n_layer) continue;
            SCOPED_TRACE("layers on cuda: " + std::to_string(n) + (head ? " + output" : ""));
            const SplitRun r = run_split(m, *cpu, gpu.get(), n, head, kPrompt, 8, DType::F32);
            EXPECT_EQ(r.tokens, base.tokens);
            ASSERT_EQ(r.logits.size(), base.logits.size());
            for (size_t i = 0; i < r.logits.size(); ++i)
                EXPECT_LT(rel_diff(r.logits[i], base.logits[i]), 1e-4) << "step " << i;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Archs, CudaSplit, ::testing::Values(Arch::Llama, Arch::Qwen2),
                         [](const auto& info) {
                             return std::string(model::arch_name(info.param));
                         });

// The same tokens and bit-identical logits at every step.
void expect_same_bits(const SplitRun& a, const SplitRun& b) {
    EXPECT_EQ(a.tokens, b.tokens);
    ASSERT_EQ(a.logits.size(), b.logits.size());
    for (size_t i = 0; i < b.logits.size(); ++i)
        EXPECT_EQ(a.logits[i], b.logits[i]) << "step " << i;
}

// The model's greedy run (every layer and the head on the GPU) with the plugin's switch `var`
// at 0, then unset: the same tokens and logits, bit for bit.
void expect_switch_changes_no_bit(const char* var, const SyntheticModel& m, backend::Device& cpu,
                                  backend::Device& gpu, int32_t n_gen) {
    setenv(var, "0", 1);
    const SplitRun off =
        run_split(m, cpu, &gpu, m.params.n_layer, true, kPrompt, n_gen, DType::F16);
    unsetenv(var);
    const SplitRun on = run_split(m, cpu, &gpu, m.params.n_layer, true, kPrompt, n_gen, DType::F16);
    expect_same_bits(on, off);
}

TEST(CudaModel, QuantizedModelsStayWithinToleranceOfTheCpu) {
    REQUIRE_CUDA(gpu);
    auto cpu = backend::make_cpu_device();
    // Q4_K and Q6_K are the two halves of a Q4_K_M file.
    for (quant::Type t :
         {quant::Type::Q4_0, quant::Type::Q4_K, quant::Type::Q6_K, quant::Type::Q8_0}) {
        for (DType kv : {DType::F16, DType::Q8_0}) {
            SCOPED_TRACE(std::string(quant::traits(t).name) + " kv " + backend::dtype_name(kv));
            const auto m = make_synthetic(Arch::Llama, t, 11);
            const SplitRun base = run_split(m, *cpu, nullptr, 0, false, kPrompt, 4, kv);
            const SplitRun r =
                run_split(m, *cpu, gpu.get(), m.params.n_layer, true, kPrompt, 4, kv);
            ASSERT_EQ(r.logits.size(), base.logits.size());
            // The prompt's logits (the same input on both): within the 8-bit activation error.
            // Later steps may follow other tokens, so only the first is compared.
            EXPECT_LT(rel_diff(r.logits[0], base.logits[0]), 3e-2);
        }
        // A prompt of more than 16 tokens: the tensor-core prefill kernel (half-precision
        // operands), then decode.
        SCOPED_TRACE(std::string(quant::traits(t).name) + " 40-token prompt");
        std::vector<int32_t> prompt(40);
        for (size_t i = 0; i < prompt.size(); ++i) prompt[i] = int32_t((i * 37 + 5) % 300);
        const auto m = make_synthetic(Arch::Llama, t, 13);
        const SplitRun base = run_split(m, *cpu, nullptr, 0, false, prompt, 4, DType::F16);
        const SplitRun r =
            run_split(m, *cpu, gpu.get(), m.params.n_layer, true, prompt, 4, DType::F16);
        ASSERT_EQ(r.logits.size(), base.logits.size());
        EXPECT_LT(rel_diff(r.logits[0], base.logits[0]), 3e-2);
    }
}

// The fused launches (residual add + norm + quantization, SwiGLU + quantization, Q/K/V and
// gate/up products in one launch, RoPE of Q and K together, K and V appended together) compute
// the same floats in the same order as the separate kernels: HEARTH_CUDA_FUSE=0 changes no bit.
TEST(CudaModel, FusedLaunchesEqualSeparateOnes) {
    REQUIRE_CUDA(gpu);
    auto cpu = backend::make_cpu_device();
    for (auto [arch, t] :
         {std::pair{Arch::Llama, quant::Type::Q4_K}, std::pair{Arch::Qwen2, quant::Type::Q4_0}}) {
        SCOPED_TRACE(std::string(model::arch_name(arch)) + " " +
                     std::string(quant::traits(t).name));
        expect_switch_changes_no_bit("HEARTH_CUDA_FUSE", make_synthetic(arch, t, 17), *cpu, *gpu,
                                     8);
    }
}

TEST(CudaModel, GraphReplayEqualsEagerSteps) {
    REQUIRE_CUDA(gpu);
    auto cpu = backend::make_cpu_device();
    // Same kernels in the same order, replayed from a graph or launched one by one.
    expect_switch_changes_no_bit("HEARTH_CUDA_GRAPHS",
                                 make_synthetic(Arch::Qwen2, quant::Type::Q4_0, 5), *cpu, *gpu, 12);
}

GenerateOptions greedy(int32_t n) {
    GenerateOptions o;
    o.max_tokens = n;
    o.sampling.temperature = 0;
    o.stop_at_end_of_generation = false;
    return o;
}

std::vector<int32_t> generate(const std::filesystem::path& path, const std::string& backend,
                              int64_t gpu_layers, KvType kv) {
    LoadOptions lo;
    lo.backend = backend;
    lo.gpu_layers = gpu_layers;
    auto model = Model::load(path, lo);
    EXPECT_TRUE(model.is_ok()) << (model ? "" : model.error_message());
    if (!model) return {};
    auto ctx = Context::create(*model, {.n_ctx = 256, .kv_type = kv, .n_threads = 2});
    EXPECT_TRUE(ctx.is_ok());
    EXPECT_TRUE((*ctx)->feed_text("Once upon a time").is_ok());
    auto res = (*ctx)->generate(greedy(60));
    EXPECT_TRUE(res.is_ok());
    return res ? res->tokens : std::vector<int32_t>{};
}

TEST(CudaModel, Stories260kGreedyEqualsTheCpu) {
    HEARTH_REQUIRE_SHARED(path, "models/stories260K.gguf");
    REQUIRE_CUDA(gpu);
    gpu.reset();
    for (KvType kv : {KvType::F32, KvType::F16}) {
        const auto base = generate(path, "cpu", 0, kv);
        ASSERT_EQ(base.size(), 60u);
        for (int64_t n : {int64_t(2), kGpuLayersAll}) {
            SCOPED_TRACE("gpu layers " + std::to_string(n));
            EXPECT_EQ(generate(path, "cuda", n, kv), base);
        }
    }
}

TEST(CudaModel, SessionReusesItsCacheAcrossTurns) {
    HEARTH_REQUIRE_SHARED(path, "models/stories260K.gguf");
    REQUIRE_CUDA(gpu);
    gpu.reset();
    auto chat = [&](const std::string& backend) {
        LoadOptions lo;
        lo.backend = backend;
        lo.gpu_layers = kGpuLayersAll;
        auto model = Model::load(path, lo);
        EXPECT_TRUE(model.is_ok()) << (model ? "" : model.error_message());
        auto store = KvStore::create(*model, {.kv_type = KvType::F32, .n_ctx = 256});
        EXPECT_TRUE(store.is_ok());
        auto s = Session::create(*store, {.n_threads = 2});
        EXPECT_TRUE(s.is_ok());
        auto t1 = *(*model)->tokenize("Once upon a time", true, false);
        EXPECT_TRUE((*s)->prefill(t1).is_ok());
        auto r1 = (*s)->generate(greedy(16));
        EXPECT_TRUE(r1.is_ok());
        std::vector<int32_t> all = t1;
        all.insert(all.end(), r1->tokens.begin(), r1->tokens.end());
        auto t2 = *(*model)->tokenize(" The cat", false, false);
        all.insert(all.end(), t2.begin(), t2.end());
        auto rep = (*s)->prefill(all);
        EXPECT_TRUE(rep.is_ok());
        EXPECT_GE(rep->n_reused, int64_t(t1.size()));
        auto r2 = (*s)->generate(greedy(16));
        EXPECT_TRUE(r2.is_ok());
        std::vector<int32_t> out = r1->tokens;
        out.insert(out.end(), r2->tokens.begin(), r2->tokens.end());
        return out;
    };
    const auto cpu = chat("cpu");
    ASSERT_EQ(cpu.size(), 32u);
    EXPECT_EQ(chat("cuda"), cpu);
}

}  // namespace
}  // namespace hearth::runtime::test
