// The end-of-turn markers a chat template writes: the special tokens that close an assistant
// turn. A model stops on them even when its GGUF names a different EOS token (a fine-tune
// whose template ends turns with <|im_end|> while EOS is </s>, Cohere's
// <|END_OF_TURN_TOKEN|>, OpenChat's <|end_of_turn|>, GLM's <|user|>, ...).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chat/chat_template.h"

namespace hearth::chat {

// Renders the template on probe conversations and returns the special-token texts (from
// special_tokens, longest match) that directly follow an assistant turn's content, spaces and
// newlines skipped. bos/eos/context come from `base` (its messages are replaced). Empty when
// the template does not parse, fails on every probe, or writes no special token there.
std::vector<std::string> end_of_turn_markers(std::string_view template_source,
                                             std::span<const std::string> special_tokens,
                                             const ChatInputs& base = {},
                                             const Limits& limits = {});

}  // namespace hearth::chat
