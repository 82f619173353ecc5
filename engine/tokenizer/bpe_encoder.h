// Byte-level BPE encoding (tokenizer.ggml.model = gpt2) of one pre-tokenized word: every byte
// starts as the token spelling it, then the adjacent pair with the lowest merge rank is merged
// until no ranked pair is left.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/vocab.h"

namespace hearth::tokenizer {

class BpeEncoder {
public:
    explicit BpeEncoder(const Vocab& vocab) : vocab_(vocab) {}

    struct Symbol {
        int32_t id;  // current token; -1 when the byte has no token
        int32_t prev, next;
        bool alive;
    };
    struct Pair {
        uint32_t rank;
        uint32_t left, right;
        int32_t left_id, right_id, result;
    };
    struct Scratch {
        std::vector<Symbol> symbols;
        std::vector<Pair> heap;
        std::string spelled;  // the word in the byte-level alphabet (ignore_merges lookups)
    };

    // word: raw bytes of one pre-tokenized piece. Appends ids to out.
    void encode_word(std::string_view word, std::vector<int32_t>& out, Scratch& scratch) const;

private:
    void try_pair(Scratch& s, int32_t left, int32_t right) const;
    const Vocab& vocab_;
};

}  // namespace hearth::tokenizer
