#include "tokenizer/utf8.h"

namespace hearth::tokenizer::utf8 {

size_t valid_sequence_at(std::string_view s, size_t pos, bool* incomplete) {
    if (incomplete) *incomplete = false;
    const auto b = [&](size_t i) { return static_cast<unsigned char>(s[pos + i]); };
    const size_t left = s.size() - pos;
    const unsigned char c0 = b(0);
    if (c0 < 0x80) return 1;
    size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c0 >= 0xC2 && c0 <= 0xDF) {
        n = 2;
    } else if (c0 >= 0xE0 && c0 <= 0xEF) {
        n = 3;
        if (c0 == 0xE0) lo = 0xA0;  // no overlongs
        if (c0 == 0xED) hi = 0x9F;  // no surrogates
    } else if (c0 >= 0xF0 && c0 <= 0xF4) {
        n = 4;
        if (c0 == 0xF0) lo = 0x90;
        if (c0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; ++i) {
        if (i >= left) {
            if (incomplete) *incomplete = true;
            return 0;
        }
        const unsigned char c = b(i);
        const unsigned char l = i == 1 ? lo : 0x80, h = i == 1 ? hi : 0xBF;
        if (c < l || c > h) return 0;
    }
    return n;
}

bool is_valid(std::string_view s) {
    for (size_t i = 0; i < s.size();) {
        const size_t n = valid_sequence_at(s, i);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

void append_sanitized(std::string& out, std::string_view s) {
    size_t i = 0;
    while (i < s.size()) {
        // Fast path: copy runs of ASCII and well-formed sequences at once.
        const size_t start = i;
        size_t n = 0;
        while (i < s.size() && (n = valid_sequence_at(s, i)) != 0) i += n;
        out.append(s.data() + start, i - start);
        if (i >= s.size()) break;
        // A maximal subpart: the longest prefix of a well-formed sequence, at least one byte.
        size_t bad = 1;
        const unsigned char c0 = static_cast<unsigned char>(s[i]);
        const size_t want = sequence_length(c0);
        if (want > 1 && c0 >= 0xC2 && c0 <= 0xF4) {
            while (bad < want && i + bad < s.size()) {
                bool incomplete = false;
                if (valid_sequence_at(s.substr(0, i + bad + 1), i, &incomplete) == 0 && !incomplete)
                    break;
                ++bad;
            }
        }
        out.append("\xEF\xBF\xBD");
        i += bad;
    }
}

size_t complete_prefix_length(std::string_view s) {
    // Only the last 3 bytes can start an unfinished sequence.
    const size_t from = s.size() > 3 ? s.size() - 3 : 0;
    for (size_t i = from; i < s.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (c < 0xC2 || c > 0xF4) continue;  // not a lead byte of a multi-byte sequence
        bool incomplete = false;
        if (valid_sequence_at(s, i, &incomplete) == 0 && incomplete) return i;
    }
    return s.size();
}

void append_code_point(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

}  // namespace hearth::tokenizer::utf8
