// SentencePiece-style encoding (tokenizer.ggml.model = llama): start from single characters
// and repeatedly merge the adjacent pair whose joined text is the best-scoring token; a
// character that never becomes a token is spelled with byte tokens <0xXX>.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tokenizer/vocab.h"

namespace hearth::tokenizer {

class SpmEncoder {
public:
    explicit SpmEncoder(const Vocab& vocab) : vocab_(vocab) {}

    struct Symbol {
        uint32_t start, len;  // bytes of the text; len 0 once merged into the left neighbour
        int32_t prev, next;
    };
    struct Bigram {
        float score;
        uint32_t left, right, len;
    };
    struct Scratch {
        std::vector<Symbol> symbols;
        std::vector<Bigram> heap;
    };

    // text: valid UTF-8 with spaces already written as U+2581. Appends ids to out.
    void encode(std::string_view text, std::vector<int32_t>& out, Scratch& scratch) const;

private:
    void encode_chunk(std::string_view text, std::vector<int32_t>& out, Scratch& s) const;
    void try_pair(std::string_view text, Scratch& s, int32_t left, int32_t right) const;
    const Vocab& vocab_;
};

}  // namespace hearth::tokenizer
