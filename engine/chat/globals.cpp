// The functions every chat template can call: Jinja2's range/namespace/dict and the two
// HF transformers adds (raise_exception, strftime_now).
#include <ctime>

#include "chat/evaluator.h"
#include "chat/globals.h"

namespace hearth::chat {

namespace {

int64_t int_arg(Evaluator& ev, const CallArgs& a, size_t i) {
    const Value& v = a.positional[i];
    if (!v.is_int() && !v.is_bool())
        ev.fail(a.offset,
                "range() arguments must be integers, not '" + std::string(type_name(v)) + "'");
    return v.as_int();
}

Value range_fn(Evaluator& ev, CallArgs& a) {
    if (a.positional.empty() || a.positional.size() > 3)
        ev.fail(a.offset, "range() takes 1 to 3 arguments");
    int64_t start = 0, stop, step = 1;
    if (a.positional.size() == 1) {
        stop = int_arg(ev, a, 0);
    } else {
        start = int_arg(ev, a, 0);
        stop = int_arg(ev, a, 1);
        if (a.positional.size() == 3) step = int_arg(ev, a, 2);
    }
    if (step == 0) ev.fail(a.offset, "range() arg 3 must not be zero");
    // Count first, so range(10**15) is refused before anything is allocated.
    long double span =
        step > 0 ? static_cast<long double>(stop) - start : static_cast<long double>(start) - stop;
    long double count =
        span <= 0 ? 0 : (span + (step > 0 ? step : -step) - 1) / (step > 0 ? step : -step);
    ev.count_iterations(static_cast<uint64_t>(count < 1e18L ? count : 1e18L), a.offset);
    ValueList out;
    for (int64_t i = start; step > 0 ? i < stop : i > stop;) {
        out.push_back(Value::integer(i));
        if (__builtin_add_overflow(i, step, &i)) break;
    }
    return Value::list(std::move(out));
}

Value dict_from_args(Evaluator& ev, CallArgs& a, bool is_namespace) {
    auto obj = std::make_shared<DictObj>();
    obj->is_namespace = is_namespace;
    if (!a.positional.empty()) {
        if (a.positional.size() > 1 || !a.positional[0].is_dict())
            ev.fail(a.offset, "expected at most one mapping argument");
        for (const auto& [k, v] : a.positional[0].dict_obj().items) obj->set(k, v);
    }
    for (const auto& [k, v] : a.kwargs) obj->set(Value::string(k), v);
    if (is_namespace)
        for (const auto& [k, v] : obj->items)
            if (v.is_callable() ||
                (v.is_dict() && (v.dict_obj().is_namespace || v.dict_obj().is_loop)))
                ev.fail(a.offset, "cannot store a namespace, loop or macro in a namespace");
    Value out = Value::dict(std::move(obj));
    ev.check_depth(out, a.offset);
    return out;
}

Value raise_exception_fn(Evaluator& ev, CallArgs& a) {
    const Value* msg = a.get(0, "message");
    ev.fail(a.offset, "raise_exception: " + (msg ? to_text(*msg).str : std::string()));
}

Value strftime_now_fn(Evaluator& ev, CallArgs& a) {
    const Value* fmt = a.get(0, "format");
    if (!fmt || !fmt->is_string()) ev.fail(a.offset, "strftime_now() needs a format string");
    std::time_t t = ev.now();
    std::tm tm{};
    localtime_r(&t, &tm);
    char buf[256];
    size_t n = fmt->str().size() < 64 ? std::strftime(buf, sizeof buf, fmt->str().c_str(), &tm) : 0;
    if (n == 0 && !fmt->str().empty())
        ev.fail(a.offset, "strftime_now: format too long or empty result");
    return Value::string(std::string(buf, n));
}

}  // namespace

std::vector<std::pair<std::string, Value>> builtin_globals() {
    return {
        {"range", Value::callable("range", range_fn)},
        {"namespace",
         Value::callable("namespace",
                         [](Evaluator& ev, CallArgs& a) { return dict_from_args(ev, a, true); })},
        {"dict", Value::callable("dict", [](Evaluator& ev,
                                            CallArgs& a) { return dict_from_args(ev, a, false); })},
        {"raise_exception", Value::callable("raise_exception", raise_exception_fn)},
        {"strftime_now", Value::callable("strftime_now", strftime_now_fn)},
    };
}

}  // namespace hearth::chat
