// Stops generation on the turn end a model's chat template writes, even when the GGUF names a
// different EOS token (engine/chat finds the marker; this marks its token id).
#pragma once

#include <string_view>

#include "tokenizer/tokenizer.h"

namespace hearth::runtime {

// Marks the special tokens the template writes after an assistant turn as end of generation.
// Returns how many tokens were newly marked.
int add_template_stop_tokens(tokenizer::Tokenizer& tok, std::string_view chat_template);

}  // namespace hearth::runtime
