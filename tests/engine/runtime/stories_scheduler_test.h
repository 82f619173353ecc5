// The shared setup of the scheduler tests on stories260K: the model (sequences of 512
// positions, past its 128-token training context, allowed explicitly), story-word prompts, the
// greedy reference from the contiguous Context, and a scheduler on two threads.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "hearth/engine.h"
#include "hearth/scheduler.h"
#include "test_data.h"

namespace hearth::test {

// What a request's events said: its tokens, its text, and how it ended.
struct Outcome {
    std::vector<int32_t> tokens;
    std::string text;
    bool done = false;
    StopReason reason = StopReason::MaxTokens;
    std::string error;
    RequestUsage usage;
};

// A GenerationRequest::on_event that records into out.
inline std::function<void(const StreamEvent&)> record_into(Outcome& out) {
    return [&out](const StreamEvent& e) {
        if (e.token >= 0) out.tokens.push_back(e.token);
        out.text += e.text;
        if (e.done) {
            out.done = true;
            out.reason = e.reason;
            out.error = e.error;
            out.usage = e.usage;
        }
    };
}

// Steps the scheduler until it has nothing to do; fails the test after max_steps.
inline void drain(Scheduler& s, int max_steps) {
    for (int i = 0; i < max_steps; ++i) {
        auto r = s.step();
        ASSERT_TRUE(r.is_ok()) << r.error_message();
        if (!*r) return;
    }
    FAIL() << "the scheduler did not finish";
}

// n greedy tokens after p, computed alone on a contiguous Context of n_ctx cells: what every
// scheduler sequence must reproduce.
inline std::vector<int32_t> greedy_reference(const std::shared_ptr<Model>& model,
                                             std::span<const int32_t> p, int32_t n, int32_t n_ctx) {
    auto ctx = Context::create(model, {.n_ctx = n_ctx, .n_threads = 2});
    EXPECT_TRUE(ctx.is_ok());
    if (!ctx) return {};
    EXPECT_TRUE((*ctx)->feed(p).is_ok());
    GenerateOptions o;
    o.max_tokens = n;
    o.sampling.temperature = 0.f;
    o.stop_at_end_of_generation = false;
    auto r = (*ctx)->generate(o);
    EXPECT_TRUE(r.is_ok());
    return r ? r->tokens : std::vector<int32_t>{};
}

class StoriesSchedulerTest : public ::testing::Test {
protected:
    void SetUp() override {
        HEARTH_REQUIRE_SHARED(path, "models/stories260K.gguf");
        LoadOptions lo;
        lo.ctx_beyond_training = true;
        auto m = Model::load(path, lo);
        ASSERT_TRUE(m.is_ok()) << m.error_message();
        model_ = *m;
    }

    // Story words, repeated and offset, so prompts differ from the first token on (and prompt
    // lookup finds n-grams in them).
    std::vector<int32_t> prompt(size_t n, uint32_t salt) const {
        static const char* kText =
            "Once upon a time there was a little girl named Lily. She loved to play in the park "
            "with her dog Max. One day they found a big red ball under a tree and ran home to "
            "show mom. Mom smiled and baked a cake for everyone in the town.";
        auto t = model_->tokenize(kText, false, false);
        std::vector<int32_t> out{1};  // BOS
        for (size_t i = 0; out.size() < n; ++i) out.push_back((*t)[(i + salt) % t->size()]);
        return out;
    }

    // n greedy tokens after p, computed alone on a contiguous Context.
    std::vector<int32_t> reference(std::span<const int32_t> p, int32_t n) const {
        return greedy_reference(model_, p, n, 512);
    }

    std::unique_ptr<Scheduler> scheduler(SchedulerOptions o) const {
        o.n_threads = 2;
        if (o.n_ctx == 0) o.n_ctx = 512;
        auto s = Scheduler::create(model_, o);
        EXPECT_TRUE(s.is_ok()) << s.error_message();
        return s ? std::move(*s) : nullptr;
    }

    std::shared_ptr<Model> model_;
};

}  // namespace hearth::test
