// Batch invariance through a whole model on the CPU (the kernel rule in cpu/kernels/kernels.h):
// the logits after a token are bit-identical whether the token is decoded alone, verified as one
// of k + 1 tokens of a speculative step, or fed inside a prefill chunk. That is what makes
// speculative greedy output and batched scheduler output exactly the plain output, also on
// quantized weights. Synthetic small-llama models (n_embd 256, two layers, a 256-token
// vocabulary written here) in F16, Q8_0, Q4_0 and Q4_K; Q8_0 and Q4_0 both packed (the CPU's
// default) and in the file format (HEARTH_CPU_REPACK=0's path); prompts on both sides of the
// 16-cell KV blocks and the 64-cell attention chunks.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "cpu/cpu_weights.h"
#include "hearth/session.h"
#include "model/synthetic_model.h"
#include "spec_test_support.h"

namespace hearth {
namespace {

namespace fs = std::filesystem;

struct Case {
    model::WeightType type;
    bool repack;
};

std::string case_name(const Case& c) {
    return std::string(model::weight_type_name(c.type)) + (c.repack ? "" : "_unpacked");
}

class BatchInvariance : public ::testing::TestWithParam<Case> {
public:
    static void SetUpTestSuite() {
        dir_ = fs::temp_directory_path() / ("hearth-invariance-" + std::to_string(::getpid()));
        fs::create_directories(dir_);
        vocab_ = test::write_vocab(dir_ / "v256.gguf", {});
    }
    static void TearDownTestSuite() {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }

protected:
    void SetUp() override {
        const Case c = GetParam();
        const fs::path file = dir_ / (case_name(c) + ".gguf");
        model::SyntheticSpec spec;
        spec.shape = "small-llama";
        spec.type = c.type;
        spec.seed = 3;
        ASSERT_TRUE(model::write_synthetic_model(spec, vocab_, file).is_ok());
        // Packing is decided when the weights are imported (at load).
        const bool had = backend::cpu_set_repack(c.repack);
        LoadOptions lo;
        lo.backend = "cpu";
        auto m = Model::load(file, lo);
        backend::cpu_set_repack(had);
        ASSERT_TRUE(m.is_ok()) << m.error_message();
        model_ = *m;
        n_vocab_ = static_cast<size_t>(model_->info().n_vocab);
    }

    std::unique_ptr<Session> session(KvType kv = KvType::F16) const {
        auto st = KvStore::create(model_, {.kv_type = kv, .n_ctx = 256});
        EXPECT_TRUE(st.is_ok());
        auto s = Session::create(*st, {.n_threads = 2, .n_batch = 64});
        EXPECT_TRUE(s.is_ok());
        return s ? std::move(*s) : nullptr;
    }

    // Rows of logits that must be equal bit for bit.
    void expect_same(std::span<const float> alone, std::span<const float> batched,
                     const std::string& what) const {
        ASSERT_EQ(alone.size(), batched.size()) << what;
        size_t first = alone.size();
        for (size_t i = 0; i < alone.size() && first == alone.size(); ++i)
            if (std::memcmp(&alone[i], &batched[i], sizeof(float)) != 0) first = i;
        EXPECT_EQ(first, alone.size()) << what << ": first difference at row " << first / n_vocab_
                                       << " token " << first % n_vocab_ << ": " << alone[first]
                                       << " alone, " << batched[first] << " batched";
    }

    static inline fs::path dir_, vocab_;
    std::shared_ptr<Model> model_;
    size_t n_vocab_ = 0;
};

std::vector<int32_t> tokens_of(size_t n, uint32_t salt) {
    std::vector<int32_t> p;
    uint32_t x = 2024 + salt;
    while (p.size() < n) {
        x = x * 1103515245u + 12345u;
        p.push_back(3 + static_cast<int32_t>((x >> 16) % 253));
    }
    return p;
}

// Decode one token at a time vs one verification step of k + 1 tokens vs a prefill of the
// prompt and the tokens together: the same logits after each token.
TEST_P(BatchInvariance, LogitsAloneEqualVerificationAndPrefillRows) {
    constexpr size_t kSteps = 6;  // k = 5 drafted tokens plus the last real one
    for (KvType kv : {KvType::F16, KvType::Q8_0}) {
        for (size_t len : {15u, 17u, 60u, 63u, 64u, 65u}) {
            SCOPED_TRACE(std::string(kv_type_name(kv)) + ", prompt " + std::to_string(len));
            auto prompt = tokens_of(len, static_cast<uint32_t>(len));
            prompt.insert(prompt.begin(), 1);  // BOS
            const auto next = tokens_of(kSteps, 99);
            auto a = session(kv);
            ASSERT_TRUE(a->prefill(prompt).is_ok());
            std::vector<float> alone;
            for (int32_t t : next) {
                auto l = a->evaluate(std::span<const int32_t>(&t, 1));
                ASSERT_TRUE(l.is_ok()) << l.error_message();
                ASSERT_EQ(l->size(), n_vocab_);
                alone.insert(alone.end(), l->begin(), l->end());
            }
            auto b = session(kv);
            ASSERT_TRUE(b->prefill(prompt).is_ok());
            auto v = b->evaluate(next);
            ASSERT_TRUE(v.is_ok()) << v.error_message();
            expect_same(alone, *v, "verification of " + std::to_string(kSteps) + " tokens");
            // The whole sequence as one prefill (chunks of 64): its last logits.
            std::vector<int32_t> all = prompt;
            all.insert(all.end(), next.begin(), next.end());
            auto c = session(kv);
            ASSERT_TRUE(c->prefill(all).is_ok());
            expect_same(std::span<const float>(alone).last(n_vocab_), c->logits(),
                        "prefill of " + std::to_string(all.size()) + " tokens");
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    Formats, BatchInvariance,
    ::testing::Values(Case{model::WeightType::F16, true}, Case{model::WeightType::Q8_0, true},
                      Case{model::WeightType::Q8_0, false}, Case{model::WeightType::Q4_0, true},
                      Case{model::WeightType::Q4_0, false}, Case{model::WeightType::Q4_K, true}),
    [](const auto& info) { return case_name(info.param); });

}  // namespace
}  // namespace hearth
