// Shared by the Jinja unit tests: one fixed context and a render helper.
#pragma once

#include <string>
#include <string_view>

#include "chat/chat_template.h"
#include "json_value.h"

namespace hearth::chat::test {

// The variables every unit-test template sees (the same JSON fed to Python Jinja2 with HF's
// settings to produce the expected strings in these tests).
inline constexpr std::string_view kContextJson =
    R"json({"messages": [{"role": "system", "content": "You are a helpful assistant"}, {"role": "user", "content": "Hello"}, {"role": "assistant", "content": "Hi there"}, {"role": "user", "content": "Who are you"}], "bos_token": "<s>", "eos_token": "</s>", "add_generation_prompt": true, "n": 3, "f": 2.5, "s": "  Hello World  ", "nums": [3, 1, 2], "d": {"b": 1, "a": 2}, "users": [{"name": "ann", "age": 30, "admin": true}, {"name": "bob", "age": 25, "admin": false}, {"name": "cy", "age": 41, "admin": true}], "nothing": null, "yes": true, "text": "a,b,,c", "uni": "héllo wörld ПРИВЕТ", "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Get the weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]})json";

inline ChatInputs unit_inputs() {
    ChatInputs in;
    auto ctx = nlohmann::ordered_json::parse(kContextJson);
    for (const auto& [k, v] : ctx.items()) {
        if (k == "messages") {
            for (const auto& m : v)
                in.messages.push_back(
                    {m["role"].get<std::string>(), m["content"].get<std::string>(), {}});
        } else if (k == "bos_token") {
            in.bos_token = v.get<std::string>();
        } else if (k == "eos_token") {
            in.eos_token = v.get<std::string>();
        } else if (k == "add_generation_prompt") {
            in.add_generation_prompt = v.get<bool>();
        } else {
            in.context.emplace_back(k, from_json(v));
        }
    }
    return in;
}

// The rendered text, or "ERROR: <message>".
inline std::string render(std::string_view source, const ChatInputs& in = unit_inputs(),
                          const Limits& limits = {}) {
    auto t = ChatTemplate::parse(source, limits);
    if (!t) return "ERROR: " + t.error_message();
    auto r = t->render(in);
    if (!r) return "ERROR: " + r.error_message();
    return r->text;
}

struct Case {
    const char* source;
    const char* expected;
};

}  // namespace hearth::chat::test
