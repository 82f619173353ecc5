// Python's str()/repr() and HF's tojson (json.dumps, ensure_ascii=False) for template values.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

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

void json_string(const std::string& s, std::string& out) {
    out += '"';
    for (unsigned char c : s) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\f':
                out += "\\f";
                break;
            default:
                if (c < 0x20 || c == 0x7f) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    out += '"';
}

bool json_into(const Value& v, int indent, bool sort_keys, int depth, std::string& out,
               std::string& error) {
    if (depth > kMaxPrintDepth) {
        error = "tojson: value nested too deeply";
        return false;
    }
    auto newline = [&](int level) {
        if (indent < 0) return;
        out += '\n';
        out.append(static_cast<size_t>(indent) * static_cast<size_t>(level), ' ');
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
            json_string(v.str(), out);
            return true;
        case Value::Kind::List: {
            const auto& items = v.items();
            if (items.empty()) {
                out += "[]";
                return true;
            }
            out += '[';
            for (size_t i = 0; i < items.size(); ++i) {
                if (i) out += indent < 0 ? ", " : ",";
                newline(depth + 1);
                if (!json_into(items[i], indent, sort_keys, depth + 1, out, error)) return false;
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
            if (sort_keys) {
                std::stable_sort(entries.begin(), entries.end(), [](auto* a, auto* b) {
                    return to_text(a->first).str < to_text(b->first).str;
                });
            }
            out += '{';
            for (size_t i = 0; i < entries.size(); ++i) {
                if (i) out += indent < 0 ? ", " : ",";
                newline(depth + 1);
                const Value& k = entries[i]->first;
                // json.dumps turns scalar keys into strings.
                if (k.is_string()) {
                    json_string(k.str(), out);
                } else if (k.is_none() || k.is_bool() || k.is_number()) {
                    std::string ks;
                    if (!json_into(k, -1, false, depth + 1, ks, error)) return false;
                    json_string(ks, out);
                } else {
                    error = "tojson: keys must be str, int, float, bool or None";
                    return false;
                }
                out += ": ";
                if (!json_into(entries[i]->second, indent, sort_keys, depth + 1, out, error))
                    return false;
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

bool to_json(const Value& v, int indent, bool sort_keys, std::string& out, std::string& error) {
    return json_into(v, indent, sort_keys, 0, out, error);
}

}  // namespace hearth::chat
