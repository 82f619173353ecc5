// Request bodies and non-streaming answers of the OpenAI chat API, client side (no HTTP, no
// Qt): the /v1/chat/completions body from a conversation and sampling settings, the model ids
// of GET /v1/models, and the message of an error reply ({"error": {"message", ...}} or the
// plain text some proxies send) turned into one sentence a person can act on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::openai {

struct ChatMessage {
    std::string role;  // system, user, assistant
    std::string content;
};

// Sampling as Hearth's settings hold it; standard fields go under OpenAI's names, the others
// under the names vLLM and llama.cpp both read (top_k, min_p; repetition_penalty for vLLM
// and repeat_penalty for llama.cpp and Hearth). Servers ignore fields they do not know.
struct ChatSampling {
    double temperature = 0.8;
    double top_p = 0.95;
    int top_k = 40;  // 0: off (not sent)
    double min_p = 0.05;
    double repeat_penalty = 1.0;  // 1: off (not sent)
    int max_tokens = 512;
    uint64_t seed = 0;  // 0: not sent
};

struct ChatRequest {
    std::string model;
    std::vector<ChatMessage> messages;
    ChatSampling sampling;
    // The last message is an assistant reply to write on from its end (Continue): sent with
    // vLLM's continue_final_message / add_generation_prompt=false, which Hearth's server reads
    // too; llama.cpp's server continues a final assistant message by itself.
    bool continue_final = false;
};

// The JSON body, always with "stream": true and stream_options.include_usage.
std::string chat_request_json(const ChatRequest& request);

// The ids in a GET /v1/models answer ({"data": [{"id": ...}, ...]}); nullopt and `error` set
// when the body is not such an answer.
std::optional<std::vector<std::string>> parse_model_list(std::string_view body, std::string& error);

// "401: Unauthorized — wrong or missing API key (server: Invalid API key)": the HTTP status,
// what it usually means, and the server's own message from the error body when it has one.
std::string describe_http_error(int status, std::string_view body);

}  // namespace hearth::openai
