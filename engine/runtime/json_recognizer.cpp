#include "runtime/json_recognizer.h"

#include <bit>

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
    mix(breaks_, 1);
    mix(key_, 1);
    mix(low_, 1);
    mix(hex_digits_, 1);
    mix(utf8_left_, 1);
    mix(utf8_lo_, 1);
    mix(utf8_hi_, 1);
    mix(literal_, 1);
    mix(literal_pos_, 1);
    mix(code_, 2);
    if (schema_) {
        mix(reinterpret_cast<uintptr_t>(schema_), 8);
        mix(integer_, 1);
        mix(matching_, 1);
        mix(match_pos_, 2);
        mix(match_, 8);
        mix(value_node_, 2);
        mix(match_node_, 2);
        for (int d = 0; d < depth_ && d < JsonSchema::kMaxDepth; ++d) {
            mix(node_[d], 2);
            mix(seen_[d], 8);
        }
    }
    return h;
}

bool JsonRecognizer::whitespace(uint8_t c) {
    if (!is_ws(c) || ws_run_ >= kMaxWhitespace) return false;
    // One line break a run (CR LF counts as one): indentation, not empty lines.
    const uint8_t bit = c == '\n' ? 1 : c == '\r' ? 2 : 0;
    if (breaks_ & bit) return false;
    breaks_ |= bit;
    ++ws_run_;
    return true;
}

bool JsonRecognizer::open(bool object, uint16_t node_id) {
    if (depth_ >= (schema_ ? JsonSchema::kMaxDepth : kMaxDepth)) return false;
    if (object)
        objects_ |= uint64_t{1} << depth_;
    else
        objects_ &= ~(uint64_t{1} << depth_);
    if (schema_) {
        node_[depth_] = node_id;
        seen_[depth_] = 0;
        if (!object) {
            const JsonSchema::Node* n = node(node_id);
            value_node_ = n ? n->items : JsonSchema::kAny;
        }
    }
    ++depth_;
    mode_ = object ? Mode::ObjFirst : Mode::ArrFirst;
    return true;
}

bool JsonRecognizer::close() {
    if (schema_ && top_is_object()) {
        // An object closes once its required keys are written.
        if (const JsonSchema::Node* n = node(container()))
            if ((seen_[depth_ - 1] & n->required) != n->required) return false;
    }
    --depth_;
    if (schema_) {
        node_[depth_] = 0;
        seen_[depth_] = 0;
    }
    value_done();
    return true;
}

void JsonRecognizer::value_done() {
    mode_ = depth_ == 0 ? Mode::Done : Mode::AfterValue;
    value_node_ = JsonSchema::kAny;
}

uint64_t JsonRecognizer::unseen_keys() const {
    const JsonSchema::Node* n = node(container());
    if (!n) return 0;
    const uint64_t all = n->keys.size() >= 64 ? ~uint64_t{0} : (uint64_t{1} << n->keys.size()) - 1;
    return all & ~seen_[depth_ - 1];
}

// A string read against a list (an object's keys or an enum's values): c must continue one of
// the entries still matching (raw bytes: entries hold no escapes).
bool JsonRecognizer::match_byte(uint8_t c) {
    const std::vector<std::string>& list = match_list();
    uint64_t left = 0;
    for (uint64_t m = match_; m; m &= m - 1) {
        const auto i = static_cast<size_t>(std::countr_zero(m));
        if (list[i].size() > match_pos_ && static_cast<uint8_t>(list[i][match_pos_]) == c)
            left |= uint64_t{1} << i;
    }
    if (!left) return false;
    match_ = left;
    ++match_pos_;
    return true;
}

