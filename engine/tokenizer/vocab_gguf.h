// Reads a vocabulary's tokenizer.* metadata from a GGUF file (GGUF_FACTS section 4).
#pragma once

#include "gguf/gguf_file.h"
#include "hearth/result.h"
#include "tokenizer/vocab_data.h"

namespace hearth::tokenizer {

// Errors name the offending key; an unsupported tokenizer.ggml.model is an error that says so.
Result<VocabData> read_vocab_data(const gguf::GgufFile& file);

}  // namespace hearth::tokenizer
