// Samplers keep exactly the intended tokens on constructed distributions; draws are seeded.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "hearth/engine.h"
#include "runtime/logprobs.h"
#include "runtime/sampler.h"
#include "runtime/stop_matcher.h"

namespace hearth::runtime {
namespace {

std::set<int32_t> kept(Sampler& s, const std::vector<float>& logits) {
    Candidates c;
    c.reset(logits);
    s.apply(c);
    std::set<int32_t> ids;
    for (const auto& t : c.data) ids.insert(t.id);
    return ids;
}

// Logits whose softmax is exactly these probabilities (up to rounding), ids shuffled.
const std::vector<float> kProbs = {0.1f, 0.5f, 0.05f, 0.2f, 0.15f};
std::vector<float> log_probs() {
    std::vector<float> l;
    for (float p : kProbs) l.push_back(std::log(p));
    return l;
}

// OpenAI's logit_bias: added before any other step, greedy or sampled; the chain is then no
// longer plain greedy (the device's argmax would skip it); unknown ids change nothing.
TEST(Samplers, LogitBiasShiftsTokensBeforeEveryOtherStep) {
    const std::vector<float> logits = {1.f, 3.f, -2.f, 2.5f};
    SamplingParams greedy;
    greedy.temperature = 0.f;
    EXPECT_TRUE(is_plain_greedy(greedy));
    greedy.logit_bias = {{1, -100.f}, {7, 50.f}, {-3, 50.f}};  // ban the best; ids outside
    EXPECT_FALSE(is_plain_greedy(greedy));
    EXPECT_EQ(make_sampler_chain(greedy).sample(logits), 3);
    greedy.logit_bias = {{2, 100.f}};  // force the worst
    EXPECT_EQ(make_sampler_chain(greedy).sample(logits), 2);
    SamplingParams sampled;
    sampled.temperature = 1.f;
    sampled.top_k = 2;  // keeps the two best after the bias: 2 and 0
    sampled.logit_bias = {{2, 10.f}, {0, 5.f}};
    for (uint64_t seed = 0; seed < 50; ++seed) {
        sampled.seed = seed;
        const int32_t t = make_sampler_chain(sampled).sample(logits);
        EXPECT_TRUE(t == 2 || t == 0) << seed;
    }
    sampled.penalty_last_n = 4;
    sampled.frequency_penalty = 1.f;  // a penalty after the bias: the chain still biases
    auto chain = make_sampler_chain(sampled);
    chain.accept(1);
    const Candidates& d = chain.distribution(logits);
    ASSERT_EQ(d.data.size(), 2u);
    EXPECT_EQ(d.data[0].id, 2);
}

// OpenAI's logprobs: log-softmax against a double reference, the n best with ties to the
// lower id, n past the vocabulary, a token outside it.
TEST(Logprobs, LogSoftmaxAndTheBestWithLowIdsWinningTies) {
    const std::vector<float> logits = {1.f, 3.f, -2.f, 3.f, 0.5f, -INFINITY};
    double z = 0;
    for (float x : logits) z += std::exp(double(x));
    std::vector<TokenLogprob> top;
    const float lp = token_logprob(logits, 4, 3, top);
    EXPECT_NEAR(lp, 0.5 - std::log(z), 1e-6);
    ASSERT_EQ(top.size(), 3u);
    EXPECT_EQ(top[0].token, 1);  // 3.0 twice: the lower id first
    EXPECT_EQ(top[1].token, 3);
    EXPECT_EQ(top[2].token, 0);
    EXPECT_NEAR(top[0].logprob, 3.0 - std::log(z), 1e-6);
    EXPECT_EQ(top[0].logprob, top[1].logprob);
    EXPECT_EQ(token_logprob(logits, 5, 0, top), -INFINITY);  // a logit of -inf
    EXPECT_TRUE(top.empty());
    token_logprob(logits, 0, 50, top);  // more than the vocabulary: all of it, in order
    ASSERT_EQ(top.size(), logits.size());
    EXPECT_EQ(top.back().token, 5);
    EXPECT_EQ(token_logprob(logits, 6, 1, top), -INFINITY);  // outside the vocabulary
    // A large vocabulary with one clear winner: its probability is what is left of the rest.
    std::vector<float> big(151936, 0.f);
    big[77] = 20.f;
    const double zb = std::exp(20.0) + double(big.size() - 1);
    EXPECT_NEAR(token_logprob(big, 77, 2, top), 20.0 - std::log(zb), 1e-6);
    EXPECT_NEAR(token_logprob(big, 5, 2, top), -std::log(zb), 1e-4);
    ASSERT_EQ(top.size(), 2u);
    EXPECT_EQ(top[0].token, 77);
    EXPECT_EQ(top[1].token, 0);
}

TEST(Samplers, TopKKeepsTheKBestWithLowIdsWinningTies) {
    const std::vector<float> logits = {1, 5, 3, 5, 2};
    EXPECT_EQ(kept(*make_top_k(2), logits), (std::set<int32_t>{1, 3}));
    EXPECT_EQ(kept(*make_top_k(3), logits), (std::set<int32_t>{1, 2, 3}));
    EXPECT_EQ(kept(*make_top_k(1), {4, 4, 4}), (std::set<int32_t>{0}));
    EXPECT_EQ(kept(*make_top_k(0), logits).size(), 5u);
    EXPECT_EQ(kept(*make_top_k(9), logits).size(), 5u);
}

TEST(Samplers, TopPKeepsTheSmallestSetReachingP) {
    // Sorted: id1 0.5, id3 0.2, id4 0.15, id0 0.1, id2 0.05
    EXPECT_EQ(kept(*make_top_p(0.45f), log_probs()), (std::set<int32_t>{1}));
    EXPECT_EQ(kept(*make_top_p(0.6f), log_probs()), (std::set<int32_t>{1, 3}));
    EXPECT_EQ(kept(*make_top_p(0.8f), log_probs()), (std::set<int32_t>{1, 3, 4}));
    EXPECT_EQ(kept(*make_top_p(0.9f), log_probs()), (std::set<int32_t>{0, 1, 3, 4}));
    EXPECT_EQ(kept(*make_top_p(1.0f), log_probs()).size(), 5u);
}

TEST(Samplers, MinPKeepsTokensAboveAFractionOfTheBest) {
    EXPECT_EQ(kept(*make_min_p(0.25f), log_probs()), (std::set<int32_t>{1, 3, 4}));  // >= .125
    EXPECT_EQ(kept(*make_min_p(0.35f), log_probs()), (std::set<int32_t>{1, 3}));     // >= .175
    EXPECT_EQ(kept(*make_min_p(0.9f), log_probs()), (std::set<int32_t>{1}));
    EXPECT_EQ(kept(*make_min_p(0.0f), log_probs()).size(), 5u);
}

TEST(Samplers, TemperatureZeroKeepsOnlyTheBest) {
    EXPECT_EQ(kept(*make_temperature(0.f), log_probs()), (std::set<int32_t>{1}));
    Candidates c;
    c.reset(std::vector<float>{2.f, -4.f});
    make_temperature(2.f)->apply(c);
    EXPECT_FLOAT_EQ(c.data[0].logit, 1.f);
    EXPECT_FLOAT_EQ(c.data[1].logit, -2.f);
}

TEST(Samplers, GreedyPicksTheLowestIdOnATie) {
    Candidates c;
    c.reset(std::vector<float>{1, 7, 3, 7});
    make_greedy()->apply(c);
    EXPECT_EQ(c.selected, 1);
}

TEST(Samplers, GreedyChainPicksWhatTheGreedySamplerPicks) {
    // The plain greedy chain skips the candidate list (greedy_argmax): same choice on ties,
    // NaN, infinities and rows of only NaN or only -inf.
    std::mt19937 rng(3);
    const float specials[] = {NAN, INFINITY, -INFINITY, 0.f, 1.f};
    for (int trial = 0; trial < 2000; ++trial) {
        std::vector<float> l(1 + rng() % 40);
        for (auto& x : l)
            x = rng() % 4 == 0 ? specials[rng() % 5] : float(int(rng() % 7) - 3);  // many ties
        if (trial % 50 == 0) std::fill(l.begin(), l.end(), trial % 100 ? NAN : -INFINITY);
        Candidates c;
        c.reset(l);
        make_greedy()->apply(c);
        SamplerChain chain = make_sampler_chain(SamplingParams{.temperature = 0.f});
        ASSERT_EQ(chain.sample(l), c.selected) << "trial " << trial;
        ASSERT_EQ(greedy_argmax(l), c.selected);
    }
    EXPECT_EQ(greedy_argmax({}), -1);
}

TEST(Samplers, PenaltiesUseTheWindow) {
    auto p = make_penalties(/*window=*/2, /*repeat=*/2.f, /*freq=*/0.5f, /*presence=*/0.25f);
    p->accept(0);
    p->accept(1);
    p->accept(1);  // window now {1, 1}: token 0 left it
    Candidates c;
    c.reset(std::vector<float>{4.f, 4.f, -4.f});
    p->apply(c);
    EXPECT_FLOAT_EQ(c.data[0].logit, 4.f);
    EXPECT_FLOAT_EQ(c.data[1].logit, 4.f / 2 - 2 * 0.5f - 0.25f);
    EXPECT_FLOAT_EQ(c.data[2].logit, -4.f);
    p->accept(2);
    c.reset(std::vector<float>{4.f, 4.f, -4.f});
    p->apply(c);
    EXPECT_FLOAT_EQ(c.data[1].logit, 4.f / 2 - 0.5f - 0.25f);
    EXPECT_FLOAT_EQ(c.data[2].logit, -4.f * 2 - 0.5f - 0.25f);
    // After a sampler reordered the list, tokens are found by id, not by position.
    c.reset(std::vector<float>{-1.f, 4.f, 6.f, 3.f});
    make_top_k(3)->apply(c);  // ids 2, 1, 3
    ASSERT_FALSE(c.id_order);
    p->apply(c);
    ASSERT_EQ(c.data.size(), 3u);
    EXPECT_EQ(c.data[0].id, 2);
    EXPECT_FLOAT_EQ(c.data[0].logit, 6.f / 2 - 0.5f - 0.25f);
    EXPECT_FLOAT_EQ(c.data[1].logit, 4.f / 2 - 0.5f - 0.25f);
    EXPECT_FLOAT_EQ(c.data[2].logit, 3.f);
}

TEST(Samplers, SeededDrawsAreReproducibleAndFollowTheDistribution) {
    SamplingParams sp;
    sp.temperature = 1.f;
    sp.top_k = 0;
    sp.top_p = 1.f;
    sp.min_p = 0.f;
    sp.seed = 1234;
    SamplerChain a = make_sampler_chain(sp), b = make_sampler_chain(sp);
    sp.seed = 99;
    SamplerChain other = make_sampler_chain(sp);
    const auto logits = log_probs();
    std::vector<int32_t> da, db, dother;
    std::vector<int> counts(5, 0);
    const int n = 20000;
    for (int i = 0; i < n; ++i) {
        da.push_back(a.sample(logits));
        db.push_back(b.sample(logits));
        dother.push_back(other.sample(logits));
        ++counts[size_t(da.back())];
    }
    EXPECT_EQ(da, db);
    EXPECT_NE(da, dother);
    for (size_t i = 0; i < 5; ++i) EXPECT_NEAR(double(counts[i]) / n, kProbs[i], 0.015) << i;
    SamplerChain copy = a;  // a clone continues from a fresh state: reset both and compare
    a.reset();
    copy.reset();
    for (int i = 0; i < 50; ++i) EXPECT_EQ(a.sample(logits), copy.sample(logits));
}

// The cutting samplers order only the head of a large list (Candidates::sort_top, a heap for a
// few tokens, nth_element for more): what they keep, and its order, must be what sorting the
// whole list gives. Logits rounded to a coarse grid, so ties are everywhere; 50k tokens, so
// several rounds of ordering run; one list with NaNs (below every number).
TEST(Samplers, PartialOrderingKeepsWhatAFullSortKeeps) {
    std::mt19937 rng(3);
    std::normal_distribution<float> nd(0.f, 1.f);
    for (const float spread : {0.5f, 4.f, -4.f}) {  // flat (top-p walks far), peaked, NaNs
        std::vector<float> logits(50000);
        for (float& l : logits) l = std::round(nd(rng) * spread * 8.f) / 8.f;
        const bool nans = spread < 0;
        if (nans)
            for (size_t i = 0; i < logits.size(); i += 7) logits[i] = NAN;
        Candidates full;
        full.reset(logits);
        std::sort(full.data.begin(), full.data.end(), ranks_before);
        const auto expect_prefix = [&](const Candidates& c, size_t n, const char* what) {
            ASSERT_EQ(c.data.size(), n) << what;
            for (size_t i = 0; i < n; ++i) ASSERT_EQ(c.data[i].id, full.data[i].id) << what << i;
        };
        for (const size_t k : {size_t{1}, size_t{40}, size_t{1000}, size_t{49999}}) {
            Candidates c;
            c.reset(logits);
            c.sort_top(k / 2 + 1);  // a second round extends the first
            c.sort_top(k);
            ASSERT_GE(c.n_sorted, k);
            for (size_t i = 0; i < k; ++i)
                ASSERT_EQ(c.data[i].id, full.data[i].id) << k << " " << i;
            Candidates top;
            top.reset(logits);
            make_top_k(int32_t(k))->apply(top);
            expect_prefix(top, k, "top-k");
        }
        // min-p and top-p against the definitions on the fully sorted list.
        const double max_logit = full.data[0].logit;
        if (nans) {  // a NaN is never kept while numbers are left
            for (size_t i = 0; i < 40; ++i) ASSERT_FALSE(std::isnan(full.data[i].logit));
        }
        for (const float p : {0.01f, 0.2f, 0.9f}) {
            size_t n_min = 0;
            while (n_min < full.data.size() &&
                   full.data[n_min].logit >= float(max_logit) + std::log(p))
                ++n_min;
            Candidates c;
            c.reset(logits);
            make_min_p(p)->apply(c);
            expect_prefix(c, std::max<size_t>(1, n_min), "min-p");
        }
        for (const float p : {0.05f, 0.5f, 0.95f}) {
            if (nans) break;  // a NaN logit has no probability
            Candidates c;
            c.reset(logits);
            make_top_p(p)->apply(c);
            Candidates ref = full;
            ref.softmax();
            double cum = 0;
            size_t n_top = ref.data.size();
            for (size_t i = 0; i < ref.data.size(); ++i)
                if ((cum += ref.data[i].p) >= p) {
                    n_top = i + 1;
                    break;
                }
            // The sums may round differently in another order: allow the boundary to move by
            // a token, never more.
            ASSERT_NEAR(double(c.data.size()), double(n_top), 1.0) << p;
            expect_prefix(c, c.data.size(), "top-p");
        }
    }
}

TEST(Samplers, ChainFiltersBeforeDrawing) {
    SamplingParams sp;
    sp.temperature = 1.f;
    sp.top_k = 2;
    sp.top_p = 1.f;
    sp.min_p = 0.f;
    sp.seed = 7;
    SamplerChain c = make_sampler_chain(sp);
    for (int i = 0; i < 500; ++i) {
        const int32_t t = c.sample(log_probs());
        EXPECT_TRUE(t == 1 || t == 3) << t;
    }
    sp.temperature = 0.f;
    SamplerChain g = make_sampler_chain(sp);
    EXPECT_EQ(g.sample(log_probs()), 1);
}

TEST(StopMatcher, HoldsBackPossibleStopStringsAndCutsAtTheFirst) {
    StopMatcher m({"</s>", "\n\n"});
    bool stop = false;
    std::string shown = m.push("Hello <", stop);
    EXPECT_EQ(shown, "Hello ");
    EXPECT_FALSE(stop);
    shown = m.push("/b>", stop);  // not a stop string after all
    EXPECT_EQ(shown, "</b>");
    shown = m.push(" end\n", stop);
    EXPECT_EQ(shown, " end");
    shown = m.push("\nmore", stop);
    EXPECT_TRUE(stop);
    EXPECT_EQ(shown, "");
    StopMatcher none({});
    EXPECT_EQ(none.push("abc", stop), "abc");
    StopMatcher tail({"xyz"});
    EXPECT_EQ(tail.push("abx", stop), "ab");
    EXPECT_EQ(tail.finish(), "x");
}

}  // namespace
}  // namespace hearth::runtime
