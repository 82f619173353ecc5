#include "chat/render_chat.h"

#include "chat/text_ops.h"

namespace hearth::chat {

ChatInputs merge_system_message(const ChatInputs& inputs) {
    ChatInputs out = inputs;
    if (out.messages.empty() || out.messages[0].role != "system") return out;
    std::string system = out.messages[0].content;
    out.messages.erase(out.messages.begin());
    for (auto& m : out.messages) {
        if (m.role == "user") {
            m.content = system + "\n" + m.content;
            return out;
        }
    }
    out.messages.insert(out.messages.begin(), ChatMessage{"user", system, {}});
    return out;
}

namespace {

bool has_system(const ChatInputs& in) {
    return !in.messages.empty() && in.messages[0].role == "system" &&
           !in.messages[0].content.empty();
}

// A template that ignores system messages renders without error but loses the text.
bool drops_system(const ChatInputs& in, const RenderedPrompt& p) {
    if (!has_system(in)) return false;
    const std::string& sys = in.messages[0].content;
    std::string trimmed = text_ops::strip(Text(sys), text_ops::Side::Both).str;
    return p.text.find(sys) == std::string::npos &&
           (trimmed.empty() || p.text.find(trimmed) == std::string::npos);
}

ChatRenderResult fallback(std::string_view source, const ChatInputs& in,
                          std::span<const std::string> special_tokens, std::string why) {
    FormatChoice choice = choose_fallback(source, special_tokens);
    ChatRenderResult r;
    r.format = choice.format;
    r.prompt = render_fallback(choice.format, in);
    r.note = why + "; using the built-in " + std::string(format_name(choice.format)) + " format (" +
             choice.why + ")";
    return r;
}

}  // namespace

ChatRenderResult render_chat(std::string_view source, const ChatInputs& in,
                             std::span<const std::string> special_tokens, const Limits& limits) {
    if (text_ops::strip(Text(std::string(source)), text_ops::Side::Both).str.empty())
        return fallback(source, in, special_tokens, "the model has no chat template");
    auto tmpl = ChatTemplate::parse(source, limits);
    if (!tmpl)
        return fallback(source, in, special_tokens,
                        "the chat template does not parse (" + tmpl.error_message() + ")");
    auto first = tmpl->render(in);
    if (first && !drops_system(in, *first)) {
        ChatRenderResult r;
        r.prompt = std::move(*first);
        return r;
    }
    if (has_system(in)) {
        auto merged = tmpl->render(merge_system_message(in));
        if (merged) {
            ChatRenderResult r;
            r.prompt = std::move(*merged);
            r.system_merged = true;
            r.note = first ? "the chat template drops the system message; it was merged into "
                             "the first user message"
                           : "the chat template rejects the system message (" +
                                 first.error_message() +
                                 "); it was merged into the first user message";
            return r;
        }
    }
    if (first) {  // dropped the system text and the merge failed: keep the template's output
        ChatRenderResult r;
        r.prompt = std::move(*first);
        r.note = "the chat template drops the system message";
        return r;
    }
    return fallback(source, in, special_tokens,
                    "the chat template failed (" + first.error_message() + ")");
}

}  // namespace hearth::chat
