// OpenAI response bodies and stream chunks (chat.completion, chat.completion.chunk,
// text_completion) and the SSE framing: "data: <json>\n\n", then "data: [DONE]\n\n".
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "hearth/scheduler.h"

namespace hearth::server {

struct ResponseHeader {
    std::string id;       // "chatcmpl-…" / "cmpl-…"
    int64_t created = 0;  // Unix seconds
    std::string model;
    bool chat = true;
};

// "stop" (end of generation, a stop string) or "length" (max tokens, context end).
const char* finish_reason(StopReason r);

// A choice of a body: its text, why it ended, and its logprobs object (openai_logprobs.h) or
// null when not asked for.
struct ChoiceBody {
    std::string text;
    StopReason reason = StopReason::MaxTokens;
    const nlohmann::json* logprobs = nullptr;
};
std::string completion_body(const ResponseHeader& h, const std::vector<ChoiceBody>& choices,
                            const RequestUsage& usage);
// One choice.
std::string completion_body(const ResponseHeader& h, const std::string& text, StopReason reason,
                            const RequestUsage& usage, const nlohmann::json* logprobs = nullptr);
// One chunk of choice `index`: a text delta (a choice's first chat chunk also carries the
// role), or its last chunk with the finish reason (finish != nullptr); logprobs as in
// ChoiceBody, for this chunk's tokens.
std::string stream_chunk(const ResponseHeader& h, const std::string& text, bool first,
                         const char* finish, const nlohmann::json* logprobs = nullptr,
                         int index = 0);
// The chunk after the last one when stream_options.include_usage is set: no choices, usage.
std::string usage_chunk(const ResponseHeader& h, const RequestUsage& usage);

std::string sse_event(const std::string& data);  // "data: " + data + "\n\n"
inline constexpr const char* kSseDone = "data: [DONE]\n\n";

// The SSE events of a stream's text chunks (choice 0), the same bytes as
// sse_event(stream_chunk(h, text, false, nullptr)) but made from a template rendered once per
// response: only the text is encoded per token (a chunk's other fields never change within a
// response).
class TextChunkWriter {
public:
    explicit TextChunkWriter(const ResponseHeader& h);
    void append(std::string& out, const std::string& text) const;

private:
    std::string prefix_, suffix_;
};

std::string new_response_id(const char* prefix);

}  // namespace hearth::server
