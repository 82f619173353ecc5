#include "chat/text_ops.h"

#include <algorithm>

namespace hearth::chat::text_ops {

namespace {

bool is_cont(unsigned char c) {
    return (c & 0xC0) == 0x80;
}

}  // namespace

uint32_t decode_utf8(std::string_view s, size_t i, size_t& len) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
    if (i + n > s.size()) n = 1;
    for (size_t k = 1; k < n; ++k)
        if (!is_cont(static_cast<unsigned char>(s[i + k]))) n = 1;
    len = n;
    if (n == 1) return c;
    uint32_t cp = c & (0xFF >> (n + 1));
    for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    return cp;
}

namespace {

uint32_t decode(std::string_view s, size_t i, size_t& len) {
    return decode_utf8(s, i, len);
}

void encode2(std::string& out, size_t at, uint32_t cp) {  // cp in [0x80, 0x800)
    out[at] = static_cast<char>(0xC0 | (cp >> 6));
    out[at + 1] = static_cast<char>(0x80 | (cp & 0x3F));
}

// Upper/lower mapping that keeps the UTF-8 length; returns cp unchanged when unknown.
uint32_t map_case(uint32_t cp, bool upper) {
    if (upper) {
        if (cp >= 'a' && cp <= 'z') return cp - 32;
        if (cp >= 0xE0 && cp <= 0xFE && cp != 0xF7) return cp - 32;
        if (cp >= 0x3B1 && cp <= 0x3C9 && cp != 0x3C2) return cp - 32;
        if (cp >= 0x430 && cp <= 0x44F) return cp - 32;
        if (cp >= 0x450 && cp <= 0x45F) return cp - 80;
    } else {
        if (cp >= 'A' && cp <= 'Z') return cp + 32;
        if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) return cp + 32;
        if (cp >= 0x391 && cp <= 0x3A9 && cp != 0x3A2) return cp + 32;
        if (cp >= 0x410 && cp <= 0x42F) return cp + 32;
        if (cp >= 0x400 && cp <= 0x40F) return cp + 80;
    }
    return cp;
}

bool is_cased_letter(uint32_t cp) {
    return map_case(cp, true) != cp || map_case(cp, false) != cp;
}

bool in_chars(uint32_t cp, std::string_view chars) {
    for (size_t i = 0; i < chars.size();) {
        size_t len;
        if (decode(chars, i, len) == cp) return true;
        i += len;
    }
    return false;
}

}  // namespace

bool is_python_space(uint32_t cp) {
    return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20) || cp == 0x85 || cp == 0xA0 ||
           cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 ||
           cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

std::vector<size_t> char_starts(std::string_view s) {
    std::vector<size_t> out;
    for (size_t i = 0; i < s.size();) {
        out.push_back(i);
        size_t len;
        decode(s, i, len);
        i += len;
    }
    out.push_back(s.size());
    return out;
}

size_t char_count(std::string_view s) {
    return char_starts(s).size() - 1;
}

Text strip(const Text& s, Side side, const std::optional<std::string>& chars) {
    auto strippable = [&](uint32_t cp) {
        return chars ? in_chars(cp, *chars) : is_python_space(cp);
    };
    auto starts = char_starts(s.str);
    size_t b = 0, e = starts.size() - 1;  // code point indices [b, e)
    auto cp_at = [&](size_t idx) {
        size_t len;
        return decode(s.str, starts[idx], len);
    };
    if (side != Side::Right)
        while (b < e && strippable(cp_at(b))) ++b;
    if (side != Side::Left)
        while (e > b && strippable(cp_at(e - 1))) --e;
    return s.substr(starts[b], starts[e] - starts[b]);
}

Text change_case(const Text& s, Case c) {
    Text out = s;
    bool prev_letter = false;  // PyTitle: previous char was a cased letter
    bool word_start = true;    // JinjaTitle: previous char was a separator
    bool first = true;
    for (size_t i = 0; i < out.str.size();) {
        size_t len;
        uint32_t cp = decode(out.str, i, len);
        bool upper = false;
        switch (c) {
            case Case::Upper:
                upper = true;
                break;
            case Case::Lower:
                upper = false;
                break;
            case Case::Capitalize:
                upper = first;
                break;
            case Case::PyTitle:
                upper = !prev_letter;
                break;
            case Case::JinjaTitle:
                upper = word_start;
                break;
            case Case::Swap:
                upper = map_case(cp, true) != cp;
                break;
        }
        uint32_t mapped = map_case(cp, upper);
        if (mapped != cp) {
            if (len == 1)
                out.str[i] = static_cast<char>(mapped);
            else if (len == 2)
                encode2(out.str, i, mapped);
        }
        prev_letter = is_cased_letter(cp);
        word_start = cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == '\v' ||
                     cp == '\f' || cp == '-' || cp == '(' || cp == '{' || cp == '[' || cp == '<';
        first = false;
        i += len;
    }
    return out;
}

