// The table behind tokenizer.ggml.pre: which regex set each pre-tokenizer name uses, and the
// flags that name implies. Data only; PreTokenizer compiles it.
#pragma once

#include <span>
#include <string_view>

namespace hearth::tokenizer {

// One pre-tokenizer type: its ordered regexes (each splits every piece the previous ones
// produced), or, when unsupported, why.
struct PreTypeRules {
    std::string_view type;
    std::span<const std::string_view> regexes;
    std::string_view unsupported_reason;  // empty when supported
};

// One tokenizer.ggml.pre name and what it implies beyond its regex set.
struct PreNameRule {
    std::string_view name;
    std::string_view type;
    bool ignore_merges;  // a whole pre-tokenized word that is a token is emitted as is
    bool add_bos;        // BOS by default (a GGUF add_bos_token key still overrides)
    bool no_bos;         // the vocabulary has no BOS token at all
};

std::span<const PreNameRule> pre_name_rules();
std::span<const PreTypeRules> pre_type_rules();

}  // namespace hearth::tokenizer
