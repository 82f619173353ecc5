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

Value f_tojson(Evaluator& ev, const Value& v, CallArgs& a) {
    const Value* indent = a.get(0, "indent");
    int width = -1;
    if (indent && !indent->is_none()) {
        if (!indent->is_int()) ev.fail(a.offset, "tojson: indent must be an integer");
        width = static_cast<int>(std::clamp<int64_t>(indent->as_int(), 0, 64));
    }
    const Value* sort_keys = a.kwarg("sort_keys");
    std::string out, error;
    if (!to_json(v, width, sort_keys && sort_keys->truthy(), out, error)) ev.fail(a.offset, error);
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

Value f_round(Evaluator& ev, const Value& v, CallArgs& a) {
    if (!v.is_number() && !v.is_bool()) ev.fail(a.offset, "round expects a number");
    Value zero = Value::integer(0);
    Value common = Value::string("common");
    int64_t precision = std::clamp<int64_t>(arg_or(a, 0, "precision", zero).as_int(), -20, 20);
    const Value& method = arg_or(a, 1, "method", common);
    double scale = std::pow(10.0, static_cast<double>(precision));
    double x = v.as_double() * scale;
    std::string m = method.is_string() ? method.str() : "common";
    if (m == "ceil")
        x = std::ceil(x);
    else if (m == "floor")
        x = std::floor(x);
    else if (m == "common")
        x = std::nearbyint(x);  // Python rounds halves to even
    else
        ev.fail(a.offset, "round: method must be 'common', 'ceil' or 'floor'");
    return Value::number(x / scale);
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
    return Value::undefined("'" + std::string(type_name(v)) + " object' has no attribute '" +
                            name->str() + "'");
}

Value f_default(Evaluator&, const Value& v, CallArgs& a) {
    Value empty = Value::string(""), no = Value::boolean(false);
    const Value& dflt = arg_or(a, 0, "default_value", empty);
    bool boolean = arg_or(a, 1, "boolean", no).truthy();
    if (v.is_undefined() || (boolean && !v.truthy())) return dflt;
    return v;
}

}  // namespace

// printf-style formatting: "%s, %d" | format(a, b) and the % operator on strings.
Value f_format(Evaluator& ev, const Value& v, CallArgs& a) {
    const Text& fmt = require_string(ev, v, "format", a.offset);
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
        if (i + 1 >= s.size()) ev.fail(a.offset, "format: incomplete format");
        size_t j = i + 1;
        std::string key;
        if (s[j] == '(') {
            size_t close = s.find(')', j);
            if (close == std::string::npos) ev.fail(a.offset, "format: incomplete format key");
            key = s.substr(j + 1, close - j - 1);
            j = close + 1;
        }
        std::string spec;
        while (j < s.size() &&
               std::string_view("0123456789.-+ #").find(s[j]) != std::string_view::npos)
            spec += s[j++];
        if (j >= s.size()) ev.fail(a.offset, "format: incomplete format");
        char conv = s[j];
        i = j;
        if (conv == '%') {
            out.append("%");
            continue;
        }
        const Value* arg = nullptr;
        if (!key.empty()) {
            if (a.positional.empty() || !a.positional[0].is_dict())
                ev.fail(a.offset, "format: requires a mapping");
            arg = a.positional[0].dict_obj().find(key);
        } else if (next < a.positional.size()) {
            arg = &a.positional[next++];
        }
        if (!arg) ev.fail(a.offset, "format: not enough arguments for format string");
        char buf[64];
        switch (conv) {
            case 's':
                out.append(soft_text(*arg));
                break;
            case 'r':
                out.append(repr(*arg), contains_input(*arg));
                break;
            case 'd':
            case 'i':
                if (!arg->is_number() && !arg->is_bool())
                    ev.fail(a.offset, "format: %d needs a number");
                out.append(std::to_string(arg->is_float() ? static_cast<int64_t>(arg->as_double())
                                                          : arg->as_int()));
                break;
            case 'f':
            case 'e':
            case 'g': {
                if (!arg->is_number() && !arg->is_bool())
                    ev.fail(a.offset, "format: %f needs a number");
                std::string f = "%" + spec + conv;
                std::snprintf(buf, sizeof buf, f.c_str(), arg->as_double());
                out.append(buf);
                break;
            }
            default:
                ev.fail(a.offset, std::string("format: unsupported conversion '%") + conv + "'");
        }
        ev.check_size(out.str.size(), a.offset);
    }
    return Value::string(std::move(out));
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
