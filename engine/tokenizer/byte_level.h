// The GPT-2 byte-level alphabet: every byte is spelled as one printable code point, so a
// byte-level BPE vocabulary never holds raw whitespace or control bytes (a space is U+0120 'Ġ').
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hearth::tokenizer {

class ByteLevel {
public:
    static const ByteLevel& get();

    // The UTF-8 spelling of one byte.
    std::string_view encode(uint8_t byte) const { return {spell_[byte].data(), len_[byte]}; }
    void encode_append(std::string& out, std::string_view bytes) const;

    // Decodes a vocabulary text back to bytes; nullopt when a character is outside the alphabet.
    std::optional<std::string> decode(std::string_view text) const;

private:
    ByteLevel();
    std::array<std::array<char, 2>, 256> spell_{};
    std::array<uint8_t, 256> len_{};
    std::array<int16_t, 324> cp_to_byte_{};  // code points used are all below 324; -1 = none
};

}  // namespace hearth::tokenizer
