// Small UTF-8 helpers shared by the tokenizers and the detokenizers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace hearth::tokenizer::utf8 {

// Length of the sequence a lead byte announces (1 for ASCII and for invalid lead bytes, so
// callers always advance).
inline size_t sequence_length(unsigned char lead) {
    if (lead < 0x80) return 1;
    if ((lead & 0xE0) == 0xC0) return 2;
    if ((lead & 0xF0) == 0xE0) return 3;
    if ((lead & 0xF8) == 0xF0) return 4;
    return 1;
}

// Length of the well-formed code point at s[pos] (per Unicode Table 3-7), or 0 when the bytes
// there are not a complete well-formed sequence. *incomplete is set when they are a valid
// prefix cut off by the end of s.
size_t valid_sequence_at(std::string_view s, size_t pos, bool* incomplete = nullptr);

bool is_valid(std::string_view s);

// Appends s to out with every ill-formed subsequence replaced by U+FFFD (one per maximal
// subpart, the Unicode-recommended practice), so out is always valid UTF-8.
void append_sanitized(std::string& out, std::string_view s);

// Length of the longest prefix of s that does not end inside a sequence that could still be
// completed by more bytes; the rest (at most 3 bytes) is a valid but incomplete sequence.
size_t complete_prefix_length(std::string_view s);

// Encodes one code point (no validation beyond the range).
void append_code_point(std::string& out, uint32_t cp);

}  // namespace hearth::tokenizer::utf8
