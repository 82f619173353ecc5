#include "chat/value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace hearth::chat {

// ---- Text -------------------------------------------------------------------------------

Text::Text(std::string s, bool from_input) : str(std::move(s)) {
    if (from_input && !str.empty()) input.push_back({0, str.size()});
}

void Text::append(std::string_view s, bool from_input) {
    size_t at = str.size();
    str.append(s);
    if (!from_input || s.empty()) return;
    if (!input.empty() && input.back().end == at) {
        input.back().end = str.size();
    } else {
        input.push_back({at, str.size()});
    }
}

void Text::append(const Text& other) {
    size_t at = str.size();
    str.append(other.str);
    for (const auto& span : other.input) {
        InputSpan s{span.begin + at, span.end + at};
        if (!input.empty() && input.back().end == s.begin) {
            input.back().end = s.end;
        } else {
            input.push_back(s);
        }
    }
}

Text Text::substr(size_t pos, size_t n) const {
    Text out;
    pos = std::min(pos, str.size());
    size_t end = std::min(str.size(), pos + std::min(n, str.size() - pos));
    out.str = str.substr(pos, end - pos);
    for (const auto& span : input) {
        size_t b = std::max(span.begin, pos), e = std::min(span.end, end);
        if (b < e) out.input.push_back({b - pos, e - pos});
    }
    return out;
}

bool Text::any_input(size_t begin, size_t end) const {
    for (const auto& span : input)
        if (span.begin < end && begin < span.end) return true;
    return false;
}

// ---- DictObj ----------------------------------------------------------------------------

const Value* DictObj::find(const Value& key) const {
    for (const auto& [k, v] : items)
        if (k.equals(key)) return &v;
    return nullptr;
}

const Value* DictObj::find(std::string_view key) const {
    for (const auto& [k, v] : items)
        if (k.is_string() && k.str() == key) return &v;
    return nullptr;
}

void DictObj::set(Value key, Value value) {
    depth = std::max(depth, 1 + std::max(nesting(key), nesting(value)));
    for (auto& [k, v] : items) {
        if (k.equals(key)) {
            v = std::move(value);
            return;
        }
    }
    items.emplace_back(std::move(key), std::move(value));
}

// ---- Value ------------------------------------------------------------------------------

Value Value::undefined(std::string name) {
    Value v;
    if (!name.empty()) v.s_ = std::make_shared<const Text>(std::move(name));
    return v;
}

Value Value::none() {
    Value v;
    v.kind_ = Kind::None;
    return v;
}

Value Value::boolean(bool b) {
    Value v;
    v.kind_ = Kind::Bool;
    v.b_ = b;
    return v;
}

Value Value::integer(int64_t i) {
    Value v;
    v.kind_ = Kind::Int;
    v.i_ = i;
    return v;
}

Value Value::number(double d) {
    Value v;
    v.kind_ = Kind::Float;
    v.f_ = d;
    return v;
}

Value Value::string(Text t) {
    Value v;
    v.kind_ = Kind::String;
    v.s_ = std::make_shared<const Text>(std::move(t));
    return v;
}

Value Value::string(std::string s, bool from_input) {
    return string(Text(std::move(s), from_input));
}

Value Value::list(ValueList items, bool tuple) {
    Value v;
    v.kind_ = Kind::List;
    v.l_ = std::make_shared<ListObj>();
    v.l_->items = std::move(items);
    v.l_->tuple = tuple;
    for (const auto& item : v.l_->items) v.l_->depth = std::max(v.l_->depth, 1 + nesting(item));
    return v;
}

Value Value::dict() {
    return dict(std::make_shared<DictObj>());
}

Value Value::dict(std::shared_ptr<DictObj> d) {
    Value v;
    v.kind_ = Kind::Dict;
    v.d_ = std::move(d);
    return v;
}

Value Value::callable(std::string name, NativeFn fn) {
    Value v;
    v.kind_ = Kind::Callable;
    v.c_ = std::make_shared<const Callable>(Callable{std::move(name), std::move(fn)});
    return v;
}

const std::string& Value::undefined_name() const {
    static const std::string empty;
    return (kind_ == Kind::Undefined && s_) ? s_->str : empty;
}

void Value::set(std::string key, Value v) {
    if (kind_ == Kind::Dict) d_->set(Value::string(std::move(key)), std::move(v));
}

const Value* Value::get(std::string_view key) const {
    return kind_ == Kind::Dict ? d_->find(key) : nullptr;
}

bool Value::truthy() const {
    switch (kind_) {
        case Kind::Undefined:
        case Kind::None:
            return false;
        case Kind::Bool:
            return b_;
        case Kind::Int:
            return i_ != 0;
        case Kind::Float:
            return f_ != 0.0;
        case Kind::String:
            return !s_->str.empty();
        case Kind::List:
            return !l_->items.empty();
        case Kind::Dict:
            return d_->is_namespace || d_->is_loop || !d_->items.empty();
        case Kind::Callable:
            return true;
    }
    return false;
}

bool Value::equals(const Value& o) const {
    if (is_number() || is_bool()) {
        if (!(o.is_number() || o.is_bool())) return false;
        if (kind_ == Kind::Float || o.kind_ == Kind::Float) return as_double() == o.as_double();
        return as_int() == o.as_int();
    }
    if (kind_ != o.kind_) return false;
    switch (kind_) {
        case Kind::Undefined:
        case Kind::None:
            return true;
        case Kind::String:
            return s_->str == o.s_->str;
        case Kind::List: {
            if (l_ == o.l_) return true;
            if (l_->tuple != o.l_->tuple || l_->items.size() != o.l_->items.size()) return false;
            for (size_t i = 0; i < l_->items.size(); ++i)
                if (!l_->items[i].equals(o.l_->items[i])) return false;
            return true;
        }
        case Kind::Dict: {
            if (d_ == o.d_) return true;
            if (d_->is_namespace || o.d_->is_namespace) return false;  // identity only
            if (d_->items.size() != o.d_->items.size()) return false;
            for (const auto& [k, v] : d_->items) {
                const Value* ov = o.d_->find(k);
                if (!ov || !v.equals(*ov)) return false;
            }
            return true;
        }
        case Kind::Callable:
            return c_ == o.c_;
        default:
            return false;
    }
}

std::string_view type_name(const Value& v) {
    switch (v.kind()) {
        case Value::Kind::Undefined:
            return "Undefined";
        case Value::Kind::None:
            return "NoneType";
        case Value::Kind::Bool:
            return "bool";
        case Value::Kind::Int:
            return "int";
        case Value::Kind::Float:
            return "float";
        case Value::Kind::String:
            return "str";
        case Value::Kind::List:
            return v.is_tuple() ? "tuple" : "list";
        case Value::Kind::Dict:
            return v.dict_obj().is_namespace ? "Namespace" : "dict";
        case Value::Kind::Callable:
            return "function";
    }
    return "object";
}

int nesting(const Value& v) {
    if (v.is_list()) return v.list_depth();
    if (v.is_dict()) return v.dict_obj().depth;
    return 0;
}

bool contains_input(const Value& v) {
    switch (v.kind()) {
        case Value::Kind::String:
            return v.text().any_input();
        case Value::Kind::List:
            for (const auto& item : v.items())
                if (contains_input(item)) return true;
            return false;
        case Value::Kind::Dict:
            for (const auto& [k, item] : v.dict_obj().items)
                if (contains_input(k) || contains_input(item)) return true;
            return false;
        default:
            return false;
    }
}

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
