#include "chat/fallback_formats.h"

#include "chat/text_ops.h"

namespace hearth::chat {

std::string_view format_name(ChatFormat f) {
    switch (f) {
        case ChatFormat::Template:
            return "template";
        case ChatFormat::ChatML:
            return "ChatML";
        case ChatFormat::Llama2:
            return "Llama 2";
        case ChatFormat::Llama3:
            return "Llama 3";
        case ChatFormat::Mistral:
            return "Mistral";
        case ChatFormat::Gemma:
            return "Gemma";
        case ChatFormat::Phi3:
            return "Phi-3";
        case ChatFormat::Zephyr:
            return "Zephyr";
    }
    return "unknown";
}

namespace {

struct Marker {
    const char* text;
    const char* also;  // a second marker that must be present too, or nullptr
    ChatFormat format;
};

// Most specific first: Llama 2 and Mistral share [INST]; Phi-3 and Zephyr share <|user|>.
constexpr Marker kMarkers[] = {
    {"<|im_start|>", nullptr, ChatFormat::ChatML},
    {"<|start_header_id|>", nullptr, ChatFormat::Llama3},
    {"<|eot_id|>", nullptr, ChatFormat::Llama3},
    {"<start_of_turn>", nullptr, ChatFormat::Gemma},
    {"<<SYS>>", nullptr, ChatFormat::Llama2},
    {"[INST]", nullptr, ChatFormat::Mistral},
    {"<|user|>", "<|end|>", ChatFormat::Phi3},
    {"<|assistant|>", "<|end|>", ChatFormat::Phi3},
    {"<|user|>", nullptr, ChatFormat::Zephyr},
};

// Builds a prompt piece by piece, markup and input kept apart.
class Builder {
public:
    void markup(std::string_view s) { text_.append(s, false); }
    void input(std::string_view s) { text_.append(s, true); }
    RenderedPrompt done() const { return to_prompt(text_); }

private:
    Text text_;
};

std::string stripped(const std::string& s) {
    return text_ops::strip(Text(s), text_ops::Side::Both).str;
}

// The leading system messages' text, and the index of the first non-system message.
std::pair<std::string, size_t> split_system(const ChatInputs& in) {
    std::string system;
    size_t i = 0;
    for (; i < in.messages.size() && in.messages[i].role == "system"; ++i) {
        if (!system.empty()) system += "\n";
        system += in.messages[i].content;
    }
    return {system, i};
}

RenderedPrompt chatml(const ChatInputs& in) {
    Builder b;
    for (const auto& m : in.messages) {
        b.markup("<|im_start|>" + m.role + "\n");
        b.input(m.content);
        b.markup("<|im_end|>\n");
    }
    if (in.add_generation_prompt) b.markup("<|im_start|>assistant\n");
    return b.done();
}

RenderedPrompt llama3(const ChatInputs& in) {
    Builder b;
    b.markup(in.bos_token);
    for (const auto& m : in.messages) {
        b.markup("<|start_header_id|>" + m.role + "<|end_header_id|>\n\n");
        b.input(stripped(m.content));
        b.markup("<|eot_id|>");
    }
    if (in.add_generation_prompt) b.markup("<|start_header_id|>assistant<|end_header_id|>\n\n");
    return b.done();
}

// Llama 2 and Mistral: [INST] turns, the system text folded into the first one.
RenderedPrompt inst(const ChatInputs& in, bool llama2) {
    Builder b;
    auto [system, start] = split_system(in);
    bool first_user = true;
    if (!llama2) b.markup(in.bos_token);
    for (size_t i = start; i < in.messages.size(); ++i) {
        const auto& m = in.messages[i];
        if (m.role == "assistant") {
            if (llama2) b.markup(" ");  // Mistral's template has no space here
            b.input(stripped(m.content));
            b.markup(llama2 ? " " + in.eos_token : in.eos_token);
            continue;
        }
        if (llama2) b.markup(in.bos_token);
        b.markup("[INST] ");
        if (first_user && !system.empty()) {
            if (llama2) {
                b.markup("<<SYS>>\n");
                b.input(system);
                b.markup("\n<</SYS>>\n\n");
            } else {
                b.input(system);
                b.markup("\n\n");
            }
        }
        first_user = false;
        b.input(stripped(m.content));
        b.markup(" [/INST]");
    }
    return b.done();
}

RenderedPrompt gemma(const ChatInputs& in) {
    Builder b;
    auto [system, start] = split_system(in);
    b.markup(in.bos_token);
    bool first = true;
    for (size_t i = start; i < in.messages.size(); ++i) {
        const auto& m = in.messages[i];
        b.markup("<start_of_turn>" + std::string(m.role == "assistant" ? "model" : m.role) + "\n");
        if (first && !system.empty()) {
            b.input(system);
            b.markup("\n\n");
        }
        first = false;
        b.input(stripped(m.content));
        b.markup("<end_of_turn>\n");
    }
    if (in.add_generation_prompt) b.markup("<start_of_turn>model\n");
    return b.done();
}

// Phi-3 ends turns with <|end|>, Zephyr with the end-of-sequence token.
RenderedPrompt tagged(const ChatInputs& in, const std::string& end) {
    Builder b;
    for (const auto& m : in.messages) {
        b.markup("<|" + m.role + "|>\n");
        b.input(m.content);
        b.markup(end + "\n");
    }
    if (in.add_generation_prompt) b.markup("<|assistant|>\n");
    return b.done();
}

}  // namespace

FormatChoice choose_fallback(std::string_view source, std::span<const std::string> tokens) {
    auto in_tokens = [&](const char* m) {
        for (const auto& t : tokens)
            if (t == m) return true;
        return false;
    };
    for (const auto& m : kMarkers)
        if (source.find(m.text) != std::string_view::npos &&
            (!m.also || source.find(m.also) != std::string_view::npos))
            return {m.format, std::string("marker '") + m.text + "' in the template"};
    for (const auto& m : kMarkers)
        if (in_tokens(m.text) && (!m.also || in_tokens(m.also)))
            return {m.format, std::string("special token '") + m.text + "' in the vocabulary"};
    return {ChatFormat::ChatML, "no known marker, ChatML is the most common format"};
}

RenderedPrompt render_fallback(ChatFormat format, const ChatInputs& in) {
    switch (format) {
        case ChatFormat::Llama2:
            return inst(in, true);
        case ChatFormat::Mistral:
            return inst(in, false);
        case ChatFormat::Llama3:
            return llama3(in);
        case ChatFormat::Gemma:
            return gemma(in);
        case ChatFormat::Phi3:
            return tagged(in, "<|end|>");
        case ChatFormat::Zephyr:
            return tagged(in, in.eos_token.empty() ? "</s>" : in.eos_token);
        case ChatFormat::Template:
        case ChatFormat::ChatML:
            break;
    }
    return chatml(in);
}

}  // namespace hearth::chat
