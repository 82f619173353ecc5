// Cuts special-token text out of raw text before tokenizing. A vocabulary lists the tokens
// that may be cut (longest first); each is cut at every non-overlapping occurrence left to
// right in the text the longer ones left over, which is how the reference vectors were made.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/vocab.h"

namespace hearth::tokenizer {

struct Fragment {
    size_t offset = 0;  // raw text: where in the input
    size_t length = 0;
    int32_t token = -1;  // a cut-out token, or -1 for raw text
};

class SpecialMatcher {
public:
    // ids: the tokens to cut, sorted longest text first.
    SpecialMatcher(const Vocab& vocab, const std::vector<int32_t>& ids);

    struct Scratch {
        struct Hit {
            size_t pos;
            int32_t token;
        };
        std::vector<uint8_t> present;  // by rank: occurs somewhere in the text
        std::vector<Hit> hits;
        std::vector<uint8_t> claimed;  // by byte: already cut
    };

    // Appends the fragments of text (raw pieces and cut tokens), in order, to out.
    void split(std::string_view text, std::vector<Fragment>& out, Scratch& scratch) const;

private:
    const Vocab& vocab_;
    std::vector<int32_t> ids_;  // longest first
    bool first_byte_[256] = {};
    std::vector<uint32_t> single_[256];                              // one-byte tokens by byte
    std::unordered_map<uint16_t, std::vector<uint32_t>> by_prefix_;  // longer tokens, first 2 bytes
};

}  // namespace hearth::tokenizer
