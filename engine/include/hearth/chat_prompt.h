// Turns a conversation into the exact tokens a model expects: the model's own chat template
// (or a built-in format when it has none or it fails), with special tokens recognised only in
// the template's markup, so text a person types can never become a control token.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hearth/engine.h"
#include "hearth/result.h"

namespace hearth {

struct ChatTurn {
    std::string role;  // "system", "user", "assistant"
    std::string content;
};

struct ChatPrompt {
    std::vector<int32_t> tokens;  // BOS included when the model's convention wants it
    std::string text;             // the rendered prompt, as the template produced it
    std::string format;           // "template", or the built-in format used ("ChatML", ...)
    // Empty when the model's template rendered the conversation as given; otherwise why the
    // system message was merged or a built-in format was used (the app shows it).
    std::string note;
    // The template has no place for a system message, so it went into the first user message
    // (the two are one turn for whoever drops old turns).
    bool system_merged = false;
    // Turn markers to stop at when a built-in format was used (a model without its own
    // template may write them as plain text).
    std::vector<std::string> stop_strings;
};

// add_generation_prompt: end with the header of an assistant turn (what generation needs).
Result<ChatPrompt> build_chat_prompt(const Model& model, std::span<const ChatTurn> turns,
                                     bool add_generation_prompt = true);

}  // namespace hearth
