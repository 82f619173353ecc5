#include "openai_stream.h"

#include <nlohmann/json.hpp>

namespace hearth::openai {

using nlohmann::json;

std::vector<std::string> SseParser::feed(std::string_view bytes) {
    std::vector<std::string> out;
    for (const char c : bytes) {
        if (c == '\n' && last_was_cr_) {  // the \n of a \r\n: the line already ended
            last_was_cr_ = false;
            continue;
        }
        last_was_cr_ = c == '\r';
        if (c == '\r' || c == '\n')
            end_line(out);
        else
            line_ += c;
    }
    return out;
}

void SseParser::end_line(std::vector<std::string>& out) {
    if (line_.empty()) {  // dispatch
        if (has_data_) out.push_back(std::move(data_));
        data_.clear();
        has_data_ = false;
        return;
    }
    std::string_view line = line_;
    if (line.front() != ':') {
        const size_t colon = line.find(':');
        const std::string_view field = line.substr(0, colon);
        std::string_view value =
            colon == std::string_view::npos ? std::string_view{} : line.substr(colon + 1);
        if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
        if (field == "data") {
            if (has_data_) data_ += '\n';
            data_ += value;
            has_data_ = true;
        }
    }
    line_.clear();
}

namespace {

std::string string_at(const json& obj, const char* key) {
    const auto it = obj.find(key);
    return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

StreamDelta decode_chunk(std::string_view data) {
    StreamDelta d;
    const std::string_view trimmed = data.substr(0, data.find_last_not_of(" \t\r\n") + 1);
    if (trimmed == "[DONE]") {
        d.done = true;
        return d;
    }
    const json j = json::parse(trimmed, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) {
        d.error =
            "the server sent something that is not JSON: " + std::string(trimmed.substr(0, 200));
        return d;
    }
    if (const auto e = j.find("error"); e != j.end() && !e->is_null()) {
        d.error = e->is_object() ? string_at(*e, "message") : e->dump();
        if (d.error.empty()) d.error = e->dump();
        return d;
    }
    if (const auto u = j.find("usage"); u != j.end() && u->is_object()) {
        Usage usage;
        usage.prompt_tokens = u->value("prompt_tokens", int64_t{0});
        usage.completion_tokens = u->value("completion_tokens", int64_t{0});
        d.usage = usage;
    }
    const auto choices = j.find("choices");
    if (choices == j.end() || !choices->is_array() || choices->empty()) return d;
    const json& c = choices->front();
    if (!c.is_object()) return d;
    d.finish_reason = string_at(c, "finish_reason");
    if (const auto delta = c.find("delta"); delta != c.end() && delta->is_object()) {
        d.content = string_at(*delta, "content");
        d.reasoning = string_at(*delta, "reasoning_content");
        if (d.reasoning.empty()) d.reasoning = string_at(*delta, "reasoning");
    } else if (const auto msg = c.find("message"); msg != c.end() && msg->is_object()) {
        // A server that ignored "stream" answers with one whole message.
        d.content = string_at(*msg, "content");
        d.reasoning = string_at(*msg, "reasoning_content");
    }
    return d;
}

std::string ThinkJoiner::append(const StreamDelta& d) {
    std::string out;
    if (!d.reasoning.empty()) {
        if (!in_reasoning_) out += "<think>";
        in_reasoning_ = true;
        out += d.reasoning;
    }
    if (!d.content.empty()) {
        if (in_reasoning_) out += "</think>\n\n";
        in_reasoning_ = false;
        out += d.content;
    }
    return out;
}

std::string ThinkJoiner::finish() {
    if (!in_reasoning_) return {};
    in_reasoning_ = false;
    return "</think>";
}

}  // namespace hearth::openai
