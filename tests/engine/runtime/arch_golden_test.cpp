// The tiny random models of ../shared/models/archs (one per family) against llama.cpp's own
// outputs and against the float64 reference of arch_reference.cpp. Tolerances are the ones
// the data's README derives (max |logit difference| over the vocabulary).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "arch_reference.h"
#include "cpu/cpu_device.h"
#include "gguf/gguf_file.h"
#include "ref/ref_device.h"
#include "runtime/config_support.h"
#include "runtime/forward.h"
#include "runtime/kv_cache.h"
#include "runtime/model_weights.h"
#include "test_data.h"

namespace hearth::runtime::test {
namespace {

using backend::DType;
using nlohmann::json;

struct Loaded {
    std::unique_ptr<gguf::GgufFile> file;
    std::unique_ptr<backend::Device> device;
    ModelConfig params;
    ModelWeights weights;
};

std::unique_ptr<Loaded> load(const std::filesystem::path& path, bool ref_device = false) {
    auto l = std::make_unique<Loaded>();
    auto f = gguf::GgufFile::open(path);
    EXPECT_TRUE(f.is_ok()) << (f ? "" : f.error_message());
    if (!f) return nullptr;
    l->file = std::move(f.value());
    auto p = load_supported_config(*l->file);
    EXPECT_TRUE(p.is_ok()) << (p ? "" : p.error_message());
    if (!p) return nullptr;
    l->params = *p;
    l->device = ref_device ? backend::make_ref_device() : backend::make_cpu_device();
    auto w = bind_weights(l->params, TensorSource::from_gguf(*l->file), *l->device);
    EXPECT_TRUE(w.is_ok()) << (w ? "" : w.error_message());
    if (!w) return nullptr;
    l->weights = std::move(w.value());
    return l;
}

int32_t argmax(std::span<const float> v) {
    return static_cast<int32_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

struct GreedyRun {
    std::vector<float> last_prompt;               // logits at the last prompt position
    std::vector<int32_t> greedy;                  // n_gen greedy ids
    std::vector<std::vector<float>> step_logits;  // logits after feeding greedy[k-1], k >= 1
};

// The golden's protocol: the prompt in one batch, then one token per step (greedy).
GreedyRun run_greedy(Loaded& m, const std::vector<int32_t>& prompt, size_t n_gen, DType kv_type,
                     int64_t n_ctx = 512, int64_t batch = 512) {
    GreedyRun r;
    auto kv = KvCache::create(*m.device, m.params, n_ctx, kv_type);
    EXPECT_TRUE(kv.is_ok());
    auto fw = Forward::create(*m.device, m.params, m.weights, n_ctx, batch, 2);
    EXPECT_TRUE(fw.is_ok());
    if (!kv || !fw) return r;
    auto logits = (*fw)->step(prompt, **kv);
    EXPECT_TRUE(logits.is_ok()) << logits.error_message();
    if (!logits) return r;
    r.last_prompt.assign(logits->begin(), logits->end());
    int32_t next = argmax(*logits);
    for (size_t i = 0; i < n_gen; ++i) {
        r.greedy.push_back(next);
        if (i + 1 == n_gen) break;
        auto l = (*fw)->step(std::span(&next, 1), **kv);
        EXPECT_TRUE(l.is_ok()) << l.error_message();
        if (!l) break;
        r.step_logits.emplace_back(l->begin(), l->end());
        next = argmax(*l);
    }
    return r;
}

float max_diff(std::span<const float> a, const std::vector<float>& b) {
    EXPECT_EQ(a.size(), b.size());
    float d = 0;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        d = std::max(d, std::fabs(a[i] - b[i]));
    return d;
}

// Greedy ids must agree up to the first step whose golden margin is below twice the
// tolerance (after that a divergence is not by itself an error). Returns the steps checked.
size_t expect_greedy(const std::vector<int32_t>& got, const json& c, float tol) {
    const auto want = c["greedy_ids"].get<std::vector<int32_t>>();
    const auto margin = c["greedy_top1_minus_top2"].get<std::vector<float>>();
    size_t n = 0;
    for (; n < want.size() && n < got.size(); ++n) {
        EXPECT_EQ(got[n], want[n]) << "greedy step " << n;
        if (got[n] != want[n] || margin[n] < 2 * tol) break;
    }
    return n;
}

json read_json(const std::filesystem::path& p) {
    return json::parse(hearth::test::read_file(p));
}

struct Family {
    const char* name;
    bool gemma;  // stock golden has ggml's F16 GELU table: compare tightly to the exact-GELU one
};

class ArchGolden : public ::testing::TestWithParam<Family> {};

// F32 weights, F32 KV cache: last-prompt logits, 32 greedy ids and the logits of steps 1-4.
TEST_P(ArchGolden, F32MatchesLlamaCpp) {
    const std::string name = GetParam().name;
    HEARTH_REQUIRE_SHARED(model_path, "models/archs/" + name + ".gguf");
    HEARTH_REQUIRE_SHARED(golden_path, "models/archs/" + name + ".golden.json");
    auto m = load(model_path);
    ASSERT_TRUE(m);
    const json stock = read_json(golden_path);
    json exact;
    if (GetParam().gemma) {
        HEARTH_REQUIRE_SHARED(exact_path, "models/archs/" + name + ".golden-exact-gelu.json");
        exact = read_json(exact_path);
    }
    // Our GELU is the exact tanh formula: 2e-4 against the exact-GELU build, 2e-2 against the
    // stock build (its F16 GELU table alone moves logits by up to ~6e-3).
    const json& tight = GetParam().gemma ? exact : stock;
    const float tol = 2e-4f;
    for (size_t ci = 0; ci < stock["cases"].size(); ++ci) {
        SCOPED_TRACE("case " + std::to_string(ci));
        const json& c = tight["cases"][ci];
        const auto prompt = c["prompt_token_ids"].get<std::vector<int32_t>>();
        const GreedyRun r = run_greedy(*m, prompt, c["greedy_ids"].size(), DType::F32);
        ASSERT_FALSE(r.last_prompt.empty());
        const float d = max_diff(r.last_prompt, c["logits_last_prompt"].get<std::vector<float>>());
        EXPECT_LE(d, tol);
        const size_t agreed = expect_greedy(r.greedy, c, tol);
        float dstep = 0;
        for (const json& s : c["gen_logits"]) {
            const size_t k = s["step"].get<size_t>();
            if (k - 1 >= r.step_logits.size() || k > agreed) continue;
            dstep = std::max(dstep,
                             max_diff(r.step_logits[k - 1], s["logits"].get<std::vector<float>>()));
        }
        EXPECT_LE(dstep, tol);
        float dstock = d;
        if (GetParam().gemma) {
            dstock = max_diff(r.last_prompt,
                              stock["cases"][ci]["logits_last_prompt"].get<std::vector<float>>());
            EXPECT_LE(dstock, 2e-2f);
            expect_greedy(r.greedy, stock["cases"][ci], 2e-2f);
        }
        std::printf(
            "[ info ] %s case %zu: max |logit diff| %.3g (prompt), %.3g (steps 1-4); "
            "greedy agrees for %zu/%zu\n",
            name.c_str(), ci, d, dstep, agreed, r.greedy.size());
        if (GetParam().gemma)
            std::printf("[ info ] %s case %zu: vs the stock build's F16 GELU table %.3g\n",
                        name.c_str(), ci, dstock);
    }
}

// An F16 KV cache against llama.cpp's own F16-KV run (tolerance 0.1 from the README).
TEST_P(ArchGolden, F16KvCacheMatchesLlamaCpp) {
    const std::string name = GetParam().name;
    HEARTH_REQUIRE_SHARED(model_path, "models/archs/" + name + ".gguf");
    HEARTH_REQUIRE_SHARED(golden_path, "models/archs/" + name + ".golden.json");
    auto m = load(model_path);
    ASSERT_TRUE(m);
    const json g = read_json(golden_path);
    const json* kv16 = nullptr;
    for (const json& v : g["variants"])
        if (v["name"] == "kv_f16") kv16 = &v;
    ASSERT_TRUE(kv16);
    for (size_t ci = 0; ci < g["cases"].size(); ++ci) {
        SCOPED_TRACE("case " + std::to_string(ci));
        const json& c = g["cases"][ci];
        const GreedyRun r = run_greedy(*m, c["prompt_token_ids"].get<std::vector<int32_t>>(),
                                       c["greedy_ids"].size(), DType::F16);
        ASSERT_FALSE(r.last_prompt.empty());
        const float d = max_diff(
            r.last_prompt, (*kv16)["cases"][ci]["logits_last_prompt"].get<std::vector<float>>());
        EXPECT_LE(d, 0.1f);
        expect_greedy(r.greedy, c, 0.1f);
        std::printf("[ info ] %s kv f16 case %zu: max |logit diff| %.3g\n", name.c_str(), ci, d);
    }
}

// The same weights stored as F16 against their own golden (tolerance 0.1).
TEST_P(ArchGolden, F16WeightsMatchLlamaCpp) {
    const std::string name = GetParam().name;
    HEARTH_REQUIRE_SHARED(model_path, "models/archs/" + name + "-f16.gguf");
    HEARTH_REQUIRE_SHARED(golden_path, "models/archs/" + name + "-f16.golden.json");
    auto m = load(model_path);
    ASSERT_TRUE(m);
    const json g = read_json(golden_path);
    for (size_t ci = 0; ci < g["cases"].size(); ++ci) {
        SCOPED_TRACE("case " + std::to_string(ci));
        const json& c = g["cases"][ci];
        const GreedyRun r = run_greedy(*m, c["prompt_token_ids"].get<std::vector<int32_t>>(),
                                       c["greedy_ids"].size(), DType::F32);
        ASSERT_FALSE(r.last_prompt.empty());
        const float d = max_diff(r.last_prompt, c["logits_last_prompt"].get<std::vector<float>>());
        EXPECT_LE(d, 0.1f);
        expect_greedy(r.greedy, c, 0.1f);
        std::printf("[ info ] %s-f16 case %zu: max |logit diff| %.3g\n", name.c_str(), ci, d);
    }
}

// The CPU backend against the float64 reference at every position of prompt + continuation
// (longer than the sliding windows), in one batch and in chunks of 7; the reference against
// llama.cpp; and the reference device (every op in float64 sums) against the reference.
TEST_P(ArchGolden, MatchesFloat64Reference) {
    const std::string name = GetParam().name;
    HEARTH_REQUIRE_SHARED(model_path, "models/archs/" + name + ".gguf");
    HEARTH_REQUIRE_SHARED(golden_path,
                          "models/archs/" + std::string(name) +
                              (GetParam().gemma ? ".golden-exact-gelu.json" : ".golden.json"));
    const json g = read_json(golden_path);
    const json& c = g["cases"][1];  // 60-token prompt
    std::vector<int32_t> tokens = c["prompt_token_ids"].get<std::vector<int32_t>>();
    const size_t n_prompt = tokens.size();
    for (int32_t id : c["greedy_ids"].get<std::vector<int32_t>>()) tokens.push_back(id);
    auto file = gguf::GgufFile::open(model_path);
    ASSERT_TRUE(file.is_ok());
    const ArchModel ref_model = decode_arch_model(**file);
    const auto want = arch_reference_forward(ref_model, tokens, 512);

    const auto golden = c["logits_last_prompt"].get<std::vector<float>>();
    double ref_vs_golden = 0;
    for (size_t i = 0; i < golden.size(); ++i)
        ref_vs_golden = std::max(ref_vs_golden, std::fabs(want[n_prompt - 1][i] - golden[i]));
    EXPECT_LE(ref_vs_golden, 2e-4) << "float64 reference vs llama.cpp";

    for (bool ref_device : {false, true}) {
        auto m = load(model_path, ref_device);
        ASSERT_TRUE(m);
        for (int64_t batch : {int64_t(128), int64_t(7)}) {
            auto kv = KvCache::create(*m->device, m->params, 512, DType::F32);
            auto fw = Forward::create(*m->device, m->params, m->weights, 512, batch, 2);
            ASSERT_TRUE(kv.is_ok() && fw.is_ok());
            auto out = (*fw)->step(tokens, **kv, /*all_logits=*/true);
            ASSERT_TRUE(out.is_ok()) << out.error_message();
            const size_t V = size_t(m->params.n_vocab);
            double worst = 0, largest = 0;
            for (size_t t = 0; t < tokens.size(); ++t)
                for (size_t i = 0; i < V; ++i) {
                    worst = std::max(worst, std::fabs(double((*out)[t * V + i]) - want[t][i]));
                    largest = std::max(largest, std::fabs(want[t][i]));
                }
            EXPECT_LE(worst, 1e-5 * largest + 5e-5)
                << (ref_device ? "ref" : "cpu") << " device, batch " << batch;
            std::printf(
                "[ info ] %s %s batch %lld vs float64: max |diff| %.3g (largest %.3g); "
                "reference vs llama.cpp %.3g\n",
                name.c_str(), ref_device ? "ref" : "cpu", static_cast<long long>(batch), worst,
                largest, ref_vs_golden);
            if (ref_device) break;  // the reference device is slow: one batch size is enough
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Families, ArchGolden,
                         ::testing::Values(Family{"qwen3", false}, Family{"gemma2", true},
                                           Family{"gemma3", true}, Family{"phi3", false},
                                           Family{"qwen3moe", false}, Family{"llama-moe", false}),
                         [](const auto& info) {
                             std::string n = info.param.name;
                             std::replace(n.begin(), n.end(), '-', '_');
                             return n;
                         });

// phi3 at n_ctx 256 uses the short LongRoPE factors (llama.cpp's n_ctx 256 variant).
TEST(ArchGoldenPhi3, ShortContextUsesShortFactors) {
    HEARTH_REQUIRE_SHARED(model_path, "models/archs/phi3.gguf");
    HEARTH_REQUIRE_SHARED(golden_path, "models/archs/phi3.golden.json");
    auto m = load(model_path);
    ASSERT_TRUE(m);
    const json g = read_json(golden_path);
    const json& var = g["nctx_variant"];
    ASSERT_EQ(var["settings"]["n_ctx"].get<int>(), 256);
    for (size_t ci = 0; ci < var["cases"].size(); ++ci) {
        const json& c = var["cases"][ci];
        const GreedyRun r = run_greedy(*m, c["prompt_token_ids"].get<std::vector<int32_t>>(),
                                       c["greedy_ids"].size(), DType::F32, 256, 256);
        ASSERT_FALSE(r.last_prompt.empty());
        const float d = max_diff(r.last_prompt, c["logits_last_prompt"].get<std::vector<float>>());
        EXPECT_LE(d, 2e-4f) << "case " << ci;
        expect_greedy(r.greedy, c, 2e-4f);
        // ...and it differs from the long-factor run, so the choice is really exercised.
        const float dmain =
            max_diff(r.last_prompt, g["cases"][ci]["logits_last_prompt"].get<std::vector<float>>());
        EXPECT_GT(dmain, 1e-2f);
    }
}

}  // namespace
}  // namespace hearth::runtime::test
