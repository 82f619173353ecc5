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

}  // namespace hearth::chat
