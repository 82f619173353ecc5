// Expressions: Python semantics for operators, attribute and item access, calls.
#include <cmath>
#include <limits>

#include "chat/evaluator.h"
#include "chat/filters.h"
#include "chat/jinja_tests.h"
#include "chat/methods.h"
#include "chat/text_ops.h"

namespace hearth::chat {

namespace {

std::string object_desc(const Value& v) {
    return std::string(type_name(v)) + " object";
}

bool is_intlike(const Value& v) {
    return v.is_int() || v.is_bool();
}

int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}

}  // namespace

Value Evaluator::eval(const ast::Expr& e) {
    DepthGuard guard(*this, e.offset);
    switch (e.kind) {
        case ast::ExprKind::Literal:
            return e.value;
        case ast::ExprKind::Name:
            return lookup(e.name, e.offset);
        case ast::ExprKind::List:
        case ast::ExprKind::Tuple: {
            ValueList items;
            for (const auto& item : e.items) items.push_back(eval(*item));
            Value v = Value::list(std::move(items), e.kind == ast::ExprKind::Tuple);
            check_depth(v, e.offset);
            return v;
        }
        case ast::ExprKind::Dict: {
            Value d = Value::dict();
            for (const auto& [k, v] : e.pairs) {
                Value key = eval(*k);
                if (key.is_dict() || key.is_undefined() || (key.is_list() && !key.is_tuple()))
                    fail(k->offset,
                         "unhashable dict key of type '" + std::string(type_name(key)) + "'");
                d.mutable_dict().set(std::move(key), eval(*v));
            }
            check_depth(d, e.offset);
            return d;
        }
        case ast::ExprKind::Attr:
            return get_attr(eval(*e.object), e.name, e.offset);
        case ast::ExprKind::Item:
            return get_item(eval(*e.object), eval(*e.a), e.offset);
        case ast::ExprKind::Slice:
            return eval_slice(e);
        case ast::ExprKind::Call:
            return eval_call(e);
        case ast::ExprKind::Filter:
            return eval_filter(e, nullptr);
        case ast::ExprKind::Test: {
            Value operand = eval(*e.object);
            CallArgs args = eval_args(e);
            bool r = apply_test(*this, e.name, operand, args);
            return Value::boolean(e.negated ? !r : r);
        }
        case ast::ExprKind::Not:
            return Value::boolean(!eval(*e.object).truthy());
        case ast::ExprKind::Neg:
        case ast::ExprKind::Pos: {
            Value v = eval(*e.object);
            if (v.is_undefined()) fail(e.offset, v.undefined_name());
            if (!v.is_number() && !v.is_bool())
                fail(e.offset, "bad operand type for unary " +
                                   std::string(e.kind == ast::ExprKind::Neg ? "-" : "+") + ": '" +
                                   std::string(type_name(v)) + "'");
            if (e.kind == ast::ExprKind::Pos) return v.is_bool() ? Value::integer(v.as_int()) : v;
            if (v.is_float()) return Value::number(-v.as_double());
            if (v.as_int() == std::numeric_limits<int64_t>::min())
                fail(e.offset, "integer overflow");
            return Value::integer(-v.as_int());
        }
        case ast::ExprKind::Binary:
            return eval_binary(e);
        case ast::ExprKind::Compare:
            return eval_compare(e);
        case ast::ExprKind::Conditional:
            if (eval(*e.a).truthy()) return eval(*e.object);
            if (e.b) return eval(*e.b);
            return Value::undefined(
                "the inline if expression evaluated to false and no else "
                "section was defined");
    }
    return Value();
}

CallArgs Evaluator::eval_args(const ast::Expr& e) {
    CallArgs args;
    args.offset = e.offset;
    for (const auto& item : e.items) args.positional.push_back(eval(*item));
    for (const auto& [k, v] : e.kwargs) args.kwargs.emplace_back(k, eval(*v));
    return args;
}

Value Evaluator::get_attr(const Value& obj, const std::string& name, size_t offset) {
    if (obj.is_undefined()) fail(offset, obj.undefined_name());
    if (obj.is_dict()) {
        if (const Value* v = obj.dict_obj().find(name)) return *v;
    }
    std::string desc = "None";
    if (!obj.is_none()) desc = std::string("'").append(object_desc(obj)).append("'");
    return Value::undefined(desc + " has no attribute '" + name + "'");
}

