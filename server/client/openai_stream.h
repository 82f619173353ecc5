// The client side of OpenAI's streaming chat API, without any HTTP or Qt: server-sent events
// split from the bytes as they arrive, each `data:` payload decoded into a delta (content,
// reasoning, finish reason, usage, error), and a joiner that writes reasoning as a
// <think>…</think> block in front of the answer (the form the app already shows folded).
// Used by the app's remote engine (Qt Network) and `hearth-cli run --remote` (cpp-httplib)
// alike, so both read vLLM, llama.cpp, LMDeploy and Hearth's own server the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::openai {

// Splits a text/event-stream into events (https://html.spec.whatwg.org/#event-stream):
// lines end in \n, \r\n or \r; "data:" lines of one event are joined with \n; an empty line
// ends the event; comments (":") and other fields are skipped. Bytes may arrive cut anywhere.
class SseParser {
public:
    // Appends bytes; returns the data of every event completed by them, in order.
    std::vector<std::string> feed(std::string_view bytes);
    // Bytes held back: a line or an event not ended yet (what a cut stream left over).
    bool pending() const { return !line_.empty() || has_data_; }

private:
    void end_line(std::vector<std::string>& out);
    std::string line_;
    std::string data_;
    bool has_data_ = false;
    bool last_was_cr_ = false;
};

struct Usage {
    int64_t prompt_tokens = 0;
    int64_t completion_tokens = 0;
};

// One decoded `data:` payload of /v1/chat/completions with "stream": true.
struct StreamDelta {
    bool done = false;          // the "[DONE]" sentinel
    std::string content;        // choices[0].delta.content (null or absent: empty)
    std::string reasoning;      // delta.reasoning_content (vLLM, llama.cpp) or delta.reasoning
    std::string finish_reason;  // "stop", "length", ... (empty while streaming)
    std::optional<Usage> usage;
    std::string error;  // an {"error": ...} payload sent inside the stream, or bad JSON
};

// Decodes one event's data.
StreamDelta decode_chunk(std::string_view data);

// Builds the reply text from deltas: reasoning goes inside "<think>" … "</think>" before the
// content, as models that think in their text write it themselves.
class ThinkJoiner {
public:
    // The text to append for this delta (may be empty).
    std::string append(const StreamDelta& d);
    // The closing tag when the stream ended inside reasoning (else empty).
    std::string finish();

private:
    bool in_reasoning_ = false;
};

}  // namespace hearth::openai
