#include "chat/jinja_tests.h"

#include <cmath>
#include <map>

#include "chat/filters.h"
#include "chat/text_ops.h"

namespace hearth::chat {

namespace {

using TestFn = bool (*)(Evaluator&, const Value&, CallArgs&);

const Value& need_arg(Evaluator& ev, CallArgs& a, std::string_view test) {
    const Value* v = a.get(0, "value");
    if (!v) ev.fail(a.offset, "test '" + std::string(test) + "' needs an argument");
    return *v;
}

int order(Evaluator& ev, const Value& v, CallArgs& a, std::string_view test) {
    const Value& other = need_arg(ev, a, test);
    return compare_values(ev, v, other, true, a.offset);
}

bool is_case(const Value& v, bool upper) {
    if (!v.is_string()) return false;
    auto flipped =
        text_ops::change_case(v.text(), upper ? text_ops::Case::Lower : text_ops::Case::Upper);
    auto same =
        text_ops::change_case(v.text(), upper ? text_ops::Case::Upper : text_ops::Case::Lower);
    // Python: at least one cased character and none of the other case.
    return same.str == v.str() && flipped.str != v.str();
}

const std::map<std::string_view, TestFn>& test_table() {
    static const std::map<std::string_view, TestFn> table = {
        {"boolean", [](Evaluator&, const Value& v, CallArgs&) { return v.is_bool(); }},
        {"callable", [](Evaluator&, const Value& v, CallArgs&) { return v.is_callable(); }},
        {"defined", [](Evaluator&, const Value& v, CallArgs&) { return !v.is_undefined(); }},
        {"divisibleby",
         [](Evaluator& ev, const Value& v, CallArgs& a) {
             const Value& n = need_arg(ev, a, "divisibleby");
             if (!(n.is_int() || n.is_bool()) || !(v.is_int() || v.is_bool()))
                 ev.fail(a.offset, "divisibleby needs integers");
             if (n.as_int() == 0) ev.fail(a.offset, "integer division or modulo by zero");
             if (n.as_int() == -1) return true;
             return v.as_int() % n.as_int() == 0;
         }},
        {"eq", [](Evaluator& ev, const Value& v,
                  CallArgs& a) { return v.equals(need_arg(ev, a, "eq")); }},
        {"equalto", [](Evaluator& ev, const Value& v,
                       CallArgs& a) { return v.equals(need_arg(ev, a, "equalto")); }},
        {"==", [](Evaluator& ev, const Value& v,
                  CallArgs& a) { return v.equals(need_arg(ev, a, "==")); }},
        {"ne", [](Evaluator& ev, const Value& v,
                  CallArgs& a) { return !v.equals(need_arg(ev, a, "ne")); }},
        {"!=", [](Evaluator& ev, const Value& v,
                  CallArgs& a) { return !v.equals(need_arg(ev, a, "!=")); }},
        {"even",
         [](Evaluator& ev, const Value& v, CallArgs& a) {
             if (!v.is_int() && !v.is_bool()) ev.fail(a.offset, "even needs an integer");
             return v.as_int() % 2 == 0;
         }},
        {"odd",
         [](Evaluator& ev, const Value& v, CallArgs& a) {
             if (!v.is_int() && !v.is_bool()) ev.fail(a.offset, "odd needs an integer");
             return v.as_int() % 2 != 0;
         }},
        {"false",
         [](Evaluator&, const Value& v, CallArgs&) { return v.is_bool() && !v.as_bool(); }},
        {"true", [](Evaluator&, const Value& v, CallArgs&) { return v.is_bool() && v.as_bool(); }},
        {"float", [](Evaluator&, const Value& v, CallArgs&) { return v.is_float(); }},
        {"integer", [](Evaluator&, const Value& v, CallArgs&) { return v.is_int(); }},
        {"ge",
         [](Evaluator& ev, const Value& v, CallArgs& a) { return order(ev, v, a, "ge") >= 0; }},
        {">=",
         [](Evaluator& ev, const Value& v, CallArgs& a) { return order(ev, v, a, ">=") >= 0; }},
        {"gt",
         [](Evaluator& ev, const Value& v, CallArgs& a) { return order(ev, v, a, "gt") > 0; }},
        {"greaterthan",
         [](Evaluator& ev, const Value& v, CallArgs& a) { return order(ev, v, a, "gt") > 0; }},
        {">", [](Evaluator& ev, const Value& v, CallArgs& a) { return order(ev, v, a, ">") > 0; }},
        {"le",
         [](Evaluator& ev, const Value& v, CallArgs& a) { return order(ev, v, a, "le") <= 0; }},
        {"<=",
         [](Evaluator& ev, const Value& v, CallArgs& a) { return order(ev, v, a, "<=") <= 0; }},
        {"lt",
         [](Evaluator& ev, const Value& v, CallArgs& a) { return order(ev, v, a, "lt") < 0; }},
        {"lessthan",
         [](Evaluator& ev, const Value& v, CallArgs& a) { return order(ev, v, a, "lt") < 0; }},
        {"<", [](Evaluator& ev, const Value& v, CallArgs& a) { return order(ev, v, a, "<") < 0; }},
        {"in",
         [](Evaluator& ev, const Value& v, CallArgs& a) {
             const Value& seq = need_arg(ev, a, "in");
             if (seq.is_string())
                 return v.is_string() && seq.str().find(v.str()) != std::string::npos;
             if (seq.is_dict()) return seq.dict_obj().find(v) != nullptr;
             for (const auto& item : iterate(ev, seq, a.offset))
                 if (item.equals(v)) return true;
             return false;
         }},
        {"iterable",
         [](Evaluator&, const Value& v, CallArgs&) {
             return v.is_list() || v.is_string() || v.is_undefined() ||
                    (v.is_dict() && !v.dict_obj().is_namespace && !v.dict_obj().is_loop);
         }},
        {"lower", [](Evaluator&, const Value& v, CallArgs&) { return is_case(v, false); }},
        {"upper", [](Evaluator&, const Value& v, CallArgs&) { return is_case(v, true); }},
        {"mapping",
         [](Evaluator&, const Value& v, CallArgs&) {
             return v.is_dict() && !v.dict_obj().is_namespace && !v.dict_obj().is_loop;
         }},
        {"none", [](Evaluator&, const Value& v, CallArgs&) { return v.is_none(); }},
        {"number",
         [](Evaluator&, const Value& v, CallArgs&) { return v.is_number() || v.is_bool(); }},
        {"sameas",
         [](Evaluator& ev, const Value& v, CallArgs& a) {
             const Value& o = need_arg(ev, a, "sameas");
             // Python identity: singletons compare by value, containers by object.
             if (v.kind() != o.kind()) return false;
             if (v.is_none() || v.is_undefined()) return true;
             if (v.is_bool()) return v.as_bool() == o.as_bool();
             if (v.is_int())
                 return v.as_int() == o.as_int() && v.as_int() >= -5 && v.as_int() <= 256;
             if (v.is_dict()) return v.dict_ptr() == o.dict_ptr();
             return false;
         }},
        {"sequence",
         [](Evaluator&, const Value& v, CallArgs&) {
             return v.is_list() || v.is_string() ||
                    (v.is_dict() && !v.dict_obj().is_namespace && !v.dict_obj().is_loop);
         }},
        {"string", [](Evaluator&, const Value& v, CallArgs&) { return v.is_string(); }},
        {"undefined", [](Evaluator&, const Value& v, CallArgs&) { return v.is_undefined(); }},
        {"escaped", [](Evaluator&, const Value&, CallArgs&) { return false; }},
        {"filter", [](Evaluator&, const Value& v,
                      CallArgs&) { return v.is_string() && is_known_filter(v.str()); }},
        {"test", [](Evaluator&, const Value& v,
                    CallArgs&) { return v.is_string() && is_known_test(v.str()); }},
    };
    return table;
}

}  // namespace

bool is_known_test(std::string_view name) {
    return test_table().count(name) != 0;
}

bool apply_test(Evaluator& ev, const std::string& name, const Value& v, CallArgs& args) {
    auto it = test_table().find(name);
    if (it == test_table().end()) ev.fail(args.offset, "no test named '" + name + "'");
    return it->second(ev, v, args);
}

}  // namespace hearth::chat
