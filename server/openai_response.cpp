#include "openai_response.h"

#include <nlohmann/json.hpp>
#include <random>

namespace hearth::server {

namespace {

using nlohmann::json;

json usage_json(const RequestUsage& u) {
    json j = {{"prompt_tokens", u.prompt_tokens},
              {"completion_tokens", u.completion_tokens},
              {"total_tokens", u.prompt_tokens + u.completion_tokens},
              {"prompt_tokens_details", {{"cached_tokens", u.cached_tokens}}}};
    // Speculative decoding: OpenAI's fields for predicted tokens kept and rejected.
    if (u.draft_steps > 0)
        j["completion_tokens_details"] = {
            {"accepted_prediction_tokens", u.draft_accepted},
            {"rejected_prediction_tokens", u.draft_tokens - u.draft_accepted}};
    return j;
}

json base(const ResponseHeader& h, const char* object) {
    return {{"id", h.id},
            {"object", object},
            {"created", h.created},
            {"model", h.model},
            {"system_fingerprint", "hearth"}};
}

// Text from the model may hold invalid UTF-8 (a byte-fallback token cut at the end); JSON
// output replaces such bytes instead of throwing.
std::string dump(const json& j) {
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

const char* finish_reason(StopReason r) {
    switch (r) {
        case StopReason::MaxTokens:
        case StopReason::ContextFull:
            return "length";
        case StopReason::EndOfGeneration:
        case StopReason::StopString:
        case StopReason::Cancelled:
            break;
    }
    return "stop";
}

std::string completion_body(const ResponseHeader& h, const std::vector<ChoiceBody>& choices,
                            const RequestUsage& usage) {
    json j = base(h, h.chat ? "chat.completion" : "text_completion");
    json list = json::array();
    for (size_t i = 0; i < choices.size(); ++i) {
        const ChoiceBody& c = choices[i];
        json choice{{"index", i},
                    {"finish_reason", finish_reason(c.reason)},
                    {"logprobs", c.logprobs ? *c.logprobs : json(nullptr)}};
        if (h.chat)
            choice["message"] = {{"role", "assistant"}, {"content", c.text}};
        else
            choice["text"] = c.text;
        list.push_back(std::move(choice));
    }
    j["choices"] = std::move(list);
    j["usage"] = usage_json(usage);
    return dump(j);
}

std::string completion_body(const ResponseHeader& h, const std::string& text, StopReason reason,
                            const RequestUsage& usage, const json* logprobs) {
    return completion_body(h, {ChoiceBody{text, reason, logprobs}}, usage);
}

std::string stream_chunk(const ResponseHeader& h, const std::string& text, bool first,
                         const char* finish, const json* logprobs, int index) {
    json j = base(h, h.chat ? "chat.completion.chunk" : "text_completion");
    json choice{{"index", index}, {"logprobs", logprobs ? *logprobs : json(nullptr)}};
    choice["finish_reason"] = finish ? json(finish) : json(nullptr);
    if (h.chat) {
        json delta = json::object();
        if (first) delta["role"] = "assistant";
        if (!finish) delta["content"] = text;
        choice["delta"] = delta;
    } else {
        choice["text"] = text;
    }
    j["choices"] = json::array({choice});
    return dump(j);
}

std::string usage_chunk(const ResponseHeader& h, const RequestUsage& usage) {
    json j = base(h, h.chat ? "chat.completion.chunk" : "text_completion");
    j["choices"] = json::array();
    j["usage"] = usage_json(usage);
    return dump(j);
}

std::string sse_event(const std::string& data) {
    return "data: " + data + "\n\n";
}

TextChunkWriter::TextChunkWriter(const ResponseHeader& h) {
    // The chunk of an empty text, split around the text's empty JSON string. Keys are
    // written in order, so "choices" (holding the text) comes before the header's values and
    // the first match is the text's (a quote inside a value would be escaped anyway).
    const std::string whole = stream_chunk(h, "", false, nullptr);
    const std::string key = h.chat ? "\"content\":\"\"" : "\"text\":\"\"";
    const size_t at = whole.find(key);
    prefix_ = "data: " + whole.substr(0, at + key.size() - 2);
    suffix_ = whole.substr(at + key.size()) + "\n\n";
}

void TextChunkWriter::append(std::string& out, const std::string& text) const {
    out += prefix_;
    out += dump(json(text));
    out += suffix_;
}

std::string new_response_id(const char* prefix) {
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    static const char* kHex = "0123456789abcdef";
    std::string id = prefix;
    for (int i = 0; i < 24; ++i) id += kHex[rng() & 15];
    return id;
}

}  // namespace hearth::server