Value Evaluator::get_item(const Value& obj, const Value& key, size_t offset) {
    if (obj.is_undefined()) fail(offset, obj.undefined_name());
    if ((obj.is_list() || obj.is_string()) && is_intlike(key)) {
        int64_t i = key.as_int();
        if (obj.is_list()) {
            int64_t n = static_cast<int64_t>(obj.items().size());
            if (i < 0) i += n;
            if (i >= 0 && i < n) return obj.items()[static_cast<size_t>(i)];
        } else {
            auto starts = text_ops::char_starts(obj.str());
            int64_t n = static_cast<int64_t>(starts.size()) - 1;
            if (i < 0) i += n;
            if (i >= 0 && i < n) {
                size_t b = starts[static_cast<size_t>(i)];
                return Value::string(obj.text().substr(b, starts[static_cast<size_t>(i) + 1] - b));
            }
        }
        return Value::undefined(std::string("'")
                                    .append(object_desc(obj))
                                    .append("' has no element ")
                                    .append(std::to_string(key.as_int())));
    }
    if (obj.is_dict()) {
        if (const Value* v = obj.dict_obj().find(key)) return *v;
        return Value::undefined(std::string("'")
                                    .append(object_desc(obj))
                                    .append("' has no attribute ")
                                    .append(repr(key)));
    }
    if (obj.is_list() && key.is_string()) return get_attr(obj, key.str(), offset);
    return Value::undefined(
        std::string("'").append(object_desc(obj)).append("' has no element ").append(repr(key)));
}

Value Evaluator::eval_slice(const ast::Expr& e) {
    Value obj = eval(*e.object);
    if (obj.is_undefined()) fail(e.offset, obj.undefined_name());
    std::optional<int64_t> parts[3];
    const ast::ExprPtr* exprs[3] = {&e.a, &e.b, &e.c};
    for (int i = 0; i < 3; ++i) {
        if (!*exprs[i]) continue;
        Value v = eval(**exprs[i]);
        if (v.is_none()) continue;
        if (!is_intlike(v)) fail(e.offset, "slice indices must be integers or None");
        parts[i] = v.as_int();
    }
    if (parts[2] && *parts[2] == 0) fail(e.offset, "slice step cannot be zero");
    if (obj.is_list()) {
        const auto& items = obj.items();
        charge_list(items.size(), e.offset);
        ValueList out;
        for (int64_t i : text_ops::slice_indices(static_cast<int64_t>(items.size()), parts[0],
                                                 parts[1], parts[2]))
            out.push_back(items[static_cast<size_t>(i)]);
        return Value::list(std::move(out), obj.is_tuple());
    }
    if (obj.is_string()) {
        auto starts = text_ops::char_starts(obj.str());
        charge(obj.str().size(), e.offset);
        Text out;
        for (int64_t i : text_ops::slice_indices(static_cast<int64_t>(starts.size()) - 1, parts[0],
                                                 parts[1], parts[2])) {
            size_t b = starts[static_cast<size_t>(i)];
            out.append(obj.text().substr(b, starts[static_cast<size_t>(i) + 1] - b));
        }
        return Value::string(std::move(out));
    }
    fail(e.offset, "'" + std::string(type_name(obj)) + "' object is not subscriptable");
}

Value Evaluator::eval_call(const ast::Expr& e) {
    if (e.object->kind == ast::ExprKind::Attr) {
        Value obj = eval(*e.object->object);
        if (obj.is_undefined()) fail(e.offset, obj.undefined_name());
        CallArgs args = eval_args(e);
        if (auto r = call_method(*this, obj, e.object->name, args)) {
            charge_result(*r, e.offset);
            return std::move(*r);
        }
        Value fn = get_attr(obj, e.object->name, e.offset);
        if (fn.is_undefined()) fail(e.offset, fn.undefined_name());
        return call(fn, args);
    }
    Value fn = eval(*e.object);
    CallArgs args = eval_args(e);
    return call(fn, args);
}

Value Evaluator::eval_filter(const ast::Expr& e, const Value* block_input) {
    Value operand;
    if (!e.object) {
        operand = block_input ? *block_input : Value();
    } else if (block_input && e.object->kind == ast::ExprKind::Filter) {
        operand = eval_filter(*e.object, block_input);
    } else {
        operand = eval(*e.object);
    }
    CallArgs args = eval_args(e);
    Value out = apply_filter(*this, e.name, operand, args);
    charge_result(out, e.offset);
    return out;
}

