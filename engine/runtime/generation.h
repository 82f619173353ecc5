// The sampling loop shared by Context (contiguous cache) and Session (paged cache): sample,
// stream text through the detokenizer and stop matcher, evaluate the token, repeat.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "hearth/engine.h"
#include "tokenizer/tokenizer.h"

namespace hearth::runtime {

struct GenerationHooks {
    // Evaluates one sampled token; `logits` must then hold the logits after it.
    std::function<Status(int32_t token)> eval;
    // Greedy sampling on the device (used when the sampling is plain greedy,
    // runtime::is_plain_greedy): evaluates one token and returns the next one, the index of
    // the largest logit after it, without reading the logits back (`logits` then no longer
    // apply). May be empty.
    std::function<Result<int32_t>(int32_t token)> eval_greedy;
    // Whether one more position fits the context.
    std::function<bool()> has_room;
    // The request's cancel token (hearth::CancelToken), read besides `cancel`; may be null.
    const std::atomic<bool>* token = nullptr;
};

// history: the tokens already in the sequence (for the penalties). The last sampled token is
// not evaluated; it is returned in `pending` (evaluated by the next feed, if any).
Result<GenerateResult> generate_tokens(
    const tokenizer::Tokenizer& tokenizer, const GenerateOptions& options,
    std::span<const int32_t> history, const std::vector<float>& logits,
    std::optional<int32_t>& pending, const std::atomic<bool>& cancel, GenerationStats& stats,
    const GenerationHooks& hooks, std::chrono::steady_clock::time_point started);

}  // namespace hearth::runtime
