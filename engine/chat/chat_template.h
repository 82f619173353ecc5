// The public face of engine/chat: parse a model's Jinja chat template once, render it for a
// conversation. Rendering follows Python Jinja2 with HF transformers' settings (trim_blocks,
// lstrip_blocks, tojson, raise_exception, strftime_now).
//
// The result comes in segments: template markup (where special tokens such as <|im_end|> are
// meant) and text that came from message contents (to be tokenized as plain text, so a user
// who types "<|im_end|>" cannot inject a control token).
#pragma once

#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chat/evaluator.h"
#include "chat/value.h"
#include "hearth/result.h"

namespace hearth::chat {

struct ChatMessage {
    std::string role;
    std::string content;
    // More fields the template sees as message[key] (tool_calls, name, ...). A field named
    // "content" here replaces `content` (e.g. None for a tool-call turn). Strings in these
    // fields count as input, like the content.
    std::vector<std::pair<std::string, Value>> extra;
};

struct ChatInputs {
    std::vector<ChatMessage> messages;
    bool add_generation_prompt = true;
    std::string bos_token;
    std::string eos_token;
    // More template variables: tools, documents, additional_special_tokens, flags ...
    // These are trusted (not input). tools and documents are None unless given here, as
    // transformers passes them.
    std::vector<std::pair<std::string, Value>> context;
    // The time strftime_now() reports; the system clock when absent.
    std::optional<std::time_t> now;
};

struct PromptSegment {
    std::string text;
    bool from_input = false;  // true: message text, tokenize without special tokens
};

struct RenderedPrompt {
    std::string text;                     // the whole prompt
    std::vector<PromptSegment> segments;  // the same bytes, split by origin
};

class ChatTemplate {
public:
    // Parses and checks the template (unknown filters and tests are errors here, as in
    // Jinja2). Errors name line and column.
    static Result<ChatTemplate> parse(std::string_view source, const Limits& limits = {});

    // Renders the conversation. Errors (raise_exception, undefined values, limits) name the
    // template line and column.
    Result<RenderedPrompt> render(const ChatInputs& inputs) const;

    const std::string& source() const;

private:
    struct Impl;
    explicit ChatTemplate(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
    std::shared_ptr<const Impl> impl_;
};

// The template context as a Value: messages, add_generation_prompt, bos/eos, extra context.
Value make_context(const ChatInputs& inputs);
// A copy of v whose strings are all marked as input.
Value mark_input(const Value& v);
// Splits tainted text into segments (adjacent bytes of the same origin merged).
RenderedPrompt to_prompt(const Text& text);

}  // namespace hearth::chat