Value Evaluator::eval_binary(const ast::Expr& e) {
    if (e.name == "and") {
        Value l = eval(*e.a);
        return l.truthy() ? eval(*e.b) : l;
    }
    if (e.name == "or") {
        Value l = eval(*e.a);
        return l.truthy() ? l : eval(*e.b);
    }
    Value l = eval(*e.a);
    Value r = eval(*e.b);
    if (e.name == "~") {
        Text t = to_text(l);
        Text rt = to_text(r);
        check_size(t.str.size() + rt.str.size(), e.offset);
        charge(t.str.size() + rt.str.size(), e.offset);
        t.append(rt);
        return Value::string(std::move(t));
    }
    return arithmetic(e.name, l, r, e.offset);
}

Value Evaluator::arithmetic(const std::string& op, const Value& a, const Value& b, size_t off) {
    if (a.is_undefined()) fail(off, a.undefined_name());
    if (b.is_undefined()) fail(off, b.undefined_name());
    auto type_error = [&]() -> Value {
        fail(off, "unsupported operand type(s) for " + op + ": '" + std::string(type_name(a)) +
                      "' and '" + std::string(type_name(b)) + "'");
    };
    bool nums = (a.is_number() || a.is_bool()) && (b.is_number() || b.is_bool());
    bool ints = is_intlike(a) && is_intlike(b);
    if (op == "+") {
        if (a.is_string() && b.is_string()) {
            check_size(a.str().size() + b.str().size(), off);
            charge(a.str().size() + b.str().size(), off);
            Text t = a.text();
            t.append(b.text());
            return Value::string(std::move(t));
        }
        if (a.is_list() && b.is_list()) {
            check_elements(a.items().size() + b.items().size(), off);
            charge_list(a.items().size() + b.items().size(), off);
            ValueList items = a.items();
            items.insert(items.end(), b.items().begin(), b.items().end());
            return Value::list(std::move(items), a.is_tuple());
        }
        if (ints) {
            int64_t r;
            if (__builtin_add_overflow(a.as_int(), b.as_int(), &r)) fail(off, "integer overflow");
            return Value::integer(r);
        }
        if (nums) return Value::number(a.as_double() + b.as_double());
        return type_error();
    }
    if (op == "-") {
        if (ints) {
            int64_t r;
            if (__builtin_sub_overflow(a.as_int(), b.as_int(), &r)) fail(off, "integer overflow");
            return Value::integer(r);
        }
        if (nums) return Value::number(a.as_double() - b.as_double());
        return type_error();
    }
    if (op == "*") {
        const Value* seq = a.is_string() || a.is_list()   ? &a
                           : b.is_string() || b.is_list() ? &b
                                                          : nullptr;
        const Value* count = seq == &a ? &b : &a;
        if (seq && is_intlike(*count)) {
            int64_t n = std::max<int64_t>(0, count->as_int());
            size_t unit = seq->is_string() ? seq->str().size() : seq->items().size();
            if (unit == 0) n = 0;
            if (seq->is_string() && unit != 0 &&
                static_cast<uint64_t>(n) > limits_.max_output_bytes / unit)
                check_size(limits_.max_output_bytes + 1, off);
            if (seq->is_list() && unit != 0 &&
                static_cast<uint64_t>(n) > limits_.max_list_elements / unit)
                check_elements(limits_.max_list_elements + 1, off);
            if (seq->is_string()) {
                charge(static_cast<uint64_t>(n) * unit, off);
                Text t;
                for (int64_t i = 0; i < n; ++i) t.append(seq->text());
                return Value::string(std::move(t));
            }
            charge_list(static_cast<size_t>(n) * unit, off);
            ValueList items;
            for (int64_t i = 0; i < n; ++i)
                items.insert(items.end(), seq->items().begin(), seq->items().end());
            return Value::list(std::move(items), seq->is_tuple());
        }
        if (ints) {
            int64_t r;
            if (__builtin_mul_overflow(a.as_int(), b.as_int(), &r)) fail(off, "integer overflow");
            return Value::integer(r);
        }
        if (nums) return Value::number(a.as_double() * b.as_double());
        return type_error();
    }
    if (op == "/") {
        if (!nums) return type_error();
        if (b.as_double() == 0.0) fail(off, "division by zero");
        return Value::number(a.as_double() / b.as_double());
    }
    if (op == "//") {
        if (!nums) return type_error();
        if (b.as_double() == 0.0) fail(off, "integer division or modulo by zero");
        if (ints) {
            if (a.as_int() == std::numeric_limits<int64_t>::min() && b.as_int() == -1)
                fail(off, "integer overflow");
            return Value::integer(floor_div(a.as_int(), b.as_int()));
        }
        return Value::number(std::floor(a.as_double() / b.as_double()));
    }
    if (op == "%") {
        if (a.is_string()) {
            if (b.is_list() && b.is_tuple())
                return format_percent(*this, a.text(), b.items(), nullptr, off);
            return format_percent(*this, a.text(), {b}, b.is_dict() ? &b : nullptr, off);
        }
        if (!nums) return type_error();
        if (b.as_double() == 0.0) fail(off, "integer division or modulo by zero");
        if (ints) {
            if (b.as_int() == -1) return Value::integer(0);
            int64_t m = a.as_int() % b.as_int();
            if (m != 0 && ((m < 0) != (b.as_int() < 0))) m += b.as_int();
            return Value::integer(m);
        }
        double m = std::fmod(a.as_double(), b.as_double());
        if (m != 0 && ((m < 0) != (b.as_double() < 0))) m += b.as_double();
        return Value::number(m);
    }
    if (op == "**") {
        if (!nums) return type_error();
        if (ints && b.as_int() >= 0) {
            int64_t base = a.as_int(), result = 1;
            for (int64_t i = 0; i < b.as_int(); ++i) {
                if (__builtin_mul_overflow(result, base, &result)) fail(off, "integer overflow");
                if (result == 0 || result == 1) break;
                if (result == -1) {  // (-1)**n only depends on the parity of n
                    result = ((b.as_int() - i - 1) % 2 == 0) ? -1 : 1;
                    break;
                }
            }
            return Value::integer(result);
        }
        return Value::number(std::pow(a.as_double(), b.as_double()));
    }
    return type_error();
}

