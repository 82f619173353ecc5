#include "tokenizer/byte_level.h"

#include "tokenizer/utf8.h"

namespace hearth::tokenizer {

const ByteLevel& ByteLevel::get() {
    static const ByteLevel table;
    return table;
}

ByteLevel::ByteLevel() {
    cp_to_byte_.fill(-1);
    // Printable Latin-1 bytes keep their own code point; the other 68 bytes are numbered from
    // U+0100 upwards in byte order.
    uint32_t next = 256;
    for (int b = 0; b < 256; ++b) {
        const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
        const uint32_t cp = printable ? static_cast<uint32_t>(b) : next++;
        std::string s;
        utf8::append_code_point(s, cp);
        len_[b] = static_cast<uint8_t>(s.size());
        for (size_t i = 0; i < s.size(); ++i) spell_[b][i] = s[i];
        cp_to_byte_[cp] = static_cast<int16_t>(b);
    }
}

void ByteLevel::encode_append(std::string& out, std::string_view bytes) const {
    for (char c : bytes) {
        const auto b = static_cast<uint8_t>(c);
        out.append(spell_[b].data(), len_[b]);
    }
}

std::optional<std::string> ByteLevel::decode(std::string_view text) const {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        const size_t n = utf8::valid_sequence_at(text, i);
        if (n == 0 || n > 2) return std::nullopt;
        uint32_t cp = static_cast<unsigned char>(text[i]);
        if (n == 2) cp = ((cp & 0x1F) << 6) | (static_cast<unsigned char>(text[i + 1]) & 0x3F);
        if (cp >= cp_to_byte_.size() || cp_to_byte_[cp] < 0) return std::nullopt;
        out.push_back(static_cast<char>(cp_to_byte_[cp]));
        i += n;
    }
    return out;
}

}  // namespace hearth::tokenizer
