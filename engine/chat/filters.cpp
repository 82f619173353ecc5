// String and conversion filters, and the filter table. Sequence filters: filters_seq.cpp.
#include "chat/filters.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "chat/filters_impl.h"
#include "chat/text_ops.h"

namespace hearth::chat {

namespace filter_impl {

const Value& arg_or(const CallArgs& a, size_t i, std::string_view name, const Value& dflt) {
    const Value* v = a.get(i, name);
    return v ? *v : dflt;
}

const Text& require_string(Evaluator& ev, const Value& v, std::string_view filter, size_t offset) {
    if (!v.is_string())
        ev.fail(offset, "filter '" + std::string(filter) + "' expects a string, got '" +
                            std::string(type_name(v)) + "'");
    return v.text();
}

namespace {

// Filters that print their operand accept any value, as Jinja2's soft_str does.
Text soft_text(const Value& v) {
    return v.is_undefined() ? Text() : to_text(v);
}

Value f_case(text_ops::Case c, const Value& v) {
    return Value::string(text_ops::change_case(soft_text(v), c));
}

Value f_trim(Evaluator&, const Value& v, CallArgs& a) {
    const Value* chars = a.get(0, "chars");
    std::optional<std::string> set;
    if (chars && chars->is_string()) set = chars->str();
    return Value::string(text_ops::strip(soft_text(v), text_ops::Side::Both, set));
}

Value f_replace(Evaluator& ev, const Value& v, CallArgs& a) {
    const Value* old_v = a.get(0, "old");
    const Value* new_v = a.get(1, "new");
    if (!old_v || !new_v) ev.fail(a.offset, "replace() needs 'old' and 'new'");
    const Value* count = a.get(2, "count");
    int64_t n = (count && (count->is_int() || count->is_bool())) ? count->as_int() : -1;
    Text out = text_ops::replace(soft_text(v), to_text(*old_v), to_text(*new_v), n,
                                 ev.limits().max_output_bytes);
    ev.check_size(out.str.size(), a.offset);
    return Value::string(std::move(out));
}

// HF's tojson: json.dumps(x, ensure_ascii=False, indent=None, separators=None,
// sort_keys=False), arguments in that order (Jinja2's own tojson takes only indent).
Value f_tojson(Evaluator& ev, const Value& v, CallArgs& a) {
    JsonStyle style;
    if (const Value* ascii = a.get(0, "ensure_ascii")) style.ensure_ascii = ascii->truthy();
    if (const Value* indent = a.get(1, "indent"); indent && !indent->is_none()) {
        if (indent->is_string()) {
            if (indent->str().size() > 64) ev.fail(a.offset, "tojson: indent longer than 64 bytes");
            style.indent = indent->str();
        } else if (indent->is_int() || indent->is_bool()) {
            // json.dumps indents by ' ' * indent; a negative count is no spaces.
            style.indent =
                std::string(static_cast<size_t>(std::clamp<int64_t>(indent->as_int(), 0, 64)), ' ');
        } else {
            ev.fail(a.offset, "tojson: indent must be an integer or a string");
        }
        style.item_separator.assign(1, ',');
    }
    if (const Value* seps = a.get(2, "separators"); seps && !seps->is_none()) {
        if (!seps->is_list() || seps->items().size() != 2 || !seps->items()[0].is_string() ||
            !seps->items()[1].is_string())
            ev.fail(a.offset, "tojson: separators must be an (item_separator, key_separator) pair");
        style.item_separator = seps->items()[0].str();
        style.key_separator = seps->items()[1].str();
        if (style.item_separator.size() > 64 || style.key_separator.size() > 64)
            ev.fail(a.offset, "tojson: separators longer than 64 bytes");
    }
    if (const Value* sort_keys = a.get(3, "sort_keys")) style.sort_keys = sort_keys->truthy();
    style.max_bytes = ev.limits().max_output_bytes;
    std::string out, error;
    if (!to_json(v, style, out, error)) ev.fail(a.offset, error);
    ev.check_size(out.size(), a.offset);
    return Value::string(std::move(out), contains_input(v));
}

Value f_string(Evaluator&, const Value& v, CallArgs&) {
    return Value::string(soft_text(v));
}

Value f_safe(Evaluator&, const Value& v, CallArgs&) {
    return v;
}

Value f_int(Evaluator&, const Value& v, CallArgs& a) {
    Value zero = Value::integer(0);
    const Value& dflt = arg_or(a, 0, "default", zero);
    const Value* base_v = a.get(1, "base");
    int base = base_v && base_v->is_int() ? static_cast<int>(base_v->as_int()) : 10;
    if (v.is_int() || v.is_bool()) return Value::integer(v.as_int());
    if (v.is_float()) {
        double d = v.as_double();
        if (!std::isfinite(d) || std::fabs(d) >= 9.2e18) return dflt;
        return Value::integer(static_cast<int64_t>(d));
    }
    if (!v.is_string()) return dflt;
    std::string s = text_ops::strip(v.text(), text_ops::Side::Both).str;
    std::string digits;
    for (char c : s)
        if (c != '_') digits += c;
    if (digits.empty()) return dflt;
    errno = 0;
    char* end = nullptr;
    long long i = std::strtoll(digits.c_str(), &end, base >= 2 && base <= 36 ? base : 10);
    if (errno == 0 && end && *end == '\0') return Value::integer(i);
    errno = 0;
    double d = std::strtod(digits.c_str(), &end);
    if (errno == 0 && end && *end == '\0' && std::isfinite(d) && std::fabs(d) < 9.2e18)
        return Value::integer(static_cast<int64_t>(d));
    return dflt;
}

Value f_float(Evaluator&, const Value& v, CallArgs& a) {
    Value zero = Value::number(0.0);
    const Value& dflt = arg_or(a, 0, "default", zero);
    if (v.is_number() || v.is_bool()) return Value::number(v.as_double());
    if (!v.is_string()) return dflt;
    std::string s = text_ops::strip(v.text(), text_ops::Side::Both).str;
    if (s.empty()) return dflt;
    errno = 0;
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (errno == 0 && end && *end == '\0') return Value::number(d);
    return dflt;
}

Value f_abs(Evaluator& ev, const Value& v, CallArgs& a) {
    if (v.is_float()) return Value::number(std::fabs(v.as_double()));
    if (v.is_int() || v.is_bool()) {
        if (v.as_int() == INT64_MIN) ev.fail(a.offset, "integer overflow");
        return Value::integer(v.as_int() < 0 ? -v.as_int() : v.as_int());
    }
    ev.fail(a.offset, "bad operand type for abs(): '" + std::string(type_name(v)) + "'");
}

// Jinja2's round: 'common' is Python's round(value, precision), which rounds the exact binary
// value half to even (round(2.675, 2) == 2.67) and keeps an int an int; 'ceil' and 'floor'
// scale, round and divide back, as Jinja2 does.
Value f_round(Evaluator& ev, const Value& v, CallArgs& a) {
    if (!v.is_number() && !v.is_bool()) ev.fail(a.offset, "round expects a number");
    Value zero = Value::integer(0);
    Value common = Value::string("common");
    int64_t precision = std::clamp<int64_t>(arg_or(a, 0, "precision", zero).as_int(), -20, 20);
    const Value& method = arg_or(a, 1, "method", common);
    std::string m = method.is_string() ? method.str() : "common";
    if (m != "common" && m != "ceil" && m != "floor")
        ev.fail(a.offset, "round: method must be 'common', 'ceil' or 'floor'");
    double scale = std::pow(10.0, static_cast<double>(precision));
    if (m == "ceil") return Value::number(std::ceil(v.as_double() * scale) / scale);
    if (m == "floor") return Value::number(std::floor(v.as_double() * scale) / scale);
    if ((v.is_int() || v.is_bool()) && precision >= 0) return Value::integer(v.as_int());
    double x = v.as_double();
    if (precision >= 0 && std::isfinite(x)) {
        // printf rounds the exact binary value, ties to even: Python's correctly rounded round().
        char buf[400];
        int n = std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(precision), x);
        if (n > 0 && static_cast<size_t>(n) < sizeof buf)
            return Value::number(std::strtod(buf, nullptr));
    }
    double r = std::nearbyint(x * scale) / scale;
    return v.is_int() ? Value::integer(static_cast<int64_t>(r)) : Value::number(r);
}

Value f_indent(Evaluator& ev, const Value& v, CallArgs& a) {
    Value four = Value::integer(4), no = Value::boolean(false);
    const Value& width = arg_or(a, 0, "width", four);
    bool first = arg_or(a, 1, "first", no).truthy();
    bool blank = arg_or(a, 2, "blank", no).truthy();
    std::string pad =
        width.is_string()
            ? width.str()
            : std::string(static_cast<size_t>(std::clamp<int64_t>(width.as_int(), 0, 256)), ' ');
    Text s = soft_text(v);
    s.append("\n");
    std::vector<Text> lines = text_ops::split(s, std::string("\n"), -1);
    lines.pop_back();  // the piece after the newline appended above
    Text out;
    for (size_t i = 0; i < lines.size(); ++i) {
        if (i > 0) out.append("\n");
        // Jinja2 pads the first line only for first=True (even when empty), the others
        // when they are not blank (or blank=True).
        bool pad_line = i == 0 ? first : (blank || !lines[i].str.empty());
        if (pad_line) out.append(pad);
        out.append(lines[i]);
        ev.check_size(out.str.size(), a.offset);
    }
    return Value::string(std::move(out));
}

Value f_escape(Evaluator&, const Value& v, CallArgs&) {
    Text s = soft_text(v), out;
    for (size_t i = 0; i < s.str.size(); ++i) {
        const char* rep = nullptr;
        switch (s.str[i]) {
            case '&':
                rep = "&amp;";
                break;
            case '<':
                rep = "&lt;";
                break;
            case '>':
                rep = "&gt;";
                break;
            case '"':
                rep = "&#34;";
                break;
            case '\'':
                rep = "&#39;";
                break;
            default:
                break;
        }
        if (rep)
            out.append(rep, s.any_input(i, i + 1));
        else
            out.append(s.substr(i, 1));
    }
    return Value::string(std::move(out));
}

// str.center(width): CPython puts the odd space on the left when width is odd.
Value f_center(Evaluator& ev, const Value& v, CallArgs& a) {
    Value eighty = Value::integer(80);
    const Value& w = arg_or(a, 0, "width", eighty);
    if (!w.is_int()) ev.fail(a.offset, "center: width must be an integer");
    Text s = soft_text(v);
    int64_t len = static_cast<int64_t>(text_ops::char_count(s.str));
    int64_t width = std::min<int64_t>(w.as_int(), 1 << 20);
    if (width <= len) return Value::string(std::move(s));
    int64_t pad = width - len, left = pad / 2 + (pad & width & 1);
    Text out(std::string(static_cast<size_t>(left), ' '));
    out.append(s);
    out.append(std::string(static_cast<size_t>(pad - left), ' '));
    return Value::string(std::move(out));
}

Value f_wordcount(Evaluator&, const Value& v, CallArgs&) {
    return Value::integer(
        static_cast<int64_t>(text_ops::split(soft_text(v), std::nullopt, -1).size()));
}

Value f_pprint(Evaluator&, const Value& v, CallArgs&) {
    return Value::string(repr(v), contains_input(v));
}

// attr() reads Python attributes only, never dict keys; of our values only namespaces and
// the loop object have attributes.
Value f_attr(Evaluator& ev, const Value& v, CallArgs& a) {
    const Value* name = a.get(0, "name");
    if (!name || !name->is_string()) ev.fail(a.offset, "attr() needs a name");
    if (v.is_dict() && (v.dict_obj().is_namespace || v.dict_obj().is_loop))
        return ev.get_attr(v, name->str(), a.offset);
    return Value::undefined(std::string("'")
                                .append(type_name(v))
                                .append(" object' has no attribute '")
                                .append(name->str())
                                .append("'"));
}

Value f_default(Evaluator&, const Value& v, CallArgs& a) {
    Value empty = Value::string(""), no = Value::boolean(false);
    const Value& dflt = arg_or(a, 0, "default_value", empty);
    bool boolean = arg_or(a, 1, "boolean", no).truthy();
    if (v.is_undefined() || (boolean && !v.truthy())) return dflt;
    return v;
}

}  // namespace

namespace {

// Pads a %s/%r field to the width in a printf spec ("-" left-justifies), counting code points.
void append_padded(Text& out, Text field, const std::string& spec) {
    bool left = spec.find('-') != std::string::npos;
    size_t width = 0;
    for (char c : spec) {
        if (c == '.') break;
        if (c >= '0' && c <= '9')
            width = std::min<size_t>(width * 10 + static_cast<size_t>(c - '0'), 4096);
    }
    size_t n = text_ops::char_count(field.str);
    std::string pad(width > n ? width - n : 0, ' ');
    if (!left) out.append(pad);
    out.append(field);
    if (left) out.append(pad);
}

}  // namespace

// printf-style formatting, Python's str % args: positional arguments in order, and %(key)s
// conversions from the mapping (the dict operand of %, or format()'s keyword arguments).
Value percent_format(Evaluator& ev, const Text& fmt, const std::vector<Value>& args,
                     const Value* mapping, size_t offset) {
    Text out;
    size_t next = 0;
    const std::string& s = fmt.str;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '%') {
            size_t j = s.find('%', i);
            if (j == std::string::npos) j = s.size();
            out.append(fmt.substr(i, j - i));
            i = j - 1;
            continue;
        }
        if (i + 1 >= s.size()) ev.fail(offset, "format: incomplete format");
        size_t j = i + 1;
        std::string key;
        bool keyed = false;
        if (s[j] == '(') {
            size_t close = s.find(')', j);
            if (close == std::string::npos) ev.fail(offset, "format: incomplete format key");
            key = s.substr(j + 1, close - j - 1);
            keyed = true;
            j = close + 1;
        }
        std::string spec;
        while (j < s.size() &&
               std::string_view("0123456789.-+ #").find(s[j]) != std::string_view::npos)
            spec += s[j++];
        if (spec.size() > 16) ev.fail(offset, "format: conversion spec too long");
        if (j >= s.size()) ev.fail(offset, "format: incomplete format");
        char conv = s[j];
        i = j;
        if (conv == '%') {
            out.append("%");
            continue;
        }
        const Value* arg = nullptr;
        if (keyed) {
            if (!mapping) ev.fail(offset, "format: requires a mapping");
            arg = mapping->dict_obj().find(Value::string(key));
            if (!arg) ev.fail(offset, "format: no key '" + key + "'");
        } else if (next < args.size()) {
            arg = &args[next++];
        }
        if (!arg) ev.fail(offset, "format: not enough arguments for format string");
        char buf[128];
        switch (conv) {
            case 's':
                append_padded(out, soft_text(*arg), spec);
                break;
            case 'r':
                append_padded(out, Text(repr(*arg), contains_input(*arg)), spec);
                break;
            case 'd':
            case 'i': {
                if (!arg->is_number() && !arg->is_bool())
                    ev.fail(offset, "format: %d needs a number");
                long long n = arg->is_float() ? static_cast<long long>(arg->as_double())
                                              : static_cast<long long>(arg->as_int());
                std::string f = "%" + spec + "lld";
                std::snprintf(buf, sizeof buf, f.c_str(), n);
                out.append(buf);
                break;
            }
            case 'f':
            case 'e':
            case 'g': {
                if (!arg->is_number() && !arg->is_bool())
                    ev.fail(offset, "format: %f needs a number");
                std::string f = "%" + spec + conv;
                std::snprintf(buf, sizeof buf, f.c_str(), arg->as_double());
                out.append(buf);
                break;
            }
            default:
                ev.fail(offset, std::string("format: unsupported conversion '%") + conv + "'");
        }
        ev.check_size(out.str.size(), offset);
    }
    if (!mapping && next < args.size())
        ev.fail(offset, "format: not all arguments converted during string formatting");
    return Value::string(std::move(out));
}

