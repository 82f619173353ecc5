// Speculative decoding: a drafter proposes the next few tokens cheaply, the target model
// evaluates them all in one step on the session's paged KV cache, keeps the longest prefix it
// agrees with and rolls the cache back past the first rejection. Greedy output is the same
// tokens as without speculation; sampled output has exactly the target's distribution (the
// standard rejection rule: accept a drafted x with probability min(1, p(x)/q(x)), else draw
// from max(0, p - q) renormalised).
//
// Drafters: prompt lookup (n-gram match against the chat's own tokens) and a draft model (a
// smaller GGUF with the same vocabulary, with its own session and KV cache). Medusa-style
// heads would be a third Drafter; no GGUF of the families we load carries such heads, so none
// is implemented.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hearth/engine.h"
#include "hearth/result.h"

namespace hearth {

class KvStore;

// What one drafter has achieved so far (reset by reset_stats()).
struct SpeculativeStats {
    int64_t steps = 0;     // target verification steps (one forward pass each)
    int64_t drafted = 0;   // tokens proposed
    int64_t accepted = 0;  // of those, kept by the target
    int64_t emitted = 0;   // tokens the steps produced (accepted + one from the target each)
    // Wall time in the drafter's draft() calls and in the target's steps (verification, and
    // plain steps when nothing was drafted): where a speculative step's time goes.
    double draft_seconds = 0;
    double target_seconds = 0;
    // Sums another run's counts and times (a bench's rounds).
    SpeculativeStats& operator+=(const SpeculativeStats& o) {
        steps += o.steps;
        drafted += o.drafted;
        accepted += o.accepted;
        emitted += o.emitted;
        draft_seconds += o.draft_seconds;
        target_seconds += o.target_seconds;
        return *this;
    }
    // accepted / drafted (0 when nothing was drafted).
    double acceptance_rate() const {
        return drafted > 0 ? static_cast<double>(accepted) / static_cast<double>(drafted) : 0.0;
    }
    // Tokens produced per target step (accepted drafts plus the target's own token): the
    // speed-up an ideal, free drafter would give.
    double mean_accepted_length() const {
        return steps > 0 ? static_cast<double>(emitted) / static_cast<double>(steps) : 0.0;
    }
};

// A proposal: tokens and, for drafters that sample, the distribution each was drawn from
// ([tokens.size() * n_vocab], row i for token i). Without probabilities the draft is
// deterministic (each token had probability 1).
struct Draft {
    std::vector<int32_t> tokens;
    std::vector<float> probs;
};

class Drafter {
public:
    virtual ~Drafter() = default;
    virtual std::string_view name() const = 0;  // "lookup", "draft model", ...
    // Up to max_tokens tokens that may follow `context` (the whole sequence, its last token
    // the one about to be verified). Fewer or none is fine. With sampling (temperature > 0) a
    // drafter that samples returns the probabilities it drew from.
    virtual Result<Draft> draft(std::span<const int32_t> context, int32_t max_tokens,
                                const SamplingParams& sampling) = 0;
    // How many tokens to propose next (adaptive drafters lower it when few are accepted;
    // 0: do not draft this step). Called once per step.
    virtual int32_t draft_size() = 0;
    // The target's verdict on the last draft; updates the statistics and the adaptation.
    void report(int32_t drafted, int32_t accepted);
    // Counts a target step (with or without a draft) that produced `emitted` tokens.
    void count_step(int32_t emitted);
    // The wall time of a target step over `batch` tokens: drafters weigh what one more
    // drafted token costs against its chance of being accepted.
    void observe_step(int32_t batch, double seconds);
    // The wall time of one draft() call (statistics only).
    void observe_draft(double seconds) { stats_.draft_seconds += seconds; }
    const SpeculativeStats& stats() const { return stats_; }
    void reset_stats() { stats_ = {}; }

protected:
    virtual void adapt(int32_t /*drafted*/, int32_t /*accepted*/) {}
    // What verifying one more token costs, as a share of a one-token step (measured once
    // both kinds of step were seen; `fallback` before), and that one-token step's seconds.
    double verify_cost(double fallback) const;
    double single_step_seconds() const { return t1_; }

private:
    SpeculativeStats stats_;
    double t1_ = 0;     // running mean of one-token steps (seconds); 0: none seen
    double extra_ = 0;  // running mean of each further token's seconds; 0: none seen
};

struct LookupOptions {
    int32_t ngram_min = 2;  // shortest suffix of the sequence to look up
    int32_t ngram_max = 4;  // longest (tried first)
    int32_t draft_max = 8;  // most tokens per draft
    bool adaptive = true;   // fewer tokens (down to none, with a probe now and then) when few
                            // drafts are accepted
    // A predicted reply (OpenAI's predicted outputs): looked up before the sequence itself, and
    // drafted from its start while nothing has been generated yet.
    std::vector<int32_t> reference = {};
};
// Prompt lookup: finds the most recent earlier occurrence of the sequence's last n tokens
// (n from ngram_max down to ngram_min) and proposes the tokens that followed it; with a
// reference, its earliest occurrence there first.
std::unique_ptr<Drafter> make_lookup_drafter(const LookupOptions& options = {});

struct DraftModelOptions {
    int32_t draft_max = 8;  // most tokens per draft
    int32_t draft_min = 1;  // fewest while drafting
    bool adaptive = true;   // k from the recent acceptance rate
    int64_t n_ctx = 4096;   // the draft session's context (at least the target's)
    KvType kv_type = KvType::F16;
    int n_threads = 0;
};
// Checks that a draft model can draft for a target: the same vocabulary rows, the same token
// texts and types, the same special tokens. The error names the first difference.
Status check_draft_vocabulary(const Model& target, const Model& draft);
// A drafter running `draft` (any backend) in its own session and KV cache; refuses a model
// whose vocabulary differs from the target's.
Result<std::unique_ptr<Drafter>> make_model_drafter(const Model& target,
                                                    std::shared_ptr<const Model> draft,
                                                    const DraftModelOptions& options = {});

}  // namespace hearth