Value Evaluator::eval_compare(const ast::Expr& e) {
    Value left = eval(*e.object);
    for (const auto& [op, operand] : e.ops) {
        Value right = eval(*operand);
        bool r = false;
        if (op == "==") {
            r = left.equals(right);
        } else if (op == "!=") {
            r = !left.equals(right);
        } else if (op == "in" || op == "not in") {
            if (right.is_string()) {
                if (!left.is_string())
                    fail(operand->offset, "'in <string>' requires string as left operand, not " +
                                              std::string(type_name(left)));
                r = right.str().find(left.str()) != std::string::npos;
            } else if (right.is_list()) {
                for (const auto& item : right.items())
                    if (item.equals(left)) r = true;
            } else if (right.is_dict()) {
                r = right.dict_obj().find(left) != nullptr;
            } else if (!right.is_undefined()) {
                fail(operand->offset,
                     "argument of type '" + std::string(type_name(right)) + "' is not iterable");
            }
            if (op == "not in") r = !r;
        } else {
            int c = 0;
            if ((left.is_number() || left.is_bool()) && (right.is_number() || right.is_bool())) {
                double a = left.as_double(), b = right.as_double();
                if (is_intlike(left) && is_intlike(right)) {
                    c = left.as_int() < right.as_int() ? -1 : left.as_int() > right.as_int();
                } else {
                    c = a < b ? -1 : a > b ? 1 : 0;
                }
            } else if (left.is_string() && right.is_string()) {
                c = left.str().compare(right.str());
                c = c < 0 ? -1 : c > 0;
            } else if (left.is_list() && right.is_list() && left.is_tuple() == right.is_tuple()) {
                c = compare_values(*this, left, right, true, e.offset);  // element by element
            } else {
                if (left.is_undefined()) fail(e.offset, left.undefined_name());
                if (right.is_undefined()) fail(e.offset, right.undefined_name());
                fail(e.offset, "'" + op + "' not supported between instances of '" +
                                   std::string(type_name(left)) + "' and '" +
                                   std::string(type_name(right)) + "'");
            }
            if (op == "<")
                r = c < 0;
            else if (op == "<=")
                r = c <= 0;
            else if (op == ">")
                r = c > 0;
            else
                r = c >= 0;
        }
        if (!r) return Value::boolean(false);
        left = std::move(right);
    }
    return Value::boolean(true);
}

}  // namespace hearth::chat