// Jinja2's format filter: value % (kwargs or args); both at once is an error.
Value f_format(Evaluator& ev, const Value& v, CallArgs& a) {
    const Text& fmt = require_string(ev, v, "format", a.offset);
    if (!a.positional.empty() && !a.kwargs.empty())
        ev.fail(a.offset, "format: can't handle positional and keyword arguments at the same time");
    if (a.kwargs.empty()) return percent_format(ev, fmt, a.positional, nullptr, a.offset);
    Value mapping = Value::dict();
    for (const auto& [k, val] : a.kwargs) mapping.set(k, val);
    return percent_format(ev, fmt, {mapping}, &mapping, a.offset);
}

Value f_length(Evaluator& ev, const Value& v, CallArgs& a) {
    switch (v.kind()) {
        case Value::Kind::Undefined:
            return Value::integer(0);
        case Value::Kind::String:
            return Value::integer(static_cast<int64_t>(text_ops::char_count(v.str())));
        case Value::Kind::List:
            return Value::integer(static_cast<int64_t>(v.items().size()));
        case Value::Kind::Dict:
            return Value::integer(static_cast<int64_t>(v.dict_obj().items.size()));
        default:
            ev.fail(a.offset, "object of type '" + std::string(type_name(v)) + "' has no len()");
    }
}

}  // namespace filter_impl

