// Sliding-window models (gemma2, gemma3 of ../shared/models/archs: window 16) on the paged KV
// cache: a second turn that reuses the cached prefix (longer than the window) and a fork give
// the same greedy ids as a full recomputation on the contiguous cache, and the first turn gives
// llama.cpp's.
#include <gtest/gtest.h>

#include <cstring>

#include <nlohmann/json.hpp>

#include "hearth/session.h"
#include "test_data.h"

namespace hearth {
namespace {

GenerateOptions greedy(int32_t n) {
    GenerateOptions o;
    o.max_tokens = n;
    o.sampling.temperature = 0.f;
    o.stop_at_end_of_generation = false;
    return o;
}

std::vector<int32_t> reference(const std::shared_ptr<Model>& model, std::span<const int32_t> prompt,
                               int32_t n) {
    auto ctx = Context::create(model, {.n_ctx = 512, .kv_type = KvType::F32, .n_threads = 2});
    EXPECT_TRUE(ctx.is_ok());
    EXPECT_TRUE((*ctx)->feed(prompt).is_ok());
    auto r = (*ctx)->generate(greedy(n));
    EXPECT_TRUE(r.is_ok());
    return r ? r->tokens : std::vector<int32_t>{};
}

class SlidingWindowSession : public ::testing::TestWithParam<const char*> {};

TEST_P(SlidingWindowSession, PrefixReuseAndForkMatchFullRecomputation) {
    const std::string name = GetParam();
    HEARTH_REQUIRE_SHARED(model_path, "models/archs/" + name + ".gguf");
    HEARTH_REQUIRE_SHARED(golden_path, "models/archs/" + name + ".golden.json");
    const auto golden = nlohmann::json::parse(test::read_file(golden_path));
    auto model = Model::load(model_path);
    ASSERT_TRUE(model.is_ok()) << model.error_message();
    auto store = KvStore::create(*model, {.kv_type = KvType::F32, .n_ctx = 512});
    ASSERT_TRUE(store.is_ok());
    auto s = Session::create(*store, {.n_threads = 2, .n_batch = 24, .reply_reserve = 64});
    ASSERT_TRUE(s.is_ok());

    // Turn 1: the 60-token prompt in chunks of 24 (over several KV blocks), 20 greedy tokens.
    const auto& c = golden["cases"][1];
    std::vector<int32_t> flat = c["prompt_token_ids"].get<std::vector<int32_t>>();
    ASSERT_TRUE((*s)->prefill(std::span<const int32_t>(flat)).is_ok());
    auto first = (*s)->generate(greedy(20));
    ASSERT_TRUE(first.is_ok());
    const auto want_ids = c["greedy_ids"].get<std::vector<int32_t>>();
    EXPECT_EQ(first->tokens, std::vector<int32_t>(want_ids.begin(), want_ids.begin() + 20));

    // Turn 2: the reply and a new message; only the tail is computed.
    flat.insert(flat.end(), first->tokens.begin(), first->tokens.end());
    const size_t before = flat.size();
    for (int32_t t : {5, 77, 300, 41, 9, 250, 128, 3, 17, 400}) flat.push_back(t);
    auto rep = (*s)->prefill(std::span<const int32_t>(flat));
    ASSERT_TRUE(rep.is_ok());
    EXPECT_EQ(rep->n_reused, int64_t(before) - 1);  // all but the reply's last token
    auto second = (*s)->generate(greedy(24));
    ASSERT_TRUE(second.is_ok());
    EXPECT_EQ(second->tokens, reference(*model, flat, 24));

    // A fork inside the first turn, then a different continuation.
    auto fork = (*s)->fork(40);
    ASSERT_TRUE(fork.is_ok());
    std::vector<int32_t> branch(flat.begin(), flat.begin() + 40);
    for (int32_t t : {11, 22, 33, 44, 55, 66, 77, 88}) branch.push_back(t);
    auto frep = (*fork)->prefill(std::span<const int32_t>(branch));
    ASSERT_TRUE(frep.is_ok());
    EXPECT_EQ(frep->n_reused, 40);
    auto third = (*fork)->generate(greedy(24));
    ASSERT_TRUE(third.is_ok());
    EXPECT_EQ(third->tokens, reference(*model, branch, 24));
}

// Batch invariance with a sliding window (cpu/kernels/kernels.h): the logits after each token
// are the same bits whether it is decoded alone, verified among 6 tokens (a speculative step),
// or the last of one 70-token prefill, where the first cell any row of the step sees (and so
// where a chunk of cells could start) is far from a lone token's.
TEST_P(SlidingWindowSession, LogitsAloneEqualVerificationAndPrefillRows) {
    const std::string name = GetParam();
    HEARTH_REQUIRE_SHARED(model_path, "models/archs/" + name + ".gguf");
    LoadOptions lo;
    lo.backend = "cpu";
    auto model = Model::load(model_path, lo);
    ASSERT_TRUE(model.is_ok()) << model.error_message();
    const auto n_vocab = static_cast<int32_t>((*model)->info().n_vocab);
    std::vector<int32_t> all;
    for (int32_t i = 0; i < 70; ++i) all.push_back(3 + (i * 131 + 7) % (n_vocab - 3));
    const std::span<const int32_t> prompt(all.data(), 64), next(all.data() + 64, 6);
    const auto session = [&] {
        auto store = KvStore::create(*model, {.kv_type = KvType::F16, .n_ctx = 256});
        EXPECT_TRUE(store.is_ok());
        auto s = Session::create(*store, {.n_threads = 2, .n_batch = 128});
        EXPECT_TRUE(s.is_ok());
        return std::move(*s);
    };
    auto a = session();
    ASSERT_TRUE(a->prefill(prompt).is_ok());
    std::vector<float> alone;
    for (int32_t t : next) {
        auto l = a->evaluate(std::span<const int32_t>(&t, 1));
        ASSERT_TRUE(l.is_ok()) << l.error_message();
        alone.insert(alone.end(), l->begin(), l->end());
    }
    auto b = session();
    ASSERT_TRUE(b->prefill(prompt).is_ok());
    auto v = b->evaluate(next);
    ASSERT_TRUE(v.is_ok()) << v.error_message();
    ASSERT_EQ(v->size(), alone.size());
    EXPECT_EQ(std::memcmp(v->data(), alone.data(), alone.size() * sizeof(float)), 0)
        << "verification rows differ from the tokens decoded alone";
    auto c = session();
    ASSERT_TRUE(c->prefill(std::span<const int32_t>(all)).is_ok());
    const auto last = std::span<const float>(alone).last(static_cast<size_t>(n_vocab));
    ASSERT_EQ(c->logits().size(), last.size());
    EXPECT_EQ(std::memcmp(c->logits().data(), last.data(), last.size() * sizeof(float)), 0)
        << "the last row of a 70-token prefill differs from the token decoded alone";
}

INSTANTIATE_TEST_SUITE_P(Gemma, SlidingWindowSession, ::testing::Values("gemma2", "gemma3"));

}  // namespace
}  // namespace hearth
