// stories260K against llama.cpp's golden outputs (../shared/models/stories260K.golden.json).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "cpu/cpu_device.h"
#include "gguf/gguf_file.h"
#include "runtime/config_support.h"
#include "runtime/forward.h"
#include "runtime/kv_cache.h"
#include "runtime/model_weights.h"
#include "test_data.h"

namespace hearth::runtime {
namespace {

using backend::DType;

struct Loaded {
    std::unique_ptr<gguf::GgufFile> file;
    std::unique_ptr<backend::Device> device;
    ModelConfig params;
    ModelWeights weights;
};

std::unique_ptr<Loaded> load(const std::filesystem::path& path) {
    auto l = std::make_unique<Loaded>();
    auto f = gguf::GgufFile::open(path);
    EXPECT_TRUE(f.is_ok()) << (f ? "" : f.error_message());
    if (!f) return nullptr;
    l->file = std::move(f.value());
    auto p = load_supported_config(*l->file);
    EXPECT_TRUE(p.is_ok()) << (p ? "" : p.error_message());
    if (!p) return nullptr;
    l->params = *p;
    l->device = backend::make_cpu_device();
    auto w = bind_weights(l->params, TensorSource::from_gguf(*l->file), *l->device);
    EXPECT_TRUE(w.is_ok()) << (w ? "" : w.error_message());
    if (!w) return nullptr;
    l->weights = std::move(w.value());
    return l;
}

int32_t argmax(std::span<const float> v) {
    return static_cast<int32_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

void run_case(Loaded& m, const nlohmann::json& c, DType kv_type, std::vector<float>* last_logits,
              std::vector<int32_t>* greedy) {
    auto kv = KvCache::create(*m.device, m.params, 512, kv_type);
    ASSERT_TRUE(kv.is_ok());
    auto fw = Forward::create(*m.device, m.params, m.weights, 512, 64, 2);
    ASSERT_TRUE(fw.is_ok());
    std::vector<int32_t> prompt = c["prompt_token_ids"].get<std::vector<int32_t>>();
    auto logits = (*fw)->step(prompt, **kv);
    ASSERT_TRUE(logits.is_ok()) << logits.error_message();
    last_logits->assign(logits->begin(), logits->end());
    const size_t n_gen = c["greedy_ids"].size();
    int32_t next = argmax(*logits);
    for (size_t i = 0; i < n_gen; ++i) {
        greedy->push_back(next);
        if (i + 1 == n_gen) break;
        auto l = (*fw)->step(std::span(&next, 1), **kv);
        ASSERT_TRUE(l.is_ok()) << l.error_message();
        next = argmax(*l);
    }
}

TEST(Stories260K, GreedyAndLogitsMatchLlamaCpp) {
    HEARTH_REQUIRE_SHARED(model_path, "models/stories260K.gguf");
    HEARTH_REQUIRE_SHARED(golden_path, "models/stories260K.golden.json");
    const auto golden = nlohmann::json::parse(test::read_file(golden_path));
    auto m = load(model_path);
    ASSERT_TRUE(m);
    const nlohmann::json* kv_f32 = nullptr;
    for (const auto& v : golden["variants"])
        if (v["name"] == "kv_f32") kv_f32 = &v;
    ASSERT_TRUE(kv_f32);
    for (size_t ci = 0; ci < golden["cases"].size(); ++ci) {
        const auto& c = golden["cases"][ci];
        SCOPED_TRACE(c["prompt"].get<std::string>());
        for (DType kv_type : {DType::F32, DType::F16}) {
            std::vector<float> logits;
            std::vector<int32_t> greedy;
            run_case(*m, c, kv_type, &logits, &greedy);
            EXPECT_EQ(greedy, c["greedy_ids"].get<std::vector<int32_t>>())
                << "kv " << backend::dtype_name(kv_type);
            const auto want =
                (kv_type == DType::F32 ? (*kv_f32)["cases"][ci] : c)["logits_last_prompt"]
                    .get<std::vector<float>>();
            ASSERT_EQ(want.size(), logits.size());
            float max_abs = 0, max_diff = 0;
            for (size_t i = 0; i < want.size(); ++i) {
                max_abs = std::max(max_abs, std::fabs(want[i]));
                max_diff = std::max(max_diff, std::fabs(want[i] - logits[i]));
            }
            const float tol = kv_type == DType::F32 ? 1e-4f : 1.5e-2f;
            EXPECT_LE(max_diff, tol * max_abs) << "kv " << backend::dtype_name(kv_type);
            std::printf("[ info ] %s kv=%s: max |logit diff| = %.3g (%.3g of the largest logit)\n",
                        c["prompt"].get<std::string>().c_str(), backend::dtype_name(kv_type),
                        max_diff, max_diff / max_abs);
        }
    }
}

}  // namespace
}  // namespace hearth::runtime