Value format_percent(Evaluator& ev, const Text& fmt, const std::vector<Value>& args,
                     const Value* mapping, size_t offset) {
    return filter_impl::percent_format(ev, fmt, args, mapping, offset);
}

namespace {

using filter_impl::FilterFn;

const std::map<std::string_view, FilterFn>& filter_table() {
    using namespace filter_impl;
    using text_ops::Case;
    static const std::map<std::string_view, FilterFn> table = {
        {"abs", f_abs},
        {"attr", f_attr},
        {"center", f_center},
        {"capitalize",
         [](Evaluator&, const Value& v, CallArgs&) { return f_case(Case::Capitalize, v); }},
        {"count", f_length},
        {"d", f_default},
        {"default", f_default},
        {"dictsort", f_dictsort},
        {"e", f_escape},
        {"escape", f_escape},
        {"first", f_first},
        {"float", f_float},
        {"forceescape", f_escape},
        {"format", f_format},
        {"indent", f_indent},
        {"int", f_int},
        {"items", f_items},
        {"join", f_join},
        {"last", f_last},
        {"length", f_length},
        {"list", f_list},
        {"lower", [](Evaluator&, const Value& v, CallArgs&) { return f_case(Case::Lower, v); }},
        {"map", f_map},
        {"max", f_max},
        {"min", f_min},
        {"pprint", f_pprint},
        {"reject", f_reject},
        {"rejectattr", f_rejectattr},
        {"replace", f_replace},
        {"reverse", f_reverse},
        {"round", f_round},
        {"safe", f_safe},
        {"select", f_select},
        {"selectattr", f_selectattr},
        {"sort", f_sort},
        {"string", f_string},
        {"sum", f_sum},
        {"title",
         [](Evaluator&, const Value& v, CallArgs&) { return f_case(Case::JinjaTitle, v); }},
        {"tojson", f_tojson},
        {"trim", f_trim},
        {"unique", f_unique},
        {"upper", [](Evaluator&, const Value& v, CallArgs&) { return f_case(Case::Upper, v); }},
        {"wordcount", f_wordcount},
    };
    return table;
}

}  // namespace

bool is_known_filter(std::string_view name) {
    return filter_table().count(name) != 0;
}

Value apply_filter(Evaluator& ev, const std::string& name, const Value& v, CallArgs& args) {
    auto it = filter_table().find(name);
    if (it == filter_table().end()) ev.fail(args.offset, "no filter named '" + name + "'");
    return it->second(ev, v, args);
}

}  // namespace hearth::chat
