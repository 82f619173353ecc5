// The one call the app makes: render a conversation with the model's template, repairing
// what can be repaired (the system-message polyfill) and falling back to a built-in format
// when the template is missing or broken. The caller is told which path was taken and why.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "chat/chat_template.h"
#include "chat/fallback_formats.h"

namespace hearth::chat {

struct ChatRenderResult {
    RenderedPrompt prompt;
    ChatFormat format = ChatFormat::Template;  // Template: the model's own template rendered it
    bool system_merged = false;                // the system-message polyfill was applied
    // Empty when the template rendered the conversation as given; otherwise why the polyfill
    // or the fallback format was used (for the app to show).
    std::string note;
};

// template_source may be empty (no template in the model). special_tokens: the texts of the
// vocabulary's special tokens, used to recognise a fallback format.
ChatRenderResult render_chat(std::string_view template_source, const ChatInputs& inputs,
                             std::span<const std::string> special_tokens = {},
                             const Limits& limits = {});

// The conversation with a leading system message merged into the first user message as
// "<system>\n<user>" (templates that reject or drop the system role expect this).
ChatInputs merge_system_message(const ChatInputs& inputs);

}  // namespace hearth::chat
