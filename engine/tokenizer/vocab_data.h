// The plain data of a vocabulary, as read from GGUF metadata (or written by hand in tests).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hearth::tokenizer {

// tokenizer.ggml.token_type values.
enum class TokenType : uint8_t {
    Undefined = 0,
    Normal = 1,
    Unknown = 2,
    Control = 3,
    UserDefined = 4,
    Unused = 5,
    Byte = 6,
};

enum class VocabKind : uint8_t {
    Spm,  // tokenizer.ggml.model = llama: SentencePiece-style, score-driven merges
    Bpe,  // tokenizer.ggml.model = gpt2: byte-level BPE with merge ranks
};

struct VocabData {
    VocabKind kind = VocabKind::Spm;
    std::string pre;                  // tokenizer.ggml.pre; empty = "default" (BPE only)
    std::string model_name;           // general.name (a few per-model token attributes)
    std::vector<std::string> tokens;  // text by id
    std::vector<float> scores;        // SPM merge priority; empty = all 0
    std::vector<TokenType> types;     // empty = all normal
    std::vector<std::string> merges;  // BPE: "left right", index = rank
    // Special ids; nullopt = the model default (see Vocab::build), -1 = none.
    std::optional<int32_t> bos, eos, eot, eom, unk, pad;
    std::optional<bool> add_bos, add_eos, add_space_prefix;
};

}  // namespace hearth::tokenizer
