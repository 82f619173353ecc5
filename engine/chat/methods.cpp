#include "chat/methods.h"

#include "chat/filters.h"
#include "chat/text_ops.h"

namespace hearth::chat {

namespace {

std::optional<std::string> opt_string(Evaluator& ev, const CallArgs& a, size_t i,
                                      std::string_view name) {
    const Value* v = a.get(i, name);
    if (!v || v->is_none()) return std::nullopt;
    if (!v->is_string()) ev.fail(a.offset, std::string(name) + " must be a string or None");
    return v->str();
}

int64_t opt_int(Evaluator& ev, const CallArgs& a, size_t i, std::string_view name, int64_t dflt) {
    const Value* v = a.get(i, name);
    if (!v || v->is_none()) return dflt;
    if (!v->is_int() && !v->is_bool()) ev.fail(a.offset, std::string(name) + " must be an integer");
    return v->as_int();
}

bool affix_match(Evaluator& ev, const Value& s, const CallArgs& a, bool prefix) {
    const Value* arg = a.get(0, "prefix");
    if (!arg)
        ev.fail(a.offset,
                prefix ? "startswith() needs an argument" : "endswith() needs an argument");
    ValueList candidates = arg->is_list() ? arg->items() : ValueList{*arg};
    for (const auto& c : candidates) {
        if (!c.is_string()) ev.fail(a.offset, "startswith/endswith need strings");
        const std::string& h = s.str();
        const std::string& n = c.str();
        if (n.size() > h.size()) continue;
        if (prefix ? h.compare(0, n.size(), n) == 0
                   : h.compare(h.size() - n.size(), n.size(), n) == 0)
            return true;
    }
    return false;
}

bool all_chars(const std::string& s, bool (*pred)(unsigned char)) {
    if (s.empty()) return false;
    for (unsigned char c : s)
        if (!pred(c)) return false;
    return true;
}

// str.format() with "{}", "{0}", "{name}" fields and "{{"/"}}" escapes (no format specs).
Value str_format(Evaluator& ev, const Text& fmt, const CallArgs& a) {
    Text out;
    size_t next = 0;
    const std::string& s = fmt.str;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if ((c == '{' || c == '}') && i + 1 < s.size() && s[i + 1] == c) {
            out.append(std::string(1, c));
            ++i;
            continue;
        }
        if (c == '}') ev.fail(a.offset, "format: single '}' in format string");
        if (c != '{') {
            out.append(fmt.substr(i, 1));
            continue;
        }
        size_t close = s.find('}', i);
        if (close == std::string::npos) ev.fail(a.offset, "format: unmatched '{'");
        std::string field = s.substr(i + 1, close - i - 1);
        if (field.find_first_of(":!") != std::string::npos)
            ev.fail(a.offset, "format: format specs are not supported");
        const Value* v = nullptr;
        if (field.empty()) {
            if (next < a.positional.size()) v = &a.positional[next++];
        } else if (field.find_first_not_of("0123456789") == std::string::npos) {
            size_t idx = field.size() < 6 ? std::stoul(field) : a.positional.size();
            if (idx < a.positional.size()) v = &a.positional[idx];
        } else {
            v = a.kwarg(field);
        }
        if (!v) ev.fail(a.offset, "format: no argument for field {" + field + "}");
        out.append(to_text(*v));
        ev.check_size(out.str.size(), a.offset);
        i = close;
    }
    return Value::string(std::move(out));
}

std::optional<Value> string_method(Evaluator& ev, const Value& s, const std::string& name,
                                   CallArgs& a) {
    using text_ops::Case;
    using text_ops::Side;
    if (name == "strip" || name == "lstrip" || name == "rstrip") {
        Side side = name == "strip" ? Side::Both : name == "lstrip" ? Side::Left : Side::Right;
        return Value::string(text_ops::strip(s.text(), side, opt_string(ev, a, 0, "chars")));
    }
    if (name == "upper") return Value::string(text_ops::change_case(s.text(), Case::Upper));
    if (name == "lower") return Value::string(text_ops::change_case(s.text(), Case::Lower));
    if (name == "title") return Value::string(text_ops::change_case(s.text(), Case::PyTitle));
    if (name == "capitalize")
        return Value::string(text_ops::change_case(s.text(), Case::Capitalize));
    if (name == "format") return str_format(ev, s.text(), a);
    if (name == "startswith") return Value::boolean(affix_match(ev, s, a, true));
    if (name == "endswith") return Value::boolean(affix_match(ev, s, a, false));
    if (name == "split" || name == "rsplit") {
        ValueList out;
        auto sep = opt_string(ev, a, 0, "sep");
        if (sep && sep->empty()) ev.fail(a.offset, "empty separator");
        int64_t maxsplit = opt_int(ev, a, 1, "maxsplit", -1);
        auto pieces = name == "split" ? text_ops::split(s.text(), sep, maxsplit)
                                      : text_ops::rsplit(s.text(), sep, maxsplit);
        ev.check_elements(pieces.size(), a.offset);
        for (auto& piece : pieces) out.push_back(Value::string(std::move(piece)));
        return Value::list(std::move(out));
    }
    if (name == "splitlines") {
        const Value* keep = a.get(0, "keepends");
        auto pieces = text_ops::splitlines(s.text(), keep && keep->truthy());
        ev.check_elements(pieces.size(), a.offset);
        ValueList out;
        for (auto& piece : pieces) out.push_back(Value::string(std::move(piece)));
        return Value::list(std::move(out));
    }
    if (name == "swapcase") return Value::string(text_ops::change_case(s.text(), Case::Swap));
    if (name == "ljust" || name == "rjust" || name == "center" || name == "zfill") {
        int64_t width = opt_int(ev, a, 0, "width", 0);
        std::string fill = name == "zfill" ? "0" : opt_string(ev, a, 1, "fillchar").value_or(" ");
        if (text_ops::char_count(fill) != 1)
            ev.fail(a.offset, "the fill character must be exactly one character long");
        int64_t n = static_cast<int64_t>(text_ops::char_count(s.str()));
        if (width <= n) return s;
        ev.check_size(static_cast<size_t>(width) * fill.size(), a.offset);
        int64_t pad = width - n, left = 0;
        if (name == "rjust") left = pad;
        if (name == "center") left = pad / 2 + (pad & width & 1);  // CPython's split of the padding
        Text out;
        auto repeat = [&](int64_t k) {
            std::string p;
            for (int64_t i = 0; i < k; ++i) p += fill;
            out.append(p);
        };
        if (name == "zfill") {
            Text body = s.text();
            if (!body.str.empty() && (body.str[0] == '+' || body.str[0] == '-')) {
                out.append(body.substr(0, 1));
                body = body.substr(1, std::string::npos);
            }
            repeat(pad);
            out.append(body);
            return Value::string(std::move(out));
        }
        repeat(left);
        out.append(s.text());
        repeat(pad - left);
        return Value::string(std::move(out));
    }
    if (name == "partition" || name == "rpartition") {
        auto sep = opt_string(ev, a, 0, "sep");
        if (!sep || sep->empty()) ev.fail(a.offset, name + "() needs a non-empty separator");
        const std::string& h = s.str();
        size_t p = name == "partition" ? h.find(*sep) : h.rfind(*sep);
        Value empty = Value::string("");
        if (p == std::string::npos)
            return name == "partition" ? Value::list({s, empty, empty}, true)
                                       : Value::list({empty, empty, s}, true);
        return Value::list(
            {Value::string(s.text().substr(0, p)), Value::string(s.text().substr(p, sep->size())),
             Value::string(s.text().substr(p + sep->size(), std::string::npos))},
            true);
    }
    if (name == "replace") {
        const Value* old_v = a.get(0, "old");
        const Value* new_v = a.get(1, "new");
        if (!old_v || !new_v || !old_v->is_string() || !new_v->is_string())
            ev.fail(a.offset, "replace() needs two strings");
        Text out = text_ops::replace(s.text(), old_v->text(), new_v->text(),
                                     opt_int(ev, a, 2, "count", -1), ev.limits().max_output_bytes);
        ev.check_size(out.str.size(), a.offset);
        return Value::string(std::move(out));
    }
    if (name == "find" || name == "rfind" || name == "count" || name == "index") {
        auto sub = opt_string(ev, a, 0, "sub");
        if (!sub) ev.fail(a.offset, name + "() needs a string");
        const std::string& h = s.str();
        if (name == "count") {
            if (sub->empty())
                return Value::integer(static_cast<int64_t>(text_ops::char_count(h)) + 1);
            int64_t n = 0;
            for (size_t p = h.find(*sub); p != std::string::npos; p = h.find(*sub, p + sub->size()))
                ++n;
            return Value::integer(n);
        }
        size_t p = name == "rfind" ? h.rfind(*sub) : h.find(*sub);
        if (p == std::string::npos) {
            if (name == "index") ev.fail(a.offset, "substring not found");
            return Value::integer(-1);
        }
        return Value::integer(static_cast<int64_t>(text_ops::char_count(h.substr(0, p))));
    }
    if (name == "join") {
        const Value* items = a.get(0, "iterable");
        if (!items) ev.fail(a.offset, "join() needs an iterable");
        Text out;
        bool first = true;
        for (const auto& item : iterate(ev, *items, a.offset)) {
            if (!item.is_string()) ev.fail(a.offset, "join() expects strings");
            if (!first) out.append(s.text());
            first = false;
            out.append(item.text());
            ev.check_size(out.str.size(), a.offset);
        }
        return Value::string(std::move(out));
    }
    if (name == "removeprefix" || name == "removesuffix") {
        auto affix = opt_string(ev, a, 0, "affix").value_or("");
        const std::string& h = s.str();
        if (affix.size() <= h.size()) {
            if (name == "removeprefix" && h.compare(0, affix.size(), affix) == 0)
                return Value::string(s.text().substr(affix.size(), std::string::npos));
            if (name == "removesuffix" &&
                h.compare(h.size() - affix.size(), affix.size(), affix) == 0)
                return Value::string(s.text().substr(0, h.size() - affix.size()));
        }
        return s;
    }
    if (name == "isdigit")
        return Value::boolean(
            all_chars(s.str(), [](unsigned char c) { return c >= '0' && c <= '9'; }));
    if (name == "isalpha")
        return Value::boolean(all_chars(
            s.str(), [](unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }));
    if (name == "isspace")
        return Value::boolean(
            all_chars(s.str(), [](unsigned char c) { return text_ops::is_python_space(c); }));
    if (name == "isalnum")
        return Value::boolean(all_chars(s.str(), [](unsigned char c) {
            return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
        }));
    if (name == "isupper" || name == "islower") {
        // True when there is a cased character and none of the other case (ASCII letters).
        bool cased = false, other = false, want_upper = name == "isupper";
        for (unsigned char c : s.str()) {
            bool up = c >= 'A' && c <= 'Z', low = c >= 'a' && c <= 'z';
            if (up || low) cased = true;
            if ((want_upper && low) || (!want_upper && up)) other = true;
        }
        return Value::boolean(cased && !other);
    }
    return std::nullopt;
}

std::optional<Value> dict_method(Evaluator& ev, const Value& d, const std::string& name,
                                 CallArgs& a) {
    const DictObj& obj = d.dict_obj();
    if (obj.is_loop && name == "cycle") {
        if (a.positional.empty()) ev.fail(a.offset, "no items for cycling given");
        const Value* index0 = obj.find("index0");
        size_t i = static_cast<size_t>(index0 ? index0->as_int() : 0);
        return a.positional[i % a.positional.size()];
    }
    if (obj.is_loop && name == "changed" && obj.loop_state) {
        // True on the first call and whenever the arguments differ from the previous call's.
        LoopState& st = *obj.loop_state;
        bool same = st.changed_called && st.changed_last.size() == a.positional.size();
        for (size_t i = 0; same && i < a.positional.size(); ++i)
            same = st.changed_last[i].equals(a.positional[i]);
        st.changed_called = true;
        st.changed_last = a.positional;
        return Value::boolean(!same);
    }
    if (obj.is_namespace || obj.is_loop) return std::nullopt;
    if (name == "items") {
        ValueList out;
        for (const auto& [k, v] : obj.items) out.push_back(Value::list({k, v}, true));
        return Value::list(std::move(out));
    }
    if (name == "keys" || name == "values") {
        ValueList out;
        for (const auto& [k, v] : obj.items) out.push_back(name == "keys" ? k : v);
        return Value::list(std::move(out));
    }
    if (name == "get") {
        const Value* key = a.get(0, "key");
        if (!key) ev.fail(a.offset, "get() needs a key");
        if (const Value* v = obj.find(*key)) return *v;
        const Value* dflt = a.get(1, "default");
        return dflt ? *dflt : Value::none();
    }
    if (name == "copy") return Value::dict(std::make_shared<DictObj>(obj));
    if (name == "update" || name == "pop" || name == "setdefault" || name == "clear" ||
        name == "popitem")
        ev.fail(a.offset, "access to attribute '" + name + "' of 'dict' object is unsafe");
    return std::nullopt;
}

std::optional<Value> list_method(Evaluator& ev, const Value& l, const std::string& name,
                                 CallArgs& a) {
    if (name == "index" || name == "count") {
        const Value* x = a.get(0, "value");
        if (!x) ev.fail(a.offset, name + "() needs an argument");
        int64_t n = 0;
        for (size_t i = 0; i < l.items().size(); ++i) {
            if (!l.items()[i].equals(*x)) continue;
            if (name == "index") return Value::integer(static_cast<int64_t>(i));
            ++n;
        }
        if (name == "index") ev.fail(a.offset, "value is not in list");
        return Value::integer(n);
    }
    if (name == "append" || name == "extend" || name == "insert" || name == "pop" ||
        name == "remove" || name == "clear" || name == "sort" || name == "reverse")
        ev.fail(a.offset, "access to attribute '" + name + "' of '" + std::string(type_name(l)) +
                              "' object is unsafe (lists are "
                              "immutable in chat templates)");
    return std::nullopt;
}

}  // namespace

std::optional<Value> call_method(Evaluator& ev, const Value& obj, const std::string& name,
                                 CallArgs& args) {
    switch (obj.kind()) {
        case Value::Kind::String:
            return string_method(ev, obj, name, args);
        case Value::Kind::Dict:
            return dict_method(ev, obj, name, args);
        case Value::Kind::List:
            return list_method(ev, obj, name, args);
        default:
            return std::nullopt;
    }
}

}  // namespace hearth::chat
