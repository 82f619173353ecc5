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

// Whether the template shows a system message anywhere it could go. A template may put the
// system text in one place only (Mistral's tool templates put it in the last user turn, so a
// conversation ending on an assistant turn renders without it) or refuse it outright (Gemma,
// Mistral v0.1). Probe conversations with a marker system text, ending on a user turn and on
// an assistant turn: if any of them renders with the marker, the template takes system
// messages and nothing is merged.
bool takes_system_message(const ChatTemplate& tmpl, const ChatInputs& in) {
    static constexpr std::string_view kMarker = "hearthsystemprobe7f3a";
    ChatInputs probe = in;
    const std::string marker(kMarker);
    const std::vector<std::vector<ChatMessage>> shapes = {
        {{"system", marker, {}}, {"user", "probe", {}}},
        {{"system", marker, {}}, {"user", "probe", {}}, {"assistant", "probe", {}}},
        {{"system", marker, {}},
         {"user", "probe", {}},
         {"assistant", "probe", {}},
         {"user", "probe", {}}},
    };
    for (const auto& shape : shapes) {
        for (bool generation_prompt : {true, false}) {
            probe.messages = shape;
            probe.add_generation_prompt = generation_prompt;
            auto r = tmpl.render(probe);
            if (r && r->text.find(kMarker) != std::string::npos) return true;
        }
    }
    return false;
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
    // The merge is for templates that cannot show a system message at all; one that places it
    // somewhere this conversation does not reach is rendered as it is (as transformers would).
    const bool merge = has_system(in) && !takes_system_message(*tmpl, in);
    if (first && !merge) {
        ChatRenderResult r;
        r.prompt = std::move(*first);
        return r;
    }
    if (merge) {
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
