// Filters over sequences: select/map/sort/join/... and the helpers they share.
#include <algorithm>

#include "chat/filters.h"
#include "chat/filters_impl.h"
#include "chat/jinja_tests.h"
#include "chat/text_ops.h"

namespace hearth::chat {

ValueList iterate(Evaluator& ev, const Value& v, size_t offset) {
    switch (v.kind()) {
        case Value::Kind::Undefined:
            return {};
        case Value::Kind::List:
            ev.charge_list(v.items().size(), offset);
            return v.items();
        case Value::Kind::Dict: {
            if (v.dict_obj().is_namespace || v.dict_obj().is_loop) break;
            ValueList keys;
            for (const auto& [k, item] : v.dict_obj().items) keys.push_back(k);
            return keys;
        }
        case Value::Kind::String: {
            ValueList chars;
            auto starts = text_ops::char_starts(v.str());
            ev.check_elements(starts.size() - 1, offset);
            ev.charge(v.str().size(), offset);
            ev.charge_list(starts.size() - 1, offset);
            for (size_t i = 0; i + 1 < starts.size(); ++i)
                chars.push_back(
                    Value::string(v.text().substr(starts[i], starts[i + 1] - starts[i])));
            return chars;
        }
        default:
            break;
    }
    ev.fail(offset, "'" + std::string(type_name(v)) + "' object is not iterable");
}

Value resolve_attribute(Evaluator& ev, const Value& item, const Value& attribute, size_t offset) {
    if (attribute.is_int()) return ev.get_item(item, attribute, offset);
    if (!attribute.is_string()) ev.fail(offset, "attribute must be a string or an integer");
    Value cur = item;
    const std::string& path = attribute.str();
    size_t pos = 0;
    for (;;) {
        size_t dot = path.find('.', pos);
        std::string part =
            path.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
        bool digits = !part.empty() && std::all_of(part.begin(), part.end(),
                                                   [](char c) { return c >= '0' && c <= '9'; });
        if (cur.is_undefined()) return cur;
        cur = digits && part.size() < 18
                  ? ev.get_item(cur, Value::integer(std::stoll(part)), offset)
                  : ev.get_item(cur, Value::string(part), offset);
        if (dot == std::string::npos) return cur;
        pos = dot + 1;
    }
}

int compare_values(Evaluator& ev, const Value& a, const Value& b, bool case_sensitive,
                   size_t offset) {
    if ((a.is_number() || a.is_bool()) && (b.is_number() || b.is_bool())) {
        double x = a.as_double(), y = b.as_double();
        return x < y ? -1 : x > y ? 1 : 0;
    }
    if (a.is_string() && b.is_string()) {
        if (case_sensitive) return a.str().compare(b.str()) < 0 ? -1 : a.str() == b.str() ? 0 : 1;
        std::string x = text_ops::change_case(a.text(), text_ops::Case::Lower).str;
        std::string y = text_ops::change_case(b.text(), text_ops::Case::Lower).str;
        return x < y ? -1 : x > y ? 1 : 0;
    }
    if (a.is_list() && b.is_list()) {
        size_t n = std::min(a.items().size(), b.items().size());
        for (size_t i = 0; i < n; ++i) {
            int c = compare_values(ev, a.items()[i], b.items()[i], case_sensitive, offset);
            if (c != 0) return c;
        }
        return a.items().size() < b.items().size() ? -1 : a.items().size() > b.items().size();
    }
    ev.fail(offset, "'<' not supported between instances of '" + std::string(type_name(a)) +
                        "' and '" + std::string(type_name(b)) + "'");
}

namespace filter_impl {

namespace {

const Value kNone = Value::none();
const Value kFalse = Value::boolean(false);

// Items after the first `skip` positional arguments, as arguments for a test or filter.
CallArgs rest_args(const CallArgs& a, size_t skip) {
    CallArgs out;
    out.offset = a.offset;
    for (size_t i = skip; i < a.positional.size(); ++i) out.positional.push_back(a.positional[i]);
    return out;
}

Value select_impl(Evaluator& ev, const Value& v, CallArgs& a, bool by_attr, bool keep) {
    size_t skip = 0;
    Value attribute;
    if (by_attr) {
        if (a.positional.empty()) ev.fail(a.offset, "selectattr/rejectattr need an attribute");
        attribute = a.positional[0];
        skip = 1;
    }
    std::string test;
    if (a.positional.size() > skip) {
        if (!a.positional[skip].is_string()) ev.fail(a.offset, "test name must be a string");
        test = a.positional[skip].str();
        ++skip;
    }
    CallArgs test_args = rest_args(a, skip);
    ValueList out;
    ValueList items = iterate(ev, v, a.offset);
    ev.count_iterations(items.size(), a.offset);
    for (const auto& item : items) {
        Value subject = by_attr ? resolve_attribute(ev, item, attribute, a.offset) : item;
        CallArgs args = test_args;
        bool r = test.empty() ? subject.truthy() : apply_test(ev, test, subject, args);
        if (r == keep) out.push_back(item);
    }
    return Value::list(std::move(out));
}

void sort_items(Evaluator& ev, ValueList& items, const Value& attribute, bool case_sensitive,
                bool reverse, size_t offset) {
    auto key = [&](const Value& item) {
        return attribute.is_none() ? item : resolve_attribute(ev, item, attribute, offset);
    };
    std::stable_sort(items.begin(), items.end(), [&](const Value& x, const Value& y) {
        int c = compare_values(ev, key(x), key(y), case_sensitive, offset);
        return reverse ? c > 0 : c < 0;
    });
}

Value min_max(Evaluator& ev, const Value& v, CallArgs& a, bool want_max) {
    bool cs = arg_or(a, 0, "case_sensitive", kFalse).truthy();
    const Value& attribute = arg_or(a, 1, "attribute", kNone);
    ValueList items = iterate(ev, v, a.offset);
    if (items.empty()) return Value::undefined("no items to compare");
    size_t best = 0;
    for (size_t i = 1; i < items.size(); ++i) {
        Value x =
            attribute.is_none() ? items[i] : resolve_attribute(ev, items[i], attribute, a.offset);
        Value y = attribute.is_none() ? items[best]
                                      : resolve_attribute(ev, items[best], attribute, a.offset);
        int c = compare_values(ev, x, y, cs, a.offset);
        if (want_max ? c > 0 : c < 0) best = i;
    }
    return items[best];
}

}  // namespace

Value f_select(Evaluator& ev, const Value& v, CallArgs& a) {
    return select_impl(ev, v, a, false, true);
}
Value f_reject(Evaluator& ev, const Value& v, CallArgs& a) {
    return select_impl(ev, v, a, false, false);
}
Value f_selectattr(Evaluator& ev, const Value& v, CallArgs& a) {
    return select_impl(ev, v, a, true, true);
}
Value f_rejectattr(Evaluator& ev, const Value& v, CallArgs& a) {
    return select_impl(ev, v, a, true, false);
}

Value f_map(Evaluator& ev, const Value& v, CallArgs& a) {
    ValueList items = iterate(ev, v, a.offset);
    ev.count_iterations(items.size(), a.offset);
    ValueList out;
    if (const Value* attribute = a.kwarg("attribute")) {
        const Value* dflt = a.kwarg("default");
        for (const auto& item : items) {
            Value r = resolve_attribute(ev, item, *attribute, a.offset);
            out.push_back(r.is_undefined() && dflt ? *dflt : r);
        }
        return Value::list(std::move(out));
    }
    if (a.positional.empty() || !a.positional[0].is_string())
        ev.fail(a.offset, "map needs a filter name or attribute=");
    std::string filter = a.positional[0].str();
    CallArgs fargs = rest_args(a, 1);
    fargs.kwargs = a.kwargs;
    for (const auto& item : items) {
        CallArgs args = fargs;
        out.push_back(apply_filter(ev, filter, item, args));
    }
    return Value::list(std::move(out));
}

Value f_join(Evaluator& ev, const Value& v, CallArgs& a) {
    Value empty = Value::string("");
    const Value& sep = arg_or(a, 0, "d", empty);
    const Value& attribute = arg_or(a, 1, "attribute", kNone);
    Text sep_text = to_text(sep), out;
    bool first = true;
    for (const auto& item : iterate(ev, v, a.offset)) {
        if (!first) out.append(sep_text);
        first = false;
        Value x = attribute.is_none() ? item : resolve_attribute(ev, item, attribute, a.offset);
        if (!x.is_undefined()) out.append(to_text(x));
        ev.check_size(out.str.size(), a.offset);
    }
    return Value::string(std::move(out));
}

Value f_first(Evaluator& ev, const Value& v, CallArgs& a) {
    ValueList items = iterate(ev, v, a.offset);
    return items.empty() ? Value::undefined("No first item, sequence was empty.") : items.front();
}

Value f_last(Evaluator& ev, const Value& v, CallArgs& a) {
    ValueList items = iterate(ev, v, a.offset);
    return items.empty() ? Value::undefined("No last item, sequence was empty.") : items.back();
}

Value f_list(Evaluator& ev, const Value& v, CallArgs& a) {
    return Value::list(iterate(ev, v, a.offset));
}

Value f_items(Evaluator& ev, const Value& v, CallArgs& a) {
    if (v.is_undefined()) return Value::list({});
    if (!v.is_dict()) ev.fail(a.offset, "items() expects a mapping");
    ValueList out;
    for (const auto& [k, item] : v.dict_obj().items) out.push_back(Value::list({k, item}, true));
    return Value::list(std::move(out));
}

Value f_reverse(Evaluator& ev, const Value& v, CallArgs& a) {
    if (v.is_string()) {
        auto starts = text_ops::char_starts(v.str());
        Text out;
        for (size_t i = starts.size() - 1; i > 0; --i)
            out.append(v.text().substr(starts[i - 1], starts[i] - starts[i - 1]));
        return Value::string(std::move(out));
    }
    ValueList items = iterate(ev, v, a.offset);
    std::reverse(items.begin(), items.end());
    return Value::list(std::move(items));
}

Value f_sort(Evaluator& ev, const Value& v, CallArgs& a) {
    bool reverse = arg_or(a, 0, "reverse", kFalse).truthy();
    bool cs = arg_or(a, 1, "case_sensitive", kFalse).truthy();
    const Value& attribute = arg_or(a, 2, "attribute", kNone);
    ValueList items = iterate(ev, v, a.offset);
    sort_items(ev, items, attribute, cs, reverse, a.offset);
    return Value::list(std::move(items));
}

Value f_dictsort(Evaluator& ev, const Value& v, CallArgs& a) {
    if (!v.is_dict()) ev.fail(a.offset, "dictsort expects a mapping");
    bool cs = arg_or(a, 0, "case_sensitive", kFalse).truthy();
    Value key_str = Value::string("key");
    const Value& by = arg_or(a, 1, "by", key_str);
    bool reverse = arg_or(a, 2, "reverse", kFalse).truthy();
    ValueList pairs;
    for (const auto& [k, item] : v.dict_obj().items) pairs.push_back(Value::list({k, item}, true));
    Value index = Value::integer(by.is_string() && by.str() == "value" ? 1 : 0);
    sort_items(ev, pairs, index, cs, reverse, a.offset);
    return Value::list(std::move(pairs));
}

Value f_unique(Evaluator& ev, const Value& v, CallArgs& a) {
    bool cs = arg_or(a, 0, "case_sensitive", kFalse).truthy();
    const Value& attribute = arg_or(a, 1, "attribute", kNone);
    ValueList out, seen;
    for (const auto& item : iterate(ev, v, a.offset)) {
        Value key = attribute.is_none() ? item : resolve_attribute(ev, item, attribute, a.offset);
        if (!cs && key.is_string())
            key = Value::string(text_ops::change_case(key.text(), text_ops::Case::Lower));
        bool dup = false;
        for (const auto& s : seen) dup = dup || s.equals(key);
        if (dup) continue;
        ev.count_iterations(seen.size(), a.offset);
        seen.push_back(key);
        out.push_back(item);
    }
    return Value::list(std::move(out));
}

Value f_sum(Evaluator& ev, const Value& v, CallArgs& a) {
    const Value& attribute = arg_or(a, 0, "attribute", kNone);
    Value zero = Value::integer(0);
    Value total = arg_or(a, 1, "start", zero);
    if (total.is_string()) ev.fail(a.offset, "sum() can't sum strings [use ''.join(seq) instead]");
    for (const auto& item : iterate(ev, v, a.offset)) {
        Value x = attribute.is_none() ? item : resolve_attribute(ev, item, attribute, a.offset);
        // Python's sum(): start + x + ... with the + operator (numbers, or lists with start=[]).
        total = ev.arithmetic("+", total, x, a.offset);
    }
    return total;
}

Value f_min(Evaluator& ev, const Value& v, CallArgs& a) {
    return min_max(ev, v, a, false);
}
Value f_max(Evaluator& ev, const Value& v, CallArgs& a) {
    return min_max(ev, v, a, true);
}

}  // namespace filter_impl

}  // namespace hearth::chat
