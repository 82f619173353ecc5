// The speculative generation loop (Session::generate with a Drafter): each step drafts after
// the pending token, evaluates [pending, draft...] in one forward pass, keeps the agreed
// prefix plus one token of the target's own, and rolls the KV cache back past the rest.
// Stops, streaming and the sequence left behind are those of generate_tokens: every emitted
// token but the last is in the sequence (all of them when an end-of-generation token ended it).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <span>
#include <vector>

#include "hearth/engine.h"
#include "hearth/speculative.h"
#include "tokenizer/tokenizer.h"

namespace hearth::runtime {

struct SpeculativeHooks {
    // The tokens in the sequence now.
    std::function<std::span<const int32_t>()> tokens;
    // Evaluates tokens after the sequence in one step; the logits after each, token-major.
    std::function<Result<std::span<const float>>(std::span<const int32_t>)> evaluate;
    // Keeps the first n tokens; `logits` are those after token n - 1.
    std::function<Status(int64_t n, std::span<const float> logits)> rollback;
    // Optional, for plain greedy sampling (is_plain_greedy): evaluates one token and returns
    // the argmax of the logits after it, as plain decoding's step does (the logits stay where
    // they were computed). A step with nothing drafted takes it, so a drafter that drafts
    // nothing costs what plain decoding does.
    std::function<Result<int32_t>(int32_t token)> step_greedy;
    int64_t n_ctx = 0;
    const std::atomic<bool>* token = nullptr;  // the request's cancel token; may be null
};

Result<GenerateResult> generate_speculative(const tokenizer::Tokenizer& tokenizer,
                                            const GenerateOptions& options,
                                            std::span<const float> logits, Drafter& drafter,
                                            const std::atomic<bool>& cancel, GenerationStats& stats,
                                            const SpeculativeHooks& hooks,
                                            std::chrono::steady_clock::time_point started);

}  // namespace hearth::runtime
