#include "runtime/json_recognizer.h"

namespace hearth::runtime {

namespace {

constexpr std::string_view kLiterals[] = {"true", "false", "null"};

bool is_ws(uint8_t c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
bool is_digit(uint8_t c) {
    return c >= '0' && c <= '9';
}
int hex_value(uint8_t c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

uint64_t JsonRecognizer::hash() const {
    // FNV-1a over the members (not the padding between them).
    uint64_t h = 1469598103934665603ull;
    auto mix = [&h](uint64_t v, int bytes) {
        for (int i = 0; i < bytes; ++i) {
            h ^= (v >> (8 * i)) & 0xFF;
            h *= 1099511628211ull;
        }
    };
    mix(objects_, 8);
    mix(static_cast<uint8_t>(mode_), 1);
    mix(depth_, 1);
    mix(ws_run_, 1);
    mix(key_, 1);
    mix(low_, 1);
    mix(hex_digits_, 1);
    mix(utf8_left_, 1);
    mix(utf8_lo_, 1);
    mix(utf8_hi_, 1);
    mix(literal_, 1);
    mix(literal_pos_, 1);
    mix(code_, 2);
    return h;
}

bool JsonRecognizer::whitespace(uint8_t c) {
    if (!is_ws(c) || ws_run_ >= kMaxWhitespace) return false;
    ++ws_run_;
    return true;
}

bool JsonRecognizer::open(bool object) {
    if (depth_ >= kMaxDepth) return false;
    if (object)
        objects_ |= uint64_t{1} << depth_;
    else
        objects_ &= ~(uint64_t{1} << depth_);
    ++depth_;
    mode_ = object ? Mode::ObjFirst : Mode::ArrFirst;
    return true;
}

void JsonRecognizer::value_done() {
    mode_ = depth_ == 0 ? Mode::Done : Mode::AfterValue;
}

bool JsonRecognizer::value_start(uint8_t c) {
    switch (c) {
        case '{':
            return open(true);
        case '[':
            return open(false);
        case '"':
            mode_ = Mode::String;
            key_ = false;
            return true;
        case '-':
            mode_ = Mode::Minus;
            return true;
        case '0':
            mode_ = Mode::Zero;
            return true;
        default:
            break;
    }
    if (c >= '1' && c <= '9') {
        mode_ = Mode::Int;
        return true;
    }
    for (uint8_t i = 0; i < 3; ++i)
        if (c == static_cast<uint8_t>(kLiterals[i][0])) {
            mode_ = Mode::Literal;
            literal_ = i;
            literal_pos_ = 1;
            return true;
        }
    return false;
}

bool JsonRecognizer::after_value(uint8_t c) {
    // depth_ >= 1 here: a value at depth 0 is the top-level object, which ends in Done.
    if (c == ',') {
        mode_ = top_is_object() ? Mode::Key : Mode::Value;
        return true;
    }
    if (c == (top_is_object() ? '}' : ']')) {
        --depth_;
        value_done();
        return true;
    }
    return false;
}

bool JsonRecognizer::feed(uint8_t c) {
    // Whitespace runs count only between tokens of the document, never inside strings.
    const bool in_token = mode_ >= Mode::String;
    if (!in_token && is_ws(c)) return mode_ != Mode::Start && whitespace(c);
    if (!in_token) ws_run_ = 0;
    switch (mode_) {
        case Mode::Start:
            return c == '{' && open(true);
        case Mode::ObjFirst:
            if (c == '}') {
                --depth_;
                value_done();
                return true;
            }
            [[fallthrough]];
        case Mode::Key:
            if (c != '"') return false;
            mode_ = Mode::String;
            key_ = true;
            return true;
        case Mode::Colon:
            if (c != ':') return false;
            mode_ = Mode::Value;
            return true;
        case Mode::ArrFirst:
            if (c == ']') {
                --depth_;
                value_done();
                return true;
            }
            return value_start(c);
        case Mode::Value:
            return value_start(c);
        case Mode::AfterValue:
            return after_value(c);
        case Mode::Done:
            return false;  // only whitespace, handled above
        case Mode::String:
            if (c == '"') {
                if (key_) {
                    mode_ = Mode::Colon;
                    key_ = false;
                } else {
                    value_done();
                }
                return true;
            }
            if (c == '\\') {
                mode_ = Mode::Escape;
                return true;
            }
            if (c < 0x20) return false;  // control characters must be escaped
            if (c < 0x80) return true;
            // The first byte of a multi-byte character and the range its next byte must be in
            // (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF).
            utf8_lo_ = 0x80;
            utf8_hi_ = 0xBF;
            if (c >= 0xC2 && c <= 0xDF) {
                utf8_left_ = 1;
            } else if (c >= 0xE0 && c <= 0xEF) {
                utf8_left_ = 2;
                if (c == 0xE0) utf8_lo_ = 0xA0;
                if (c == 0xED) utf8_hi_ = 0x9F;
            } else if (c >= 0xF0 && c <= 0xF4) {
                utf8_left_ = 3;
                if (c == 0xF0) utf8_lo_ = 0x90;
                if (c == 0xF4) utf8_hi_ = 0x8F;
            } else {
                return false;
            }
            mode_ = Mode::Utf8;
            return true;
        case Mode::Utf8:
            if (c < utf8_lo_ || c > utf8_hi_) return false;
            utf8_lo_ = 0x80;
            utf8_hi_ = 0xBF;
            if (--utf8_left_ == 0) mode_ = Mode::String;
            return true;
        case Mode::Escape:
            switch (c) {
                case '"':
                case '\\':
                case '/':
                case 'b':
                case 'f':
                case 'n':
                case 'r':
                case 't':
                    mode_ = Mode::String;
                    return true;
                case 'u':
                    mode_ = Mode::Hex;
                    hex_digits_ = 0;
                    code_ = 0;
                    return true;
                default:
                    return false;
            }
        case Mode::Hex: {
            const int v = hex_value(c);
            if (v < 0) return false;
            code_ = static_cast<uint16_t>(code_ << 4 | v);
            ++hex_digits_;
            // Judge a surrogate as soon as its digits show it, so that every accepted prefix
            // still has a valid continuation: a low half starts with D, then C to F.
            if (hex_digits_ == 1 && low_ && v != 0xD) return false;
            if (hex_digits_ == 2) {
                const unsigned top = code_ & 0xFC;  // 0xD8: high half, 0xDC: low half
                if (low_ ? top != 0xDC : top == 0xDC) return false;
            }
            if (hex_digits_ < 4) return true;
            const bool high = (code_ & 0xFC00) == 0xD800;
            hex_digits_ = 0;
            code_ = 0;
            low_ = false;
            mode_ = high ? Mode::LowBackslash : Mode::String;
            return true;
        }
        case Mode::LowBackslash:
            if (c != '\\') return false;
            mode_ = Mode::LowU;
            return true;
        case Mode::LowU:
            if (c != 'u') return false;
            mode_ = Mode::Hex;
            low_ = true;
            return true;
        case Mode::Literal: {
            const std::string_view lit = kLiterals[literal_];
            if (c != static_cast<uint8_t>(lit[literal_pos_])) return false;
            if (++literal_pos_ == lit.size()) {
                literal_ = 0;
                literal_pos_ = 0;
                value_done();
            }
            return true;
        }
        case Mode::Minus:
            if (c == '0') {
                mode_ = Mode::Zero;
                return true;
            }
            if (c < '1' || c > '9') return false;
            mode_ = Mode::Int;
            return true;
        case Mode::Int:
            if (is_digit(c)) return true;
            [[fallthrough]];
        case Mode::Zero:
            if (c == '.') {
                mode_ = Mode::Dot;
                return true;
            }
            if (c == 'e' || c == 'E') {
                mode_ = Mode::Exp;
                return true;
            }
            break;  // the number ends here
        case Mode::Dot:
            if (!is_digit(c)) return false;
            mode_ = Mode::Frac;
            return true;
        case Mode::Frac:
            if (is_digit(c)) return true;
            if (c == 'e' || c == 'E') {
                mode_ = Mode::Exp;
                return true;
            }
            break;  // the number ends here
        case Mode::Exp:
            if (c == '+' || c == '-') {
                mode_ = Mode::ExpSign;
                return true;
            }
            [[fallthrough]];
        case Mode::ExpSign:
            if (!is_digit(c)) return false;
            mode_ = Mode::ExpDigits;
            return true;
        case Mode::ExpDigits:
            if (is_digit(c)) return true;
            break;  // the number ends here
    }
    // A complete number ended by c (numbers only occur inside a container): c belongs to what
    // follows the number.
    mode_ = Mode::AfterValue;
    ws_run_ = 0;
    if (is_ws(c)) return whitespace(c);
    return after_value(c);
}

}  // namespace hearth::runtime
