// The speculative generation loop on its own (runtime/spec_generate.h), over a stand-in target
// whose next token is a fixed function of the last one: which hook each step takes, and that
// the tokens are plain decoding's. The end-to-end tests on real models are speculative_test.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <vector>

#include "hearth/speculative.h"
#include "runtime/spec_generate.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/vocab_data.h"

namespace hearth::runtime {
namespace {

constexpr int32_t kVocab = 16;

// The target: after token t the logits peak at (3 t + 1) mod kVocab.
int32_t next_of(int32_t t) {
    return (3 * t + 1) % kVocab;
}
std::vector<float> logits_after(int32_t t) {
    std::vector<float> l(kVocab, 0.f);
    l[size_t(next_of(t))] = 5.f;
    return l;
}

std::unique_ptr<tokenizer::Tokenizer> small_vocab() {
    tokenizer::VocabData d;
    d.kind = tokenizer::VocabKind::Spm;
    for (int32_t i = 0; i < kVocab; ++i) {
        d.tokens.push_back(i == 0 ? "<unk>" : "\xE2\x96\x81w" + std::to_string(i));
        d.types.push_back(i == 0 ? tokenizer::TokenType::Unknown : tokenizer::TokenType::Normal);
        d.scores.push_back(0);
    }
    auto t = tokenizer::Tokenizer::from_data(std::move(d));
    EXPECT_TRUE(t.is_ok()) << t.error_message();
    return t ? std::move(t).value() : nullptr;
}

// A sequence the hooks extend, counting which hook each step took.
struct Target {
    std::vector<int32_t> seq{1};
    std::vector<float> rows;
    int evaluate_calls = 0, greedy_calls = 0, rollbacks = 0;

    SpeculativeHooks hooks(bool with_greedy) {
        SpeculativeHooks h;
        h.tokens = [this] { return std::span<const int32_t>(seq); };
        h.evaluate = [this](std::span<const int32_t> t) -> Result<std::span<const float>> {
            ++evaluate_calls;
            rows.clear();
            for (int32_t x : t) {
                seq.push_back(x);
                const auto l = logits_after(x);
                rows.insert(rows.end(), l.begin(), l.end());
            }
            return std::span<const float>(rows);
        };
        h.rollback = [this](int64_t n, std::span<const float>) {
            ++rollbacks;
            seq.resize(size_t(n));
            return Status::ok();
        };
        if (with_greedy)
            h.step_greedy = [this](int32_t t) -> Result<int32_t> {
                ++greedy_calls;
                seq.push_back(t);
                return next_of(t);
            };
        h.n_ctx = 1000;
        return h;
    }
};

// Drafts `k` tokens: the target's own choices when right, else a wrong token each time.
class FixedDrafter final : public Drafter {
public:
    FixedDrafter(int32_t k, bool right) : k_(k), right_(right) {}
    std::string_view name() const override { return "fixed"; }
    int32_t draft_size() override { return k_; }
    Result<Draft> draft(std::span<const int32_t> ctx, int32_t max_tokens,
                        const SamplingParams&) override {
        Draft d;
        int32_t t = ctx.back();
        for (int32_t i = 0; i < max_tokens; ++i) {
            t = right_ ? next_of(t) : (next_of(t) + 1) % kVocab;
            d.tokens.push_back(t);
        }
        return d;
    }

private:
    int32_t k_;
    bool right_;
};

std::vector<int32_t> plain_chain(int32_t first, int n) {
    std::vector<int32_t> out{first};
    while (int(out.size()) < n) out.push_back(next_of(out.back()));
    return out;
}

struct SpecRun {
    GenerateResult res;
    Target target;
};

SpecRun run(Drafter& d, bool with_greedy, float temperature, int n) {
    static const auto tok = small_vocab();
    SpecRun r;
    GenerateOptions opt;
    opt.max_tokens = n;
    opt.stop_at_end_of_generation = false;
    opt.sampling.temperature = temperature;
    opt.sampling.top_k = 1;  // sampling keeps only the peak: the same tokens, another path
    std::atomic<bool> cancel{false};
    GenerationStats stats;
    const auto first = logits_after(1);
    auto res = generate_speculative(*tok, opt, first, d, cancel, stats, r.target.hooks(with_greedy),
                                    std::chrono::steady_clock::now());
    EXPECT_TRUE(res.is_ok()) << res.error_message();
    if (res) r.res = std::move(*res);
    return r;
}

TEST(SpecGenerate, StepsWithNothingDraftedAreGreedyDecodeSteps) {
    const int n = 20;
    const auto want = plain_chain(next_of(1), n);
    FixedDrafter none(0, true);
    SpecRun r = run(none, true, 0.f, n);
    EXPECT_EQ(r.res.tokens, want);
    EXPECT_EQ(r.target.greedy_calls, n - 1);  // the last token is left pending, as plain
    EXPECT_EQ(r.target.evaluate_calls, 0);
    EXPECT_EQ(r.target.rollbacks, 0);
    EXPECT_EQ(none.stats().steps, n - 1);
    // Without the greedy hook (or when sampling) every step is a verification of one token.
    FixedDrafter none2(0, true);
    SpecRun r2 = run(none2, false, 0.f, n);
    EXPECT_EQ(r2.res.tokens, want);
    EXPECT_EQ(r2.target.greedy_calls, 0);
    EXPECT_EQ(r2.target.evaluate_calls, n - 1);
    FixedDrafter none3(0, true);
    SpecRun r3 = run(none3, true, 0.7f, n);
    EXPECT_EQ(r3.res.tokens, want);
    EXPECT_EQ(r3.target.greedy_calls, 0);
}

TEST(SpecGenerate, DraftedStepsAreVerifiedAndRolledBack) {
    const int n = 21;
    const auto want = plain_chain(next_of(1), n);
    FixedDrafter right(4, true);  // all accepted: 5 tokens a step
    SpecRun r = run(right, true, 0.f, n);
    EXPECT_EQ(r.res.tokens, want);
    EXPECT_EQ(r.target.greedy_calls, 0);
    EXPECT_EQ(r.target.evaluate_calls, 4);
    EXPECT_EQ(right.stats().accepted, right.stats().drafted);
    FixedDrafter wrong(3, false);  // every draft rejected at its first token
    SpecRun w = run(wrong, true, 0.f, n);
    EXPECT_EQ(w.res.tokens, want);
    // The last step may draft nothing (one token left to emit): a greedy step.
    EXPECT_EQ(w.target.evaluate_calls, n - 2);
    EXPECT_EQ(w.target.rollbacks, n - 2);
    EXPECT_EQ(w.target.greedy_calls, 1);
    EXPECT_EQ(wrong.stats().accepted, 0);
    // The sequence holds the emitted tokens but the last (pending), after the prompt's.
    EXPECT_EQ(w.target.seq.size(), size_t(n));
}

}  // namespace
}  // namespace hearth::runtime