// The closing quote of a listed string: one entry must end here.
bool JsonRecognizer::match_end() {
    const std::vector<std::string>& list = match_list();
    for (uint64_t m = match_; m; m &= m - 1) {
        const auto i = static_cast<size_t>(std::countr_zero(m));
        if (list[i].size() != match_pos_) continue;
        matching_ = false;
        match_ = 0;
        match_pos_ = 0;
        match_node_ = JsonSchema::kAny;
        if (key_) {
            seen_[depth_ - 1] |= uint64_t{1} << i;
            value_node_ = node(container())->values[i];
            key_ = false;
            mode_ = Mode::Colon;
        } else {
            value_done();
        }
        return true;
    }
    return false;
}

bool JsonRecognizer::value_start(uint8_t c) {
    const JsonSchema::Node* n = node(value_node_);
    const uint8_t types = n ? n->types : 0x7F;
    const uint16_t id = value_node_;
    switch (c) {
        case '{':
            return (types & JsonSchema::kObject) && open(true, id);
        case '[':
            return (types & JsonSchema::kArray) && open(false, id);
        case '"':
            if (!(types & JsonSchema::kString)) return false;
            mode_ = Mode::String;
            key_ = false;
            if (n && !n->strings.empty()) {
                matching_ = true;
                match_node_ = id;
                match_pos_ = 0;
                match_ =
                    n->strings.size() >= 64 ? ~uint64_t{0} : (uint64_t{1} << n->strings.size()) - 1;
            }
            return true;
        default:
            break;
    }
    if (c == '-' || is_digit(c)) {
        if (!(types & (JsonSchema::kNumber | JsonSchema::kInteger))) return false;
        integer_ = !(types & JsonSchema::kNumber);
        mode_ = c == '-' ? Mode::Minus : c == '0' ? Mode::Zero : Mode::Int;
        return true;
    }
    for (uint8_t i = 0; i < 3; ++i)
        if (c == static_cast<uint8_t>(kLiterals[i][0])) {
            if (!(types & (i == 2 ? JsonSchema::kNull : JsonSchema::kBoolean))) return false;
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
        if (top_is_object()) {
            // Another key only while the schema has one left.
            if (node(container()) && unseen_keys() == 0) return false;
            mode_ = Mode::Key;
        } else {
            const JsonSchema::Node* n = node(container());
            value_node_ = n ? n->items : JsonSchema::kAny;
            mode_ = Mode::Value;
        }
        return true;
    }
    if (c == (top_is_object() ? '}' : ']')) return close();
    return false;
}

bool JsonRecognizer::feed(uint8_t c) {
    // Whitespace runs count only between tokens of the document, never inside strings.
    const bool in_token = mode_ >= Mode::String;
    if (!in_token && is_ws(c)) return mode_ != Mode::Start && whitespace(c);
    if (!in_token) ws_run_ = breaks_ = 0;
    switch (mode_) {
        case Mode::Start:
            return c == '{' && open(true, 0);
        case Mode::ObjFirst:
            if (c == '}') return close();
            [[fallthrough]];
        case Mode::Key:
            if (c != '"') return false;
            if (node(container())) {  // one of the keys not written yet
                const uint64_t unseen = unseen_keys();
                if (!unseen) return false;
                matching_ = true;
                match_ = unseen;
                match_pos_ = 0;
            }
            mode_ = Mode::String;
            key_ = true;
            return true;
        case Mode::Colon:
            if (c != ':') return false;
            mode_ = Mode::Value;
            return true;
        case Mode::ArrFirst:
            if (c == ']') return close();
            return value_start(c);
        case Mode::Value:
            return value_start(c);
        case Mode::AfterValue:
            return after_value(c);
        case Mode::Done:
            return false;  // only whitespace, handled above
        case Mode::String:
            if (matching_) return c == '"' ? match_end() : match_byte(c);
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
            if (integer_) break;  // no fraction or exponent: the number ends here
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
    value_done();
    integer_ = false;
    ws_run_ = breaks_ = 0;
    if (is_ws(c)) return whitespace(c);
    return after_value(c);
}

}  // namespace hearth::runtime
