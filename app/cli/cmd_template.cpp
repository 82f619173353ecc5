// hearth-cli template: render a chat template for a conversation, byte for byte.
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "args.h"
#include "chat/render_chat.h"
#include "command_registry.h"
#include "gguf/gguf_file.h"

namespace {

using hearth::chat::ChatInputs;
using hearth::chat::Value;
using Json = nlohmann::ordered_json;

constexpr const char* kUsage =
    R"(Usage: hearth-cli template (-m MODEL.gguf | --template-file T.jinja) --messages FILE.json
                         [--no-generation-prompt] [--bos S] [--eos S] [--context FILE.json]
                         [--strict]

Renders a chat template (Jinja, as Hugging Face transformers does: trim_blocks, lstrip_blocks)
for a conversation and prints the prompt to stdout exactly: no newline is added, nothing else
is printed there. Scripts may compare it byte for byte.

Options:
  -m, --model FILE        take tokenizer.chat_template and the BOS/EOS token texts
                          (tokenizer.ggml.tokens[tokenizer.ggml.bos_token_id / eos_token_id])
                          from a GGUF file
  --template-file FILE    take the template from a file (BOS/EOS empty unless given)
  --messages FILE         JSON array of messages [{"role": "...", "content": "..."}, ...], or
                          an object with such an array under "messages". Other keys of a
                          message (tool_calls, name, ...) are passed to the template as they are
  --no-generation-prompt  add_generation_prompt=false (default true)
  --bos S, --eos S        bos_token / eos_token text (overrides the model's)
  --context FILE          JSON object of extra template variables (tools, documents, flags,
                          additional_special_tokens, ...)
  --strict                render the template exactly as given: no system-message merge and
                          no built-in fallback format; a template error is a failure

Without --strict, a template that rejects or drops the system message is rendered with the
system text merged into the first user message ("<system>\n<user>"), and a missing or failing
template falls back to a built-in format (ChatML, Llama 2, Llama 3, Mistral, Gemma, Phi-3,
Zephyr, chosen by markers in the template or the vocabulary). Either is reported on stderr as
one line starting "hearth-cli template: note: ".

Exit status: 0 rendered, 1 an input could not be read or (with --strict) the template failed,
2 usage error.)";

std::optional<std::string> read_text(const std::string& path, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = "cannot open " + path;
        return std::nullopt;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

Value from_json(const Json& j) {
    switch (j.type()) {
        case Json::value_t::null:
            return Value::none();
        case Json::value_t::boolean:
            return Value::boolean(j.get<bool>());
        case Json::value_t::number_integer:
            return Value::integer(j.get<int64_t>());
        case Json::value_t::number_unsigned:
            if (j.get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX))
                return Value::integer(j.get<int64_t>());
            return Value::number(j.get<double>());
        case Json::value_t::number_float:
            return Value::number(j.get<double>());
        case Json::value_t::string:
            return Value::string(j.get<std::string>());
        case Json::value_t::array: {
            hearth::chat::ValueList items;
            for (const auto& e : j) items.push_back(from_json(e));
            return Value::list(std::move(items));
        }
        case Json::value_t::object: {
            Value d = Value::dict();
            for (const auto& [k, v] : j.items()) d.set(k, from_json(v));
            return d;
        }
        default:
            return Value();
    }
}

bool load_messages(const Json& doc, ChatInputs& in, std::string& error) {
    const Json* list = &doc;
    if (doc.is_object() && doc.contains("messages")) list = &doc["messages"];
    if (!list->is_array()) {
        error = "--messages: expected a JSON array of messages";
        return false;
    }
    for (const auto& m : *list) {
        if (!m.is_object() || !m.contains("role") || !m["role"].is_string()) {
            error = "--messages: every message needs a string \"role\"";
            return false;
        }
        hearth::chat::ChatMessage msg;
        msg.role = m["role"].get<std::string>();
        for (const auto& [k, v] : m.items()) {
            if (k == "role") continue;
            if (k == "content" && v.is_string()) {
                msg.content = v.get<std::string>();
            } else {
                msg.extra.emplace_back(k, from_json(v));
            }
        }
        in.messages.push_back(std::move(msg));
    }
    return true;
}

// The chat template, BOS/EOS texts and control-token texts of a GGUF file.
struct ModelTemplate {
    std::string source;
    std::string bos, eos;
    std::vector<std::string> special_tokens;
};

std::optional<ModelTemplate> read_model(const std::string& path, std::string& error) {
    auto file = hearth::gguf::GgufFile::open(path);
    if (!file) {
        error = file.error_message();
        return std::nullopt;
    }
    const auto& g = **file;
    ModelTemplate out;
    if (auto t = g.get_string("tokenizer.chat_template")) out.source = std::string(*t);
    const auto* tokens = g.find("tokenizer.ggml.tokens");
    bool string_tokens = tokens && tokens->type() == hearth::gguf::ValueType::Array &&
                         tokens->array_type() == hearth::gguf::ValueType::String;
    auto token_text = [&](const char* key) -> std::string {
        auto id = g.get_u64(key);
        if (!id || !string_tokens || *id >= tokens->array_size()) return {};
        return std::string(tokens->string_at(*id));
    };
    out.bos = token_text("tokenizer.ggml.bos_token_id");
    out.eos = token_text("tokenizer.ggml.eos_token_id");
    const auto* types = g.find("tokenizer.ggml.token_type");
    if (string_tokens && types && types->type() == hearth::gguf::ValueType::Array) {
        uint64_t n = std::min(types->array_size(), tokens->array_size());
        for (uint64_t i = 0; i < n; ++i)
            if (types->int_at(i) == 3) out.special_tokens.emplace_back(tokens->string_at(i));
    }
    return out;
}

int fail(const std::string& message, int code) {
    std::fprintf(stderr, "hearth-cli template: %s\n", message.c_str());
    return code;
}

int run_template(std::span<const std::string> args) {
    static const hearth::cli::OptionSpec specs[] = {
        {"model", 'm', true},  {"template-file", 0, true},
        {"messages", 0, true}, {"no-generation-prompt", 0, false},
        {"bos", 0, true},      {"eos", 0, true},
        {"context", 0, true},  {"strict", 0, false},
    };
    std::string error;
    auto a = hearth::cli::Args::parse(args, specs, error);
    if (!a) return fail(error + "\n" + kUsage, 2);
    if (a->has("model") == a->has("template-file"))
        return fail("give exactly one of -m MODEL.gguf and --template-file FILE", 2);
    if (!a->has("messages")) return fail("--messages FILE.json is required", 2);
    if (!a->positional().empty()) return fail("unexpected argument " + a->positional()[0], 2);

    ModelTemplate model;
    if (a->has("model")) {
        auto m = read_model(*a->value("model"), error);
        if (!m) return fail(error, 1);
        model = std::move(*m);
    } else {
        auto text = read_text(*a->value("template-file"), error);
        if (!text) return fail(error, 1);
        model.source = std::move(*text);
    }

    ChatInputs in;
    in.add_generation_prompt = !a->has("no-generation-prompt");
    in.bos_token = a->value_or("bos", model.bos);
    in.eos_token = a->value_or("eos", model.eos);
    try {
        auto text = read_text(*a->value("messages"), error);
        if (!text) return fail(error, 1);
        if (!load_messages(Json::parse(*text), in, error)) return fail(error, 1);
        if (auto ctx_path = a->value("context")) {
            auto ctx = read_text(*ctx_path, error);
            if (!ctx) return fail(error, 1);
            Json doc = Json::parse(*ctx);
            if (!doc.is_object()) return fail("--context: expected a JSON object", 1);
            for (const auto& [k, v] : doc.items()) in.context.emplace_back(k, from_json(v));
        }
    } catch (const nlohmann::json::exception& e) {
        return fail(std::string("bad JSON: ") + e.what(), 1);
    }

    std::string prompt;
    if (a->has("strict")) {
        if (model.source.empty()) return fail("the model has no chat template", 1);
        auto t = hearth::chat::ChatTemplate::parse(model.source);
        if (!t) return fail("template: " + t.error_message(), 1);
        auto r = t->render(in);
        if (!r) return fail("template: " + r.error_message(), 1);
        prompt = std::move(r->text);
    } else {
        auto r = hearth::chat::render_chat(model.source, in, model.special_tokens);
        if (!r.note.empty())
            std::fprintf(stderr, "hearth-cli template: note: %s\n", r.note.c_str());
        prompt = std::move(r.prompt.text);
    }
    std::fwrite(prompt.data(), 1, prompt.size(), stdout);
    std::fflush(stdout);
    return 0;
}

}  // namespace

HEARTH_CLI_COMMAND({"template", "render a chat template for a conversation", kUsage, run_template});
