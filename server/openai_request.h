// OpenAI request bodies to scheduler requests: /v1/chat/completions (messages rendered with
// the model's chat template) and /v1/completions (a prompt string or token ids), with every
// parameter checked; a bad one is an ApiError naming it (400), never an exception.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api_error.h"
#include "hearth/scheduler.h"

namespace hearth::server {

// Choices a request may ask for (n): each runs as a request of its own.
inline constexpr int32_t kMaxChoices = 16;

struct ParsedRequest {
    GenerationRequest gen;  // prompt, sampling, stop strings, max_tokens (no callback)
    int32_t n = 1;          // choices: gen n times, with seeds gen's seed, seed + 1, ...
    // /v1/completions with a batch of prompts: the prompts after gen.prompt, each run as gen
    // is (n choices each); the response lists prompt 0's choices, then prompt 1's, ...
    std::vector<std::vector<int32_t>> more_prompts;
    bool stream = false;
    bool include_usage = false;  // stream_options.include_usage
    // Hearth's extension: "speculative": "lookup" | "off" and "draft_max": K (absent: the
    // server's default, hearth-cli serve --lookup / --draft-max).
    std::optional<bool> lookup;
    std::optional<int32_t> draft_max;
    // OpenAI's predicted outputs ("prediction": {"type": "content", "content": ...}): the
    // predicted reply's tokens, drafted from (a lookup drafter with it as reference).
    std::vector<int32_t> prediction;
};

// /v1/completions' logprobs: at most this many alternatives a token (OpenAI's limit).
inline constexpr int32_t kMaxCompletionLogprobs = 5;

struct RequestLimits {
    int64_t n_ctx = 0;              // the context of every sequence
    int64_t max_prompt_tokens = 0;  // longer prompts are refused (400)
};

// Both return nullopt when `out` is filled, else the error to send.
std::optional<ApiError> parse_chat_request(const nlohmann::json& body, const Model& model,
                                           const RequestLimits& limits, ParsedRequest& out);
std::optional<ApiError> parse_completion_request(const nlohmann::json& body, const Model& model,
                                                 const RequestLimits& limits, ParsedRequest& out);

}  // namespace hearth::server
