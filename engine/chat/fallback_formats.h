// Built-in prompt formats for models whose template is missing or fails, and the markers
// that pick one.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "chat/chat_template.h"

namespace hearth::chat {

enum class ChatFormat { Template, ChatML, Llama2, Llama3, Mistral, Gemma, Phi3, Zephyr };

std::string_view format_name(ChatFormat f);

struct FormatChoice {
    ChatFormat format = ChatFormat::ChatML;
    std::string why;  // e.g. "marker '<|im_start|>' in the template"
};

// Looks for each format's markers in the template text, then in the vocabulary's special
// tokens; ChatML when nothing is recognised.
FormatChoice choose_fallback(std::string_view template_source,
                             std::span<const std::string> special_tokens);

// Renders the conversation in a built-in format. Message text is marked as input.
RenderedPrompt render_fallback(ChatFormat format, const ChatInputs& inputs);

}  // namespace hearth::chat