Text replace(const Text& s, const Text& old, const Text& repl, int64_t count, size_t max_bytes) {
    Text out;
    if (old.str.empty()) {
        // Python inserts the replacement before every character and at the end.
        auto starts = char_starts(s.str);
        int64_t done = 0;
        for (size_t k = 0; k + 1 < starts.size(); ++k) {
            if (count < 0 || done < count) {
                out.append(repl);
                ++done;
            }
            out.append(s.substr(starts[k], starts[k + 1] - starts[k]));
            if (out.str.size() > max_bytes) return out;
        }
        if (count < 0 || done < count) out.append(repl);
        return out;
    }
    size_t pos = 0;
    int64_t done = 0;
    while (count < 0 || done < count) {
        size_t hit = s.str.find(old.str, pos);
        if (hit == std::string::npos) break;
        out.append(s.substr(pos, hit - pos));
        Text r = repl;
        if (s.any_input(hit, hit + old.str.size())) r = Text(repl.str, true);
        out.append(r);
        if (out.str.size() > max_bytes) return out;
        pos = hit + old.str.size();
        ++done;
    }
    out.append(s.substr(pos, std::string::npos));
    return out;
}

std::vector<Text> split(const Text& s, const std::optional<std::string>& sep, int64_t maxsplit) {
    std::vector<Text> out;
    if (sep) {
        size_t pos = 0;
        int64_t done = 0;
        while (maxsplit < 0 || done < maxsplit) {
            size_t hit = s.str.find(*sep, pos);
            if (hit == std::string::npos) break;
            out.push_back(s.substr(pos, hit - pos));
            pos = hit + sep->size();
            ++done;
        }
        out.push_back(s.substr(pos, std::string::npos));
        return out;
    }
    // Whitespace split: runs of whitespace separate, empty pieces are dropped.
    auto starts = char_starts(s.str);
    size_t n = starts.size() - 1, k = 0;
    auto space_at = [&](size_t idx) {
        size_t len;
        return is_python_space(decode(s.str, starts[idx], len));
    };
    int64_t done = 0;
    while (k < n) {
        while (k < n && space_at(k)) ++k;
        if (k == n) break;
        if (maxsplit >= 0 && done >= maxsplit) {  // the rest, trailing whitespace kept
            out.push_back(s.substr(starts[k], std::string::npos));
            break;
        }
        size_t b = k;
        while (k < n && !space_at(k)) ++k;
        out.push_back(s.substr(starts[b], starts[k] - starts[b]));
        ++done;
    }
    return out;
}

std::vector<Text> rsplit(const Text& s, const std::optional<std::string>& sep, int64_t maxsplit) {
    if (maxsplit < 0) return split(s, sep, maxsplit);
    std::vector<Text> out;
    if (sep) {
        size_t end = s.str.size();
        int64_t done = 0;
        while (done < maxsplit && end >= sep->size()) {
            size_t hit = s.str.rfind(*sep, end - sep->size());
            if (hit == std::string::npos) break;
            out.push_back(s.substr(hit + sep->size(), end - hit - sep->size()));
            end = hit;
            ++done;
        }
        out.push_back(s.substr(0, end));
    } else {
        auto starts = char_starts(s.str);
        size_t k = starts.size() - 1;
        auto space_at = [&](size_t idx) {
            size_t len;
            return is_python_space(decode(s.str, starts[idx], len));
        };
        int64_t done = 0;
        while (k > 0) {
            while (k > 0 && space_at(k - 1)) --k;
            if (k == 0) break;
            if (done >= maxsplit) {  // the rest, leading whitespace kept
                out.push_back(s.substr(0, starts[k]));
                break;
            }
            size_t e = k;
            while (k > 0 && !space_at(k - 1)) --k;
            out.push_back(s.substr(starts[k], starts[e] - starts[k]));
            ++done;
        }
    }
    std::reverse(out.begin(), out.end());
    return out;
}

std::vector<Text> splitlines(const Text& s, bool keepends) {
    std::vector<Text> out;
    size_t begin = 0;
    for (size_t i = 0; i < s.str.size();) {
        size_t len;
        uint32_t cp = decode(s.str, i, len);
        bool br = cp == '\n' || cp == '\r' || cp == 0x0B || cp == 0x0C ||
                  (cp >= 0x1C && cp <= 0x1E) || cp == 0x85 || cp == 0x2028 || cp == 0x2029;
        if (!br) {
            i += len;
            continue;
        }
        size_t end = i + len;
        if (cp == '\r' && end < s.str.size() && s.str[end] == '\n') ++end;
        out.push_back(s.substr(begin, (keepends ? end : i) - begin));
        begin = i = end;
    }
    if (begin < s.str.size()) out.push_back(s.substr(begin, std::string::npos));
    return out;
}

std::vector<int64_t> slice_indices(int64_t n, std::optional<int64_t> start,
                                   std::optional<int64_t> stop, std::optional<int64_t> step_opt) {
    int64_t step = step_opt.value_or(1);
    std::vector<int64_t> out;
    if (step == 0) return out;
    auto clamp = [&](std::optional<int64_t> v, int64_t dflt, int64_t lo, int64_t hi) {
        if (!v) return dflt;
        int64_t x = *v;
        if (x < 0) x += n;
        return std::clamp(x, lo, hi);
    };
    if (step > 0) {
        int64_t b = clamp(start, 0, 0, n), e = clamp(stop, n, 0, n);
        for (int64_t i = b; i < e; i += step) out.push_back(i);
    } else {
        int64_t b = clamp(start, n - 1, -1, n - 1), e = clamp(stop, -1, -1, n - 1);
        for (int64_t i = b; i > e; i += step) out.push_back(i);
    }
    return out;
}

}  // namespace hearth::chat::text_ops
