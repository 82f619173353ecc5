#include "openai_chat.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace hearth::openai {

using nlohmann::json;

std::string chat_request_json(const ChatRequest& r) {
    json messages = json::array();
    for (const ChatMessage& m : r.messages)
        messages.push_back({{"role", m.role}, {"content", m.content}});
    const ChatSampling& s = r.sampling;
    json body{{"model", r.model},
              {"messages", std::move(messages)},
              {"stream", true},
              {"stream_options", {{"include_usage", true}}},
              {"temperature", s.temperature},
              {"top_p", s.top_p},
              {"max_tokens", std::max(1, s.max_tokens)}};
    if (s.top_k > 0) body["top_k"] = s.top_k;
    if (s.min_p > 0) body["min_p"] = s.min_p;
    if (s.repeat_penalty != 1.0) {
        body["repeat_penalty"] = s.repeat_penalty;
        body["repetition_penalty"] = s.repeat_penalty;
    }
    if (s.seed != 0) body["seed"] = s.seed;
    if (r.continue_final) {
        body["continue_final_message"] = true;
        body["add_generation_prompt"] = false;
    }
    return body.dump();
}

std::optional<std::vector<std::string>> parse_model_list(std::string_view body,
                                                         std::string& error) {
    const json j = json::parse(body, nullptr, false);
    const auto data = j.is_object() ? j.find("data") : j.end();
    if (j.is_discarded() || !j.is_object() || data == j.end() || !data->is_array()) {
        error = "the answer to GET /v1/models is not a model list";
        return std::nullopt;
    }
    std::vector<std::string> ids;
    for (const json& m : *data)
        if (m.is_object() && m.contains("id") && m["id"].is_string())
            ids.push_back(m["id"].get<std::string>());
    return ids;
}

namespace {

const char* meaning(int status) {
    switch (status) {
        case 400:
            return "the server refused the request";
        case 401:
            return "wrong or missing API key";
        case 403:
            return "this API key may not use it";
        case 404:
            return "no such model or URL on this server (check the base URL, e.g. "
                   "http://host:8000/v1, and the model name)";
        case 408:
            return "the server timed out";
        case 413:
            return "the conversation is too large for the server";
        case 429:
            return "the server is busy or the rate limit was reached; try again shortly";
        case 500:
            return "the server failed";
        case 502:
        case 503:
        case 504:
            return "the server or a proxy in front of it is not available";
        default:
            return status >= 500 ? "the server failed" : "the server refused the request";
    }
}

}  // namespace

std::string describe_http_error(int status, std::string_view body) {
    std::string server;
    const json j = json::parse(body, nullptr, false);
    if (!j.is_discarded() && j.is_object()) {
        if (const auto e = j.find("error"); e != j.end()) {
            if (e->is_object() && e->contains("message") && (*e)["message"].is_string())
                server = (*e)["message"].get<std::string>();
            else if (e->is_string())
                server = e->get<std::string>();
        } else if (j.contains("message") && j["message"].is_string()) {
            server = j["message"].get<std::string>();  // e.g. FastAPI's {"detail"} variants
        } else if (j.contains("detail") && j["detail"].is_string()) {
            server = j["detail"].get<std::string>();
        }
    } else {
        server = std::string(body.substr(0, 200));
        while (!server.empty() && (server.back() == '\n' || server.back() == '\r'))
            server.pop_back();
    }
    std::string out = "HTTP " + std::to_string(status) + ": " + meaning(status);
    if (!server.empty()) out += " (server: " + server + ")";
    return out;
}

}  // namespace hearth::openai
