// OpenAI's logprobs objects from the scheduler's token events (GenerationRequest::logprobs):
// chat completions list {token, logprob, bytes, top_logprobs} per token under "content";
// the legacy completions endpoint keeps parallel lists (tokens, token_logprobs, top_logprobs
// as {token: logprob} objects, text_offset in characters of the completion).
#pragma once

#include <nlohmann/json.hpp>

#include "hearth/engine.h"
#include "hearth/scheduler.h"

namespace hearth::server {

// One token event's chat entry (the event has has_logprob set).
nlohmann::json chat_logprob_entry(const Model& model, const StreamEvent& ev);

// The legacy shape, token by token.
class CompletionLogprobs {
public:
    // Appends the event's token (has_logprob set) and returns the same object for it alone
    // (a stream chunk's).
    nlohmann::json add(const Model& model, const StreamEvent& ev);
    const nlohmann::json& object() const { return j_; }

private:
    nlohmann::json j_ = {{"tokens", nlohmann::json::array()},
                         {"token_logprobs", nlohmann::json::array()},
                         {"top_logprobs", nlohmann::json::array()},
                         {"text_offset", nlohmann::json::array()}};
    int64_t offset_ = 0;  // characters of the tokens so far
};

}  // namespace hearth::server
