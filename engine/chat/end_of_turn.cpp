#include "chat/end_of_turn.h"

#include <algorithm>

namespace hearth::chat {

namespace {

constexpr std::string_view kReply = "hearthreplyprobe4c1d";

// The longest special token the text starts with, after spaces and newlines.
std::string_view special_at(std::string_view text, std::span<const std::string> specials) {
    size_t i = text.find_first_not_of(" \t\r\n");
    if (i == std::string_view::npos) return {};
    text.remove_prefix(i);
    std::string_view best;
    for (const auto& s : specials)
        if (s.size() > best.size() && text.substr(0, s.size()) == s) best = s;
    return best;
}

}  // namespace

std::vector<std::string> end_of_turn_markers(std::string_view template_source,
                                             std::span<const std::string> special_tokens,
                                             const ChatInputs& base, const Limits& limits) {
    std::vector<std::string> out;
    auto tmpl = ChatTemplate::parse(template_source, limits);
    if (!tmpl) return out;
    const std::string reply(kReply);
    // An assistant turn followed by a user turn (how every past turn is closed), with and
    // without a system message (some templates require one, some refuse it).
    const std::vector<std::vector<ChatMessage>> shapes = {
        {{"user", "hello", {}}, {"assistant", reply, {}}, {"user", "again", {}}},
        {{"system", "be brief", {}},
         {"user", "hello", {}},
         {"assistant", reply, {}},
         {"user", "again", {}}},
    };
    ChatInputs probe = base;
    for (const auto& shape : shapes) {
        probe.messages = shape;
        probe.add_generation_prompt = true;
        auto r = tmpl->render(probe);
        if (!r) continue;
        size_t at = r->text.find(kReply);
        if (at == std::string::npos) continue;
        std::string_view after = std::string_view(r->text).substr(at + kReply.size());
        std::string_view marker = special_at(after, special_tokens);
        if (!marker.empty() && std::find(out.begin(), out.end(), marker) == out.end())
            out.emplace_back(marker);
    }
    return out;
}

}  // namespace hearth::chat
