#include "openai_request.h"

#include "json_schema_compile.h"

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <random>
#include <string_view>

#include "hearth/chat_prompt.h"

namespace hearth::server {

namespace {

using nlohmann::json;

std::string range_text(double lo, double hi) {
    const auto fmt = [](double v) {
        std::string s = std::to_string(v);
        while (s.size() > 1 && s.back() == '0') s.pop_back();
        if (!s.empty() && s.back() == '.') s.pop_back();
        return s;
    };
    return fmt(lo) + " and " + fmt(hi);
}

// A number parameter within [lo, hi]; absent or null keeps `v`.
std::optional<ApiError> number(const json& b, const char* key, double lo, double hi, float& v) {
    const auto it = b.find(key);
    if (it == b.end() || it->is_null()) return std::nullopt;
    if (!it->is_number() || it->get<double>() < lo || it->get<double>() > hi)
        return bad_request(
            std::string("'") + key + "' must be a number between " + range_text(lo, hi), key,
            "invalid_value");
    v = it->get<float>();
    return std::nullopt;
}

std::optional<ApiError> integer(const json& b, const char* key, int64_t lo, int64_t hi,
                                std::optional<int64_t>& v) {
    const auto it = b.find(key);
    if (it == b.end() || it->is_null()) return std::nullopt;
    if (!it->is_number_integer() || it->get<int64_t>() < lo || it->get<int64_t>() > hi)
        return bad_request(std::string("'") + key + "' must be an integer between " +
                               std::to_string(lo) + " and " + std::to_string(hi),
                           key, "invalid_value");
    v = it->get<int64_t>();
    return std::nullopt;
}

std::optional<ApiError> boolean(const json& b, const char* key, bool& v) {
    const auto it = b.find(key);
    if (it == b.end() || it->is_null()) return std::nullopt;
    if (!it->is_boolean())
        return bad_request(std::string("'") + key + "' must be a boolean", key, "invalid_type");
    v = it->get<bool>();
    return std::nullopt;
}

// Whether obj[key] is the string `want`. (json::value(key, default) throws when the member is
// there with another type: a part with "type": 5 was a 500.)
bool string_is(const json& obj, const char* key, std::string_view want) {
    const auto it = obj.find(key);
    return it != obj.end() && it->is_string() && it->get_ref<const std::string&>() == want;
}

// OpenAI's predicted outputs: {"type": "content", "content": text or text parts}; drafting
// from it needs speculative decoding, so "speculative": "off" with a prediction is refused.
std::optional<ApiError> parse_prediction(const json& b, const Model& model, ParsedRequest& out) {
    const auto it = b.find("prediction");
    if (it == b.end() || it->is_null()) return std::nullopt;
    if (!it->is_object() || !string_is(*it, "type", "content") || !it->contains("content"))
        return bad_request("'prediction' must be {\"type\": \"content\", \"content\": ...}",
                           "prediction");
    const json& c = (*it)["content"];
    std::string text;
    if (c.is_string()) {
        text = c.get<std::string>();
    } else if (c.is_array()) {
        for (const auto& part : c) {
            if (!part.is_object() || !string_is(part, "type", "text") || !part.contains("text") ||
                !part["text"].is_string())
                return bad_request("'prediction.content' parts must be text", "prediction");
            text += part["text"].get<std::string>();
        }
    } else {
        return bad_request("'prediction.content' must be a string or text parts", "prediction");
    }
    if (out.lookup == std::optional<bool>(false))
        return bad_request("'prediction' needs speculative decoding; it is \"off\"", "prediction");
    auto toks = model.tokenize(text, /*add_special=*/false, /*parse_special=*/false);
    if (!toks)
        return bad_request("the prediction could not be tokenized: " + toks.error_message(),
                           "prediction");
    out.prediction = std::move(toks.value());
    return std::nullopt;
}

// The parameters both endpoints share.
std::optional<ApiError> parse_common(const json& b, const Model& model, const RequestLimits& limits,
                                     const char* prompt_param, ParsedRequest& out) {
    GenerationRequest& g = out.gen;
    // OpenAI's defaults: temperature 1, top_p 1, nothing else narrowing the distribution.
    g.sampling = SamplingParams{};
    g.sampling.temperature = 1.f;
    g.sampling.top_p = 1.f;
    g.sampling.top_k = 0;
    g.sampling.min_p = 0.f;
    g.sampling.penalty_last_n = -1;
    if (auto e = number(b, "temperature", 0, 2, g.sampling.temperature)) return e;
    if (auto e = number(b, "top_p", 0, 1, g.sampling.top_p)) return e;
    if (auto e = number(b, "min_p", 0, 1, g.sampling.min_p)) return e;
    if (auto e = number(b, "presence_penalty", -2, 2, g.sampling.presence_penalty)) return e;
    if (auto e = number(b, "frequency_penalty", -2, 2, g.sampling.frequency_penalty)) return e;
    if (auto e = number(b, "repeat_penalty", 0, 10, g.sampling.repeat_penalty)) return e;
    std::optional<int64_t> top_k, n, seed, max_tokens, max_completion;
    if (auto e = integer(b, "top_k", 0, 1 << 20, top_k)) return e;
    if (top_k) g.sampling.top_k = static_cast<int32_t>(*top_k);
    if (auto e = integer(b, "n", 1, kMaxChoices, n)) return e;
    out.n = static_cast<int32_t>(n.value_or(1));
    if ((1 + out.more_prompts.size()) * static_cast<size_t>(out.n) >
        static_cast<size_t>(kMaxChoices))
        return bad_request("prompts x n may be at most " + std::to_string(kMaxChoices), "n");
    if (auto e = integer(b, "seed", INT64_MIN, INT64_MAX, seed)) return e;
    g.sampling.seed = seed ? static_cast<uint64_t>(*seed) : std::random_device{}();
    if (auto e = integer(b, "max_tokens", 1, 1 << 30, max_tokens)) return e;
    if (auto e = integer(b, "max_completion_tokens", 1, 1 << 30, max_completion)) return e;
    // A batch of prompts (completions): the longest one bounds the reply and the limit.
    size_t longest = g.prompt.size();
    for (const auto& p : out.more_prompts) longest = std::max(longest, p.size());
    const int64_t room = limits.n_ctx - static_cast<int64_t>(longest);
    const int64_t want = max_completion ? *max_completion : max_tokens ? *max_tokens : room;
    g.max_tokens = static_cast<int32_t>(std::max<int64_t>(1, std::min(want, room)));
    if (auto e = boolean(b, "stream", out.stream)) return e;
    // llama.cpp's extension: keep going past end-of-generation tokens (benchmarks).
    bool ignore_eos = false;
    if (auto e = boolean(b, "ignore_eos", ignore_eos)) return e;
    if (ignore_eos) g.stop_at_end_of_generation = false;
    if (const auto it = b.find("stream_options"); it != b.end() && !it->is_null()) {
        if (!it->is_object())
            return bad_request("'stream_options' must be an object", "stream_options");
        if (!out.stream)
            return bad_request("'stream_options' is only allowed when 'stream' is true",
                               "stream_options");
        if (auto e = boolean(*it, "include_usage", out.include_usage)) {
            e->param = "stream_options.include_usage";
            return e;
        }
    }
    if (const auto it = b.find("stop"); it != b.end() && !it->is_null()) {
        std::vector<std::string> stops;
        if (it->is_string()) {
            stops.push_back(it->get<std::string>());
        } else if (it->is_array() && it->size() <= 4) {
            for (const auto& s : *it) {
                if (!s.is_string()) return bad_request("'stop' must hold strings", "stop");
                stops.push_back(s.get<std::string>());
            }
        } else {
            return bad_request("'stop' must be a string or an array of up to 4 strings", "stop");
        }
        for (auto& s : stops)
            if (!s.empty()) g.stop_strings.push_back(std::move(s));
    }
    if (const auto it = b.find("speculative"); it != b.end() && !it->is_null()) {
        if (!it->is_string() || (*it != "lookup" && *it != "off"))
            return bad_request("'speculative' must be \"lookup\" or \"off\"", "speculative",
                               "invalid_value");
        out.lookup = *it == "lookup";
    }
    std::optional<int64_t> draft_max;
    if (auto e = integer(b, "draft_max", 1, 32, draft_max)) return e;
    if (draft_max) out.draft_max = static_cast<int32_t>(*draft_max);
    if (auto e = parse_prediction(b, model, out)) return e;
    if (static_cast<int64_t>(longest) > limits.max_prompt_tokens)
        return bad_request("This model's maximum context length is " +
                               std::to_string(limits.max_prompt_tokens) +
                               " tokens for the prompt. However, your " +
                               (out.more_prompts.empty() ? "prompt" : "longest prompt") + " is " +
                               std::to_string(longest) + " tokens.",
                           prompt_param, "context_length_exceeded");
    return std::nullopt;
}

// OpenAI's logit_bias: {"token id": bias from -100 to 100}, at most 300 tokens.
std::optional<ApiError> parse_logit_bias(const json& b, const Model& model, SamplingParams& s) {
    const auto it = b.find("logit_bias");
    if (it == b.end() || it->is_null()) return std::nullopt;
    if (!it->is_object() || it->size() > 300)
        return bad_request("'logit_bias' must be an object of at most 300 token ids", "logit_bias");
    const int64_t n_vocab = model.info().n_vocab;
    for (const auto& [key, value] : it->items()) {
        char* end = nullptr;
        const long long id = std::strtoll(key.c_str(), &end, 10);
        if (key.empty() || *end != '\0' || id < 0 || id >= n_vocab)
            return bad_request("'logit_bias' keys must be token ids from 0 to " +
                                   std::to_string(n_vocab - 1) + " ('" + key + "' is not)",
                               "logit_bias", "invalid_value");
        if (!value.is_number() || value.get<double>() < -100 || value.get<double>() > 100)
            return bad_request("'logit_bias' values must be numbers between -100 and 100",
                               "logit_bias", "invalid_value");
        s.logit_bias.emplace_back(static_cast<int32_t>(id), value.get<float>());
    }
    return std::nullopt;
}

// A message's content: a string, or an array of {"type": "text", "text": ...} parts.
std::optional<ApiError> content_text(const json& m, size_t i, std::string& out) {
    const std::string param = "messages[" + std::to_string(i) + "].content";
    const auto it = m.find("content");
    if (it == m.end() || it->is_null()) return std::nullopt;
    if (it->is_string()) {
        out = it->get<std::string>();
        return std::nullopt;
    }
    if (!it->is_array()) return bad_request("'" + param + "' must be a string or an array", param);
    for (const auto& part : *it) {
        if (!part.is_object() || !string_is(part, "type", "text") || !part.contains("text") ||
            !part["text"].is_string())
            return bad_request("only text content parts are supported in '" + param + "'", param);
        out += part["text"].get<std::string>();
    }
    return std::nullopt;
}

// Features this server does not have are refused rather than ignored: a client that asked
// for tool calls or a JSON schema would otherwise take free text for them.
std::optional<ApiError> refuse_unsupported_chat(const json& b) {
    for (const char* key : {"tools", "functions"})
        if (const auto it = b.find(key);
            it != b.end() && !it->is_null() && !(it->is_array() && it->empty()))
            return bad_request(
                std::string("'") + key + "' (tool calls) are not supported by this server", key,
                "unsupported_parameter");
    for (const char* key : {"tool_choice", "function_call"})
        if (const auto it = b.find(key); it != b.end() && !it->is_null() && *it != "none")
            return bad_request(std::string("'") + key + "' is not supported by this server", key,
                               "unsupported_parameter");
    return std::nullopt;
}

// response_format: {"type": "text"} (the default), {"type": "json_object"} (the reply is one
// JSON object, by constrained decoding) or {"type": "json_schema", "json_schema": {"name",
// "schema", "strict"}} (an object that follows the schema; without one, any object).
std::optional<ApiError> parse_response_format(const json& b, GenerationRequest& g) {
    OutputFormat& format = g.format;
    format = OutputFormat::Text;
    const auto it = b.find("response_format");
    if (it == b.end() || it->is_null()) return std::nullopt;
    const auto type_it = it->is_object() ? it->find("type") : it->end();
    if (!it->is_object() || type_it == it->end() || !type_it->is_string())
        return bad_request("'response_format' must be an object with a 'type'", "response_format");
    const std::string type = type_it->get<std::string>();
    if (type == "json_object") format = OutputFormat::JsonObject;
    if (type == "text" || type == "json_object") return std::nullopt;
    if (type != "json_schema")
        return bad_request("'response_format' of type '" + type +
                               "' is not supported by this server (text, json_object or "
                               "json_schema)",
                           "response_format", "unsupported_parameter");
    const auto js = it->find("json_schema");
    if (js == it->end() || !js->is_object())
        return bad_request("'response_format.json_schema' must be an object with a 'name'",
                           "response_format.json_schema");
    format = OutputFormat::JsonObject;
    const auto schema = js->find("schema");
    if (schema == js->end() || schema->is_null()) return std::nullopt;
    auto compiled = std::make_shared<JsonSchema>();
    if (std::string why = compile_json_schema(*schema, *compiled); !why.empty())
        return bad_request(why, "response_format.json_schema.schema", "unsupported_parameter");
    format = OutputFormat::JsonSchema;
    g.json_schema = std::move(compiled);
    return std::nullopt;
}

}  // namespace

std::optional<ApiError> parse_chat_request(const json& b, const Model& model,
                                           const RequestLimits& limits, ParsedRequest& out) {
    if (auto e = refuse_unsupported_chat(b)) return e;
    if (auto e = parse_response_format(b, out.gen)) return e;
    const auto it = b.find("messages");
    if (it == b.end() || !it->is_array() || it->empty())
        return bad_request("'messages' must be a non-empty array", "messages");
    std::vector<ChatTurn> turns;
    for (size_t i = 0; i < it->size(); ++i) {
        const json& m = (*it)[i];
        const std::string param = "messages[" + std::to_string(i) + "]";
        if (!m.is_object() || !m.contains("role") || !m["role"].is_string())
            return bad_request("'" + param + "' must be an object with a 'role'", param);
        std::string role = m["role"].get<std::string>();
        if (role == "developer") role = "system";
        if (role != "system" && role != "user" && role != "assistant")
            return bad_request("'" + param + ".role' must be system, developer, user or assistant",
                               param + ".role");
        ChatTurn t{std::move(role), {}};
        if (auto e = content_text(m, i, t.content)) return e;
        turns.push_back(std::move(t));
    }
    // vLLM's continue_final_message: the last (assistant) message is a reply to write on
    // from its end, so it follows the generation prompt as plain text instead of a closed turn.
    std::string continued;
    if (const auto c = b.find("continue_final_message"); c != b.end() && !c->is_null()) {
        if (!c->is_boolean())
            return bad_request("'continue_final_message' must be a boolean",
                               "continue_final_message");
        if (c->get<bool>()) {
            if (turns.back().role != "assistant" || turns.size() < 2)
                return bad_request(
                    "'continue_final_message' needs an assistant message last, after another",
                    "continue_final_message");
            continued = std::move(turns.back().content);
            turns.pop_back();
        }
    }
    auto prompt = build_chat_prompt(model, turns, true);
    if (!prompt)
        return bad_request("the messages could not be rendered: " + prompt.error_message(),
                           "messages");
    if (!continued.empty()) {
        auto more = model.tokenize(continued, /*add_special=*/false, /*parse_special=*/false);
        if (!more)
            return bad_request("the final message could not be tokenized: " + more.error_message(),
                               "messages");
        prompt->tokens.insert(prompt->tokens.end(), more->begin(), more->end());
        // A JSON reply continues the object the final message starts (the scheduler refuses
        // one that does not start an object).
        if (out.gen.format != OutputFormat::Text) out.gen.reply_prefix = std::move(continued);
    }
    out.gen.prompt = std::move(prompt->tokens);
    out.gen.stop_strings = std::move(prompt->stop_strings);
    // logprobs: true, with top_logprobs alternatives (0 to 20) a token.
    bool logprobs = false;
    std::optional<int64_t> top;
    if (auto e = boolean(b, "logprobs", logprobs)) return e;
    if (auto e = integer(b, "top_logprobs", 0, kMaxTopLogprobs, top)) return e;
    if (top && !logprobs)
        return bad_request("'top_logprobs' needs 'logprobs': true", "top_logprobs");
    if (logprobs) out.gen.logprobs = static_cast<int32_t>(top.value_or(0));
    if (auto e = parse_common(b, model, limits, "messages", out)) return e;
    return parse_logit_bias(b, model, out.gen.sampling);
}

std::optional<ApiError> parse_completion_request(const json& b, const Model& model,
                                                 const RequestLimits& limits, ParsedRequest& out) {
    const auto it = b.find("prompt");
    if (it == b.end() || it->is_null()) return bad_request("'prompt' is required", "prompt");
    // One prompt (a string or token ids), or a batch of them (an array of strings or of
    // token-id arrays): each prompt of a batch gets its own n choices.
    const auto one_prompt = [&](const json& p,
                                std::vector<int32_t>& toks) -> std::optional<ApiError> {
        if (p.is_string()) {
            auto t = model.tokenize(p.get<std::string>(), true, true);
            if (!t)
                return bad_request("the prompt could not be tokenized: " + t.error_message(),
                                   "prompt");
            toks = std::move(t.value());
        } else if (p.is_array() && !p.empty()) {
            const int64_t n_vocab = model.info().n_vocab;
            for (const auto& t : p) {
                if (!t.is_number_integer() || t.get<int64_t>() < 0 || t.get<int64_t>() >= n_vocab)
                    return bad_request("'prompt' token ids must be integers from 0 to " +
                                           std::to_string(n_vocab - 1),
                                       "prompt");
                toks.push_back(t.get<int32_t>());
            }
        } else {
            return bad_request(
                "'prompt' must be a string, an array of token ids, or an array of "
                "either",
                "prompt");
        }
        if (toks.empty()) return bad_request("'prompt' is empty", "prompt");
        return std::nullopt;
    };
    const json& p = *it;
    const bool batch = p.is_array() && !p.empty() &&
                       std::all_of(p.begin(), p.end(), [](const json& x) { return x.is_string(); });
    const bool token_batch =
        p.is_array() && !p.empty() &&
        std::all_of(p.begin(), p.end(), [](const json& x) { return x.is_array(); });
    if (batch || token_batch) {
        if (p.size() > static_cast<size_t>(kMaxChoices))
            return bad_request(
                "'prompt' may hold at most " + std::to_string(kMaxChoices) + " prompts", "prompt");
        for (size_t i = 0; i < p.size(); ++i) {
            std::vector<int32_t> toks;
            if (auto e = one_prompt(p[i], toks)) return e;
            if (i == 0)
                out.gen.prompt = std::move(toks);
            else
                out.more_prompts.push_back(std::move(toks));
        }
    } else if (auto e = one_prompt(p, out.gen.prompt)) {
        return e;
    }
    if (const auto e = b.find("echo"); e != b.end() && e->is_boolean() && e->get<bool>())
        return bad_request("'echo' is not supported", "echo");
    if (const auto s = b.find("suffix"); s != b.end() && !s->is_null())
        return bad_request("'suffix' is not supported", "suffix");
    // The legacy endpoint's logprobs: how many alternatives a token (0 to 5), null for none.
    std::optional<int64_t> logprobs;
    if (auto e = integer(b, "logprobs", 0, kMaxCompletionLogprobs, logprobs)) return e;
    if (logprobs) out.gen.logprobs = static_cast<int32_t>(*logprobs);
    if (auto e = parse_common(b, model, limits, "prompt", out)) return e;
    return parse_logit_bias(b, model, out.gen.sampling);
}

}  // namespace hearth::server
