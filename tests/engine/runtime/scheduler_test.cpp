// The continuous-batching scheduler on stories260K: every sequence's greedy output equals a
// full recomputation on the contiguous Context whether it runs alone or batched with others
// (prompt lengths across chunk boundaries), preemption and recompute give the same tokens,
// cancellation frees the blocks, a full queue and bad requests are refused, stop strings and
// per-request limits apply, and the stepping thread serves concurrent submitters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "hearth/scheduler.h"
#include "hearth/speculative.h"
#include "stories_scheduler_test.h"
#include "test_data.h"

namespace hearth {
namespace {

using test::Outcome;

class SchedulerTest : public test::StoriesSchedulerTest {
protected:
    static GenerationRequest greedy(std::vector<int32_t> p, int32_t n, Outcome& out) {
        GenerationRequest r;
        r.prompt = std::move(p);
        r.max_tokens = n;
        r.sampling.temperature = 0.f;
        r.stop_at_end_of_generation = false;
        r.on_event = test::record_into(out);
        return r;
    }

    static void drain(Scheduler& s, int max_steps = 10000) { test::drain(s, max_steps); }
};

TEST_F(SchedulerTest, GreedyOutputIsTheSameAloneAndBatched) {
    // Step budget 32: prompts of 5..75 tokens end inside, at and across chunk boundaries, and
    // prefill chunks share steps with other sequences' decodes.
    const size_t lengths[] = {5, 16, 31, 32, 33, 47, 75};
    const int32_t n_gen = 24;
    std::vector<std::vector<int32_t>> prompts, refs;
    for (size_t i = 0; i < std::size(lengths); ++i) {
        prompts.push_back(prompt(lengths[i], static_cast<uint32_t>(i * 7)));
        refs.push_back(reference(prompts.back(), n_gen));
    }
    // Alone: one sequence at a time.
    for (size_t i = 0; i < prompts.size(); ++i) {
        auto s = scheduler({.max_running = 1, .step_tokens = 32});
        Outcome o;
        ASSERT_TRUE(s->submit(greedy(prompts[i], n_gen, o)).ok());
        drain(*s);
        ASSERT_TRUE(o.done && o.error.empty()) << o.error;
        EXPECT_EQ(o.tokens, refs[i]) << "alone, prompt of " << lengths[i];
    }
    // Batched: all at once, admitted while others decode.
    auto s = scheduler({.max_running = 8, .step_tokens = 32});
    std::vector<Outcome> outs(prompts.size());
    for (size_t i = 0; i < prompts.size(); ++i)
        ASSERT_TRUE(s->submit(greedy(prompts[i], n_gen, outs[i])).ok());
    drain(*s);
    for (size_t i = 0; i < prompts.size(); ++i) {
        ASSERT_TRUE(outs[i].done && outs[i].error.empty()) << outs[i].error;
        EXPECT_EQ(outs[i].tokens, refs[i]) << "batched, prompt of " << lengths[i];
        EXPECT_EQ(outs[i].reason, StopReason::MaxTokens);
        EXPECT_EQ(outs[i].usage.prompt_tokens, int64_t(lengths[i]));
        EXPECT_EQ(outs[i].usage.completion_tokens, n_gen);
    }
    const SchedulerStats st = s->stats();
    EXPECT_EQ(st.running, 0);
    EXPECT_EQ(st.kv_blocks_free, st.kv_blocks);  // every block released
    EXPECT_EQ(st.requests_done, prompts.size());
    // Batching really happened: far fewer steps than one per token of every sequence.
    EXPECT_LT(st.steps, uint64_t(prompts.size() * n_gen));
    EXPECT_TRUE(s->check().is_ok());
}

TEST_F(SchedulerTest, SharedPrefixBlocksAreReused) {
    auto s = scheduler({.max_running = 4, .step_tokens = 64});
    const auto base = prompt(48, 3);
    auto a = base, b = base;
    a.push_back(base[5]);
    b.push_back(base[9]);
    Outcome oa, ob;
    ASSERT_TRUE(s->submit(greedy(a, 8, oa)).ok());
    drain(*s);
    ASSERT_TRUE(s->submit(greedy(b, 8, ob)).ok());
    drain(*s);
    EXPECT_EQ(ob.usage.cached_tokens, 48);  // three full blocks of the first request
    EXPECT_EQ(ob.tokens, reference(b, 8));
    EXPECT_GE(s->stats().prefix_hit_blocks, 3u);
}

TEST_F(SchedulerTest, PreemptionRecomputesTheSameTokens) {
    // Four sequences that grow to 100 tokens (7 blocks of 16 positions each) in a pool of 17
    // blocks: the newest ones are preempted and recomputed later.
    const int32_t n_gen = 60;
    std::vector<std::vector<int32_t>> prompts, refs;
    for (uint32_t i = 0; i < 4; ++i) {
        prompts.push_back(prompt(40, i * 11 + 1));
        refs.push_back(reference(prompts.back(), n_gen));
    }
    // A budget of 1 byte gives the minimum: one context (256 positions) and a spare block.
    auto s = scheduler({.n_ctx = 256, .max_running = 4, .step_tokens = 64, .kv_budget_bytes = 1});
    ASSERT_LT(s->stats().kv_blocks, 4 * 7);
    std::vector<Outcome> outs(prompts.size());
    for (size_t i = 0; i < prompts.size(); ++i)
        ASSERT_TRUE(s->submit(greedy(prompts[i], n_gen, outs[i])).ok());
    drain(*s);
    for (size_t i = 0; i < prompts.size(); ++i) {
        ASSERT_TRUE(outs[i].done && outs[i].error.empty()) << outs[i].error;
        EXPECT_EQ(outs[i].tokens, refs[i]) << "sequence " << i;
    }
    const SchedulerStats st = s->stats();
    EXPECT_GT(st.preemptions, 0u);
    int32_t preempted = 0;
    for (const auto& o : outs) preempted += o.usage.preemptions;
    EXPECT_EQ(uint64_t(preempted), st.preemptions);
    EXPECT_EQ(outs[0].usage.preemptions, 0);  // the oldest is never the victim
    EXPECT_EQ(st.kv_blocks_free, st.kv_blocks);
    EXPECT_TRUE(s->check().is_ok());
}

TEST_F(SchedulerTest, SeededSamplingIsTheSameAloneBatchedAndPreempted) {
    const auto run = [&](SchedulerOptions opt, size_t copies) {
        auto s = scheduler(opt);
        std::vector<Outcome> outs(copies);
        for (size_t i = 0; i < copies; ++i) {
            auto r = greedy(prompt(30, uint32_t(i)), 50, outs[i]);
            r.sampling = SamplingParams{};  // temperature 0.8, top-k 40, top-p 0.95
            r.sampling.seed = 1234 + i;
            r.sampling.frequency_penalty = 0.3f;
            EXPECT_TRUE(s->submit(std::move(r)).ok());
        }
        drain(*s);
        std::vector<std::vector<int32_t>> toks;
        for (auto& o : outs) toks.push_back(o.tokens);
        return toks;
    };
    const auto batched = run({.max_running = 3, .step_tokens = 32}, 3);
    // 9 blocks for three sequences of 80 tokens (5 blocks each): preemptions.
    const auto tight =
        run({.n_ctx = 128, .max_running = 3, .step_tokens = 32, .kv_budget_bytes = 1}, 3);
    for (size_t i = 0; i < 3; ++i) {
        auto alone = scheduler({.max_running = 1, .step_tokens = 32});
        Outcome o;
        auto r = greedy(prompt(30, uint32_t(i)), 50, o);
        r.sampling = SamplingParams{};
        r.sampling.seed = 1234 + i;
        r.sampling.frequency_penalty = 0.3f;
        ASSERT_TRUE(alone->submit(std::move(r)).ok());
        drain(*alone);
        EXPECT_EQ(o.tokens, batched[i]) << i;
        EXPECT_EQ(o.tokens, tight[i]) << i;
    }
}

TEST_F(SchedulerTest, CancelFreesBlocks) {
    auto s = scheduler({.max_running = 4, .step_tokens = 32});
    Outcome a, b, c;
    const auto id_a = s->submit(greedy(prompt(40, 1), 200, a));
    auto rb = greedy(prompt(40, 2), 200, b);
    rb.cancel = std::make_shared<std::atomic<bool>>(false);
    const CancelToken token_b = rb.cancel;
    ASSERT_TRUE(id_a.ok());
    ASSERT_TRUE(s->submit(std::move(rb)).ok());
    ASSERT_TRUE(s->submit(greedy(prompt(20, 3), 10, c)).ok());
    for (int i = 0; i < 100 && !c.done; ++i) ASSERT_TRUE(s->step().is_ok());
    ASSERT_TRUE(c.done);
    const SchedulerStats busy = s->stats();
    EXPECT_EQ(busy.running, 2);  // c has finished after its 10 tokens
    EXPECT_LT(busy.kv_blocks_free, busy.kv_blocks);
    s->cancel(id_a.id);
    token_b->store(true);
    ASSERT_TRUE(s->step().is_ok());
    EXPECT_TRUE(a.done && b.done && c.done);
    EXPECT_EQ(a.reason, StopReason::Cancelled);
    EXPECT_EQ(b.reason, StopReason::Cancelled);
    EXPECT_EQ(c.reason, StopReason::MaxTokens);
    EXPECT_LT(a.tokens.size(), 200u);
    const SchedulerStats idle = s->stats();
    EXPECT_EQ(idle.running, 0);
    EXPECT_EQ(idle.requests_cancelled, 2u);
    EXPECT_EQ(idle.kv_blocks_free, idle.kv_blocks);
    EXPECT_TRUE(s->check().is_ok());
    // Cancelling an unknown or finished request is harmless.
    s->cancel(999);
    s->cancel(id_a.id);
    EXPECT_TRUE(s->step().is_ok());
}

TEST_F(SchedulerTest, FullQueueAndBadRequestsAreRefused) {
    // One running slot and two queue places: three requests fit, the fourth is refused.
    auto s = scheduler({.max_running = 1, .step_tokens = 32, .max_queued = 2});
    Outcome o[5];
    EXPECT_TRUE(s->submit(greedy(prompt(10, 0), 4, o[0])).ok());
    EXPECT_TRUE(s->submit(greedy(prompt(10, 1), 4, o[1])).ok());
    EXPECT_TRUE(s->submit(greedy(prompt(10, 2), 4, o[2])).ok());
    const SubmitResult full = s->submit(greedy(prompt(10, 3), 4, o[3]));
    EXPECT_EQ(full.error, SubmitError::QueueFull);
    EXPECT_NE(full.message.find("queue is full"), std::string::npos);
    // Once one runs, it holds the slot and the queue is still full; once it ends, room again.
    ASSERT_TRUE(s->step().is_ok());
    EXPECT_EQ(s->submit(greedy(prompt(10, 3), 4, o[3])).error, SubmitError::QueueFull);
    for (int i = 0; i < 100 && !o[0].done; ++i) ASSERT_TRUE(s->step().is_ok());
    ASSERT_TRUE(s->step().is_ok());
    EXPECT_TRUE(s->submit(greedy(prompt(10, 3), 4, o[4])).ok());
    drain(*s);
    EXPECT_FALSE(o[3].done);  // the refused request never produced events
    EXPECT_TRUE(o[0].done && o[1].done && o[2].done && o[4].done);

    Outcome bad;
    EXPECT_EQ(s->submit(greedy({}, 4, bad)).error, SubmitError::Invalid);
    EXPECT_EQ(s->submit(greedy({1, 999999}, 4, bad)).error, SubmitError::Invalid);
    EXPECT_EQ(s->submit(greedy({1, -3}, 4, bad)).error, SubmitError::Invalid);
    EXPECT_EQ(s->submit(greedy(prompt(512, 0), 4, bad)).error, SubmitError::Invalid);
    EXPECT_EQ(s->submit(greedy(prompt(10, 0), 0, bad)).error, SubmitError::Invalid);
    s->stop();
    EXPECT_EQ(s->submit(greedy(prompt(10, 0), 4, bad)).error, SubmitError::Stopped);
    EXPECT_FALSE(bad.done);
}

TEST_F(SchedulerTest, StopStringsAndLimitsPerRequest) {
    const auto p = prompt(20, 4);
    const auto ref = reference(p, 40);
    const std::string ref_text = model_->detokenize(ref);
    ASSERT_GT(ref_text.size(), 30u);
    // A stop string from the middle of the reference reply.
    const std::string stop = ref_text.substr(ref_text.size() / 2, 6);
    auto s = scheduler({.max_running = 4, .step_tokens = 32});
    Outcome with_stop, short_one, to_ctx;
    auto r = greedy(p, 40, with_stop);
    r.stop_strings = {stop};
    ASSERT_TRUE(s->submit(std::move(r)).ok());
    ASSERT_TRUE(s->submit(greedy(p, 3, short_one)).ok());
    // 500 prompt tokens in a 512-token context: the reply ends at the context's end.
    ASSERT_TRUE(s->submit(greedy(prompt(500, 1), 100, to_ctx)).ok());
    drain(*s);
    EXPECT_EQ(with_stop.reason, StopReason::StopString);
    EXPECT_EQ(with_stop.text, ref_text.substr(0, ref_text.find(stop)));
    EXPECT_EQ(short_one.reason, StopReason::MaxTokens);
    EXPECT_EQ(short_one.tokens, std::vector<int32_t>(ref.begin(), ref.begin() + 3));
    EXPECT_EQ(to_ctx.reason, StopReason::ContextFull);
    EXPECT_EQ(to_ctx.tokens.size(), 13u);  // positions 500..511 computed, one more sampled
}

TEST_F(SchedulerTest, ThreadServesConcurrentSubmitters) {
    auto s = scheduler({.max_running = 4, .step_tokens = 64});
    s->start();
    std::mutex mu;
    std::condition_variable cv;
    int done = 0;
    std::vector<Outcome> outs(6);
    std::vector<std::thread> clients;
    for (size_t i = 0; i < outs.size(); ++i)
        clients.emplace_back([&, i] {
            auto r = greedy(prompt(12 + i * 5, uint32_t(i)), 16, outs[i]);
            auto inner = r.on_event;
            r.on_event = [&, inner](const StreamEvent& e) {
                inner(e);
                if (e.done) {
                    std::lock_guard l(mu);
                    ++done;
                    cv.notify_all();
                }
            };
            EXPECT_TRUE(s->submit(std::move(r)).ok());
        });
    for (auto& t : clients) t.join();
    {
        std::unique_lock l(mu);
        ASSERT_TRUE(cv.wait_for(l, std::chrono::seconds(120), [&] { return done == 6; }));
    }
    s->stop();
    for (size_t i = 0; i < outs.size(); ++i)
        EXPECT_EQ(outs[i].tokens, reference(prompt(12 + i * 5, uint32_t(i)), 16)) << i;
}

TEST_F(SchedulerTest, StopEndsOpenRequestsWithAnError) {
    auto s = scheduler({.max_running = 2, .step_tokens = 32});
    Outcome a, b;
    ASSERT_TRUE(s->submit(greedy(prompt(30, 0), 100, a)).ok());
    ASSERT_TRUE(s->submit(greedy(prompt(30, 1), 100, b)).ok());
    ASSERT_TRUE(s->step().is_ok());
    s->stop();
    EXPECT_TRUE(a.done && b.done);
    EXPECT_FALSE(a.error.empty());
    EXPECT_EQ(s->stats().kv_blocks_free, s->stats().kv_blocks);
}

// OpenAI's logprobs: every token event of a request that asks carries log_softmax of the
// model's logits (a contiguous Context fed the same tokens gives the reference), the chosen
// token's and the n most likely ones', greedy, sampled and with a drafter alike; others carry
// none; out-of-range counts are refused.
struct LoggedToken {
    int32_t token = -1;
    bool has = false;
    float logprob = 0.f;
    std::vector<TokenLogprob> top;
};

std::vector<double> log_softmax(std::span<const float> logits) {
    double mx = -INFINITY, sum = 0;
    for (float x : logits) mx = std::max(mx, double(x));
    for (float x : logits) sum += std::exp(double(x) - mx);
    std::vector<double> out;
    for (float x : logits) out.push_back(double(x) - mx - std::log(sum));
    return out;
}

TEST_F(SchedulerTest, LogprobsAreTheModelsLogSoftmax) {
    const auto p = prompt(20, 3);
    const int32_t n_gen = 12, n_top = 5;
    auto request = [&](std::vector<LoggedToken>& log, int32_t logprobs, float temperature,
                       bool lookup) {
        GenerationRequest r;
        r.prompt = p;
        r.max_tokens = n_gen;
        r.sampling.temperature = temperature;
        r.sampling.seed = 11;
        r.stop_at_end_of_generation = false;
        r.logprobs = logprobs;
        if (lookup) r.drafter = make_lookup_drafter({.ngram_min = 1, .ngram_max = 3});
        r.on_event = [&log](const StreamEvent& e) {
            if (e.token >= 0) log.push_back({e.token, e.has_logprob, e.logprob, e.top_logprobs});
        };
        return r;
    };
    std::vector<LoggedToken> greedy_log, sampled_log, draft_log, none_log, zero_log;
    auto s = scheduler({.max_running = 8, .step_tokens = 32});
    ASSERT_TRUE(s->submit(request(greedy_log, n_top, 0.f, false)).ok());
    ASSERT_TRUE(s->submit(request(sampled_log, n_top, 0.9f, false)).ok());
    ASSERT_TRUE(s->submit(request(draft_log, n_top, 0.f, true)).ok());
    ASSERT_TRUE(s->submit(request(none_log, -1, 0.f, false)).ok());
    ASSERT_TRUE(s->submit(request(zero_log, 0, 0.f, false)).ok());
    drain(*s);
    const auto check = [&](const std::vector<LoggedToken>& log, size_t want_top, const char* what) {
        ASSERT_EQ(log.size(), size_t(n_gen)) << what;
        auto ctx = Context::create(model_, {.n_ctx = 512, .n_threads = 2});
        ASSERT_TRUE(ctx.is_ok());
        ASSERT_TRUE((*ctx)->feed(p).is_ok());
        for (size_t i = 0; i < log.size(); ++i) {
            const auto logits = (*ctx)->logits();
            const std::vector<double> ref = log_softmax(logits);
            const LoggedToken& t = log[i];
            ASSERT_TRUE(t.has) << what << ", token " << i;
            EXPECT_NEAR(t.logprob, ref[size_t(t.token)], 1e-4) << what << ", token " << i;
            // The reference's most likely tokens, equal logits by id.
            std::vector<int32_t> ids(logits.size());
            for (size_t k = 0; k < ids.size(); ++k) ids[k] = int32_t(k);
            std::stable_sort(ids.begin(), ids.end(), [&](int32_t a, int32_t b) {
                return logits[size_t(a)] > logits[size_t(b)];
            });
            ASSERT_EQ(t.top.size(), want_top) << what;
            for (size_t k = 0; k < want_top; ++k) {
                EXPECT_EQ(t.top[k].token, ids[k]) << what << ", token " << i << ", rank " << k;
                EXPECT_NEAR(t.top[k].logprob, ref[size_t(ids[k])], 1e-4) << what;
            }
            ASSERT_TRUE((*ctx)->feed(std::vector<int32_t>{t.token}).is_ok());
        }
    };
    check(greedy_log, n_top, "greedy");
    check(sampled_log, n_top, "sampled");
    check(draft_log, n_top, "lookup drafter");
    check(zero_log, 0, "logprobs 0");
    for (size_t i = 0; i < greedy_log.size(); ++i) {
        EXPECT_EQ(greedy_log[i].token, greedy_log[i].top[0].token);  // greedy takes the best
        EXPECT_EQ(draft_log[i].token, greedy_log[i].token);
        EXPECT_EQ(none_log[i].token, greedy_log[i].token);  // on-device argmax, same token
        EXPECT_FALSE(none_log[i].has);
    }
    for (int32_t bad : {-2, kMaxTopLogprobs + 1}) {
        Outcome o;
        GenerationRequest r = greedy(p, 4, o);
        r.logprobs = bad;
        EXPECT_EQ(s->submit(std::move(r)).error, SubmitError::Invalid) << bad;
    }
}

}  // namespace
}  // namespace hearth
