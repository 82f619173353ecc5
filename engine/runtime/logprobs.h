// Log-probabilities of generated tokens (OpenAI's logprobs): the model's own distribution,
// log-softmax of a logits row, whatever sampling then did with it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "hearth/scheduler.h"

namespace hearth::runtime {

// log_softmax(logits)[token], and in `top` the n_top most likely tokens with theirs, most
// likely first (equal logits: the lower id first).
float token_logprob(std::span<const float> logits, int32_t token, int32_t n_top,
                    std::vector<TokenLogprob>& top);

}  // namespace hearth::runtime
