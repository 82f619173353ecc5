// Python's str()/repr() and HF's tojson (json.dumps with its options) for template values.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "chat/text_ops.h"
#include "chat/value.h"

namespace hearth::chat {

// ---- printing -----------------------------------------------------------------------------

std::string float_repr(double d) {
    if (std::isnan(d)) return "nan";
    if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
    std::string sci(buf, res.ptr);  // e.g. "-1.2345e+02"
    bool neg = sci[0] == '-';
    if (neg) sci.erase(0, 1);
    size_t e = sci.find('e');
    int exp = std::atoi(sci.c_str() + e + 1);
    std::string digits;
    for (size_t i = 0; i < e; ++i)
        if (sci[i] != '.') digits += sci[i];
    std::string out = neg ? "-" : "";
    if (exp >= -4 && exp < 16) {
        if (exp < 0) {
            out += "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
        } else if (static_cast<size_t>(exp) + 1 >= digits.size()) {
            out += digits + std::string(static_cast<size_t>(exp) + 1 - digits.size(), '0') + ".0";
        } else {
            out += digits.substr(0, static_cast<size_t>(exp) + 1) + "." +
                   digits.substr(static_cast<size_t>(exp) + 1);
        }
        return out;
    }
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char ebuf[16];
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    return out + ebuf;
}

namespace {

std::string repr_string(const std::string& s) {
    char quote = '\'';
    if (s.find('\'') != std::string::npos && s.find('"') == std::string::npos) quote = '"';
    std::string out(1, quote);
    for (unsigned char c : s) {
        if (c == static_cast<unsigned char>(quote) || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    out += quote;
    return out;
}

constexpr int kMaxPrintDepth = 64;

void repr_into(const Value& v, std::string& out, int depth) {
    if (depth > kMaxPrintDepth) {
        out += "...";
        return;
    }
    switch (v.kind()) {
        case Value::Kind::Undefined:
            return;
        case Value::Kind::None:
            out += "None";
            return;
        case Value::Kind::Bool:
            out += v.as_bool() ? "True" : "False";
            return;
        case Value::Kind::Int:
            out += std::to_string(v.as_int());
            return;
        case Value::Kind::Float:
            out += float_repr(v.as_double());
            return;
        case Value::Kind::String:
            out += repr_string(v.str());
            return;
        case Value::Kind::List: {
            out += v.is_tuple() ? '(' : '[';
            const auto& items = v.items();
            for (size_t i = 0; i < items.size(); ++i) {
                if (i) out += ", ";
                repr_into(items[i], out, depth + 1);
            }
            if (v.is_tuple() && items.size() == 1) out += ',';
            out += v.is_tuple() ? ')' : ']';
            return;
        }
        case Value::Kind::Dict: {
            const auto& d = v.dict_obj();
            if (d.is_namespace) out += "<Namespace ";
            out += '{';
            bool first = true;
            for (const auto& [k, val] : d.items) {
                if (!first) out += ", ";
                first = false;
                repr_into(k, out, depth + 1);
                out += ": ";
                repr_into(val, out, depth + 1);
            }
            out += '}';
            if (d.is_namespace) out += '>';
            return;
        }
        case Value::Kind::Callable:
            out += "<function " + v.callable_obj().name + ">";
            return;
    }
}

void json_escape(std::string& out, uint32_t cp) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
    out += buf;
}

// json.dumps's string encoder: with ensure_ascii every character outside printable ASCII is
// \uXXXX (surrogate pairs above U+FFFF); without it only controls, '"' and '\\' are escaped.
void json_string(const std::string& s, bool ensure_ascii, std::string& out) {
    out += '"';
    for (size_t i = 0; i < s.size();) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        switch (c) {
            case '"':
                out += "\\\"";
                ++i;
                continue;
            case '\\':
                out += "\\\\";
                ++i;
                continue;
            case '\n':
                out += "\\n";
                ++i;
                continue;
            case '\r':
                out += "\\r";
                ++i;
                continue;
            case '\t':
                out += "\\t";
                ++i;
                continue;
            case '\b':
                out += "\\b";
                ++i;
                continue;
            case '\f':
                out += "\\f";
                ++i;
                continue;
            default:
                break;
        }
        if (c < 0x20 || (ensure_ascii && c == 0x7f)) {
            json_escape(out, c);
            ++i;
        } else if (c < 0x80 || !ensure_ascii) {
            out += static_cast<char>(c);
            ++i;
        } else {
            size_t len = 1;
            uint32_t cp = text_ops::decode_utf8(s, i, len);
            if (cp >= 0x10000) {
                cp -= 0x10000;
                json_escape(out, 0xD800 + (cp >> 10));
                json_escape(out, 0xDC00 + (cp & 0x3FF));
            } else {
                json_escape(out, cp);
            }
            i += len;
        }
    }
    out += '"';
}

// Python's sorted() on dict keys: numbers by value, strings by code point (UTF-8 byte order
// is the same), anything else mixed is a TypeError.
bool key_less(const Value& a, const Value& b, bool& comparable) {
    if (a.is_number() && b.is_number()) {
        if (a.is_int() && b.is_int()) return a.as_int() < b.as_int();
        return a.as_double() < b.as_double();
    }
    if (a.is_string() && b.is_string()) return a.str() < b.str();
    comparable = false;
    return false;
}

bool json_into(const Value& v, const JsonStyle& style, int depth, std::string& out,
               std::string& error) {
    if (depth > kMaxPrintDepth) {
        error = "tojson: value nested too deeply";
        return false;
    }
    if (out.size() > style.max_bytes) {
        error = "tojson: output too large";
        return false;
    }
    auto newline = [&](int level) {
        if (!style.indent) return;
        out += '\n';
        for (int i = 0; i < level; ++i) out += *style.indent;
    };
    switch (v.kind()) {
        case Value::Kind::Undefined:
            error = "tojson: Object of type Undefined is not JSON serializable";
            return false;
        case Value::Kind::None:
            out += "null";
            return true;
        case Value::Kind::Bool:
            out += v.as_bool() ? "true" : "false";
            return true;
        case Value::Kind::Int:
            out += std::to_string(v.as_int());
            return true;
        case Value::Kind::Float: {
            double d = v.as_double();
            if (std::isnan(d))
                out += "NaN";
            else if (std::isinf(d))
                out += d < 0 ? "-Infinity" : "Infinity";
            else
                out += float_repr(d);
            return true;
        }
        case Value::Kind::String:
            json_string(v.str(), style.ensure_ascii, out);
            return true;
        case Value::Kind::List: {
            const auto& items = v.items();
            if (items.empty()) {
                out += "[]";
                return true;
            }
            out += '[';
            for (size_t i = 0; i < items.size(); ++i) {
                if (i) out += style.item_separator;
                newline(depth + 1);
                if (!json_into(items[i], style, depth + 1, out, error)) return false;
            }
            newline(depth);
            out += ']';
            return true;
        }
        case Value::Kind::Dict: {
            std::vector<const std::pair<Value, Value>*> entries;
            for (const auto& kv : v.dict_obj().items) entries.push_back(&kv);
            if (entries.empty()) {
                out += "{}";
                return true;
            }
            if (style.sort_keys) {
                bool comparable = true;
                std::stable_sort(entries.begin(), entries.end(), [&](auto* a, auto* b) {
                    return key_less(a->first, b->first, comparable);
                });
                if (!comparable) {
                    error = "tojson: sort_keys needs keys of one comparable type";
                    return false;
                }
            }
            out += '{';
            for (size_t i = 0; i < entries.size(); ++i) {
                if (i) out += style.item_separator;
                newline(depth + 1);
                const Value& k = entries[i]->first;
                // json.dumps turns scalar keys into strings.
                if (k.is_string()) {
                    json_string(k.str(), style.ensure_ascii, out);
                } else if (k.is_none() || k.is_bool() || k.is_number()) {
                    std::string ks;
                    if (!json_into(k, JsonStyle{}, depth + 1, ks, error)) return false;
                    json_string(ks, style.ensure_ascii, out);
                } else {
                    error = "tojson: keys must be str, int, float, bool or None";
                    return false;
                }
                out += style.key_separator;
                if (!json_into(entries[i]->second, style, depth + 1, out, error)) return false;
            }
            newline(depth);
            out += '}';
            return true;
        }
        case Value::Kind::Callable:
            error = "tojson: Object of type function is not JSON serializable";
            return false;
    }
    return false;
}

}  // namespace

Text to_text(const Value& v) {
    if (v.is_string()) return v.text();
    std::string out;
    repr_into(v, out, 0);
    // A printed container holding input is input as a whole: its quoting does not make a
    // typed control token harmless.
    return Text(std::move(out), contains_input(v));
}

std::string repr(const Value& v) {
    if (v.is_undefined()) return "Undefined";
    std::string out;
    repr_into(v, out, 0);
    return out;
}

bool to_json(const Value& v, const JsonStyle& style, std::string& out, std::string& error) {
    return json_into(v, style, 0, out, error);
}

}  // namespace hearth::chat
