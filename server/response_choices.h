// One response's choices as their scheduler events arrive: a request with n > 1 runs as n
// scheduler requests (seeds seed, seed + 1, ...; the prompt's KV blocks shared through the
// prefix cache), whose events come interleaved. Streamed, each event becomes its SSE chunks
// (choice index, the role first, logprobs entries, a finish chunk per choice, then the usage
// and [DONE] once all are done); otherwise the body is made once the last choice ends.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hearth/engine.h"
#include "hearth/scheduler.h"
#include "openai_logprobs.h"
#include "openai_response.h"

namespace hearth::server {

class ResponseChoices {
public:
    // ids: the scheduler request of each choice, in choice order; per_prompt: choices a prompt
    // (a batch of prompts lists each prompt's choices in turn; each prompt counts once).
    ResponseChoices(const ResponseHeader& head, const Model& model, std::vector<uint64_t> ids,
                    bool logprobs, bool include_usage, int32_t per_prompt = 1);

    // Streamed: appends ev's SSE events to out; true once the response has ended ([DONE]
    // written, or the error event of a failed choice).
    bool stream(const StreamEvent& ev, std::string& out);
    // Not streamed: the body once every choice has ended (an error body if one failed).
    std::optional<std::string> collect(const StreamEvent& ev);

private:
    struct Choice {
        uint64_t id = 0;
        bool started = false, done = false;
        std::string text;
        StopReason reason = StopReason::MaxTokens;
        RequestUsage usage;
        nlohmann::json chat_logprobs = nlohmann::json::array();
        CompletionLogprobs legacy;
    };
    Choice* choice_of(uint64_t id, int& index);
    nlohmann::json logprobs_of(Choice& c) const;  // the body's object
    RequestUsage total_usage() const;

    ResponseHeader head_;
    const Model& model_;
    bool logprobs_, include_usage_;
    size_t per_prompt_;
    TextChunkWriter text_;  // choice 0's plain text chunks (the common case)
    std::vector<Choice> choices_;
    size_t n_done_ = 0;
};

}  // namespace hearth::server
