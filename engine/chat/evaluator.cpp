// Statements, scopes, output and calls. Expressions are in evaluator_expr.cpp.
#include "chat/evaluator.h"
#include "chat/globals.h"

#include "chat/text_ops.h"

namespace hearth::chat {

const Value* CallArgs::get(size_t i, std::string_view name) const {
    if (i < positional.size()) return &positional[i];
    return kwarg(name);
}

const Value* CallArgs::kwarg(std::string_view name) const {
    for (const auto& [k, v] : kwargs)
        if (k == name) return &v;
    return nullptr;
}

Value* Evaluator::Scope::find(const std::string& name) {
    for (Scope* s = this; s; s = s->parent)
        for (auto& [k, v] : s->vars)
            if (k == name) return &v;
    return nullptr;
}

void Evaluator::Scope::set(const std::string& name, Value v) {
    for (auto& [k, old] : vars) {
        if (k == name) {
            old = std::move(v);
            return;
        }
    }
    vars.emplace_back(name, std::move(v));
}

Evaluator::DepthGuard::DepthGuard(Evaluator& e, size_t offset) : ev(e) {
    if (++ev.depth_ > ev.limits_.max_recursion_depth) {
        --ev.depth_;
        ev.fail(offset, "recursion limit exceeded (" +
                            std::to_string(ev.limits_.max_recursion_depth) + " levels)");
    }
}

Evaluator::Evaluator(const SourceMap& map, const Limits& limits, std::optional<std::time_t> now)
    : map_(map), limits_(limits), now_(now) {}

void Evaluator::fail(size_t offset, std::string message) const {
    throw EvalError{offset, std::move(message)};
}

std::time_t Evaluator::now() const {
    return now_ ? *now_ : std::time(nullptr);
}

void Evaluator::check_size(size_t bytes, size_t offset) const {
    if (bytes > limits_.max_output_bytes)
        fail(offset,
             "output size limit exceeded (" + std::to_string(limits_.max_output_bytes) + " bytes)");
}

void Evaluator::charge(uint64_t bytes, size_t offset) {
    work_ += bytes;
    if (work_ > limits_.max_work_bytes)
        fail(offset, "work limit exceeded (" + std::to_string(limits_.max_work_bytes) +
                         " bytes built in one render)");
}

void Evaluator::charge_result(const Value& v, size_t offset) {
    if (v.is_string()) charge(v.str().size(), offset);
    if (v.is_list()) charge_list(v.items().size(), offset);
}

void Evaluator::check_elements(size_t n, size_t offset) const {
    if (n > limits_.max_list_elements)
        fail(offset, "list size limit exceeded (" + std::to_string(limits_.max_list_elements) +
                         " elements)");
}

void Evaluator::check_depth(const Value& v, size_t offset) const {
    if (nesting(v) > limits_.max_value_depth) fail(offset, "value nested too deeply");
}

void Evaluator::count_iterations(uint64_t n, size_t offset) {
    iterations_ += n;
    if (iterations_ > limits_.max_loop_iterations)
        fail(offset, "loop iteration limit exceeded (" +
                         std::to_string(limits_.max_loop_iterations) + " iterations)");
}

Text Evaluator::render(const ast::Body& body, const Value& context) {
    Scope globals;
    for (auto& [name, v] : builtin_globals()) globals.set(name, std::move(v));
    Scope root;
    root.parent = &globals;
    if (context.is_dict())
        for (const auto& [k, v] : context.dict_obj().items)
            if (k.is_string()) root.set(k.str(), v);
    root_ = scope_ = &root;
    Text out;
    out_.push_back(&out);
    exec_body(body);
    out_.clear();
    root_ = scope_ = nullptr;
    return out;
}

void Evaluator::write_output(const Text& t, size_t offset) {
    Text& out = *out_.back();
    check_size(out.str.size() + t.str.size(), offset);
    charge(t.str.size(), offset);
    out.append(t);
}

Value Evaluator::lookup(const std::string& name, size_t) {
    if (Value* v = scope_->find(name)) return *v;
    return Value::undefined("'" + name + "' is undefined");
}

Evaluator::Flow Evaluator::exec_body(const ast::Body& body) {
    for (const auto& s : body) {
        Flow f = exec(*s);
        if (f != Flow::Normal) return f;
    }
    return Flow::Normal;
}

Evaluator::Flow Evaluator::exec(const ast::Stmt& s) {
    DepthGuard guard(*this, s.offset);
    switch (s.kind) {
        case ast::StmtKind::Text:
            write_output(Text(s.text), s.offset);
            break;
        case ast::StmtKind::Emit: {
            Value v = eval(*s.expr);
            if (!v.is_undefined()) write_output(to_text(v), s.offset);
            break;
        }
        case ast::StmtKind::If:
            for (const auto& [cond, body] : s.branches)
                if (eval(*cond).truthy()) return exec_body(body);
            return exec_body(s.else_body);
        case ast::StmtKind::For:
            exec_for(s);
            break;
        case ast::StmtKind::Set:
            exec_set(s);
            break;
        case ast::StmtKind::SetBlock:
            scope_->set(s.targets[0], Value::string(capture(s.body, *scope_)));
            break;
        case ast::StmtKind::Macro:
            exec_macro(s);
            break;
        case ast::StmtKind::CallBlock:
            exec_call_block(s);
            break;
        case ast::StmtKind::FilterBlock: {
            Value input = Value::string(capture(s.body, *scope_));
            write_output(to_text(eval_filter(*s.expr, &input)), s.offset);
            break;
        }
        case ast::StmtKind::Break:
            return Flow::Break;
        case ast::StmtKind::Continue:
            return Flow::Continue;
        case ast::StmtKind::Block:
            return exec_body(s.body);
    }
    return Flow::Normal;
}

Text Evaluator::capture(const ast::Body& body, Scope& scope) {
    Text out;
    Scope* saved_scope = scope_;
    scope_ = &scope;
    out_.push_back(&out);
    exec_body(body);
    out_.pop_back();
    scope_ = saved_scope;
    return out;
}

void Evaluator::assign_targets(Scope& scope, const std::vector<std::string>& names, const Value& v,
                               size_t offset) {
    if (names.size() == 1) {
        scope.set(names[0], v);
        return;
    }
    const ValueList* items = nullptr;
    ValueList chars;
    if (v.is_list()) {
        items = &v.items();
    } else if (v.is_string()) {
        auto starts = text_ops::char_starts(v.str());
        check_elements(starts.size() - 1, offset);
        for (size_t i = 0; i + 1 < starts.size(); ++i)
            chars.push_back(Value::string(v.text().substr(starts[i], starts[i + 1] - starts[i])));
        items = &chars;
    } else {
        fail(offset, "cannot unpack a value of type '" + std::string(type_name(v)) + "'");
    }
    if (items->size() != names.size())
        fail(offset, "expected " + std::to_string(names.size()) + " values to unpack, got " +
                         std::to_string(items->size()));
    for (size_t i = 0; i < names.size(); ++i) scope.set(names[i], (*items)[i]);
}

namespace {

// Values that could make a reference cycle (namespaces, callables) may not be stored in a
// namespace attribute: shared ownership would leak, and printing would never end.
bool holds_reference(const Value& v, int depth) {
    if (depth > 256) return true;
    if (v.is_callable()) return true;
    if (v.is_dict()) {
        if (v.dict_obj().is_namespace || v.dict_obj().is_loop) return true;
        for (const auto& [k, item] : v.dict_obj().items)
            if (holds_reference(item, depth + 1)) return true;
    }
    if (v.is_list())
        for (const auto& item : v.items())
            if (holds_reference(item, depth + 1)) return true;
    return false;
}

}  // namespace

void Evaluator::exec_set(const ast::Stmt& s) {
    Value v = eval(*s.expr);
    if (s.attr.empty()) {
        assign_targets(*scope_, s.targets, v, s.offset);
        return;
    }
    Value* target = scope_->find(s.targets[0]);
    if (!target || !target->is_dict() || !target->dict_obj().is_namespace)
        fail(s.offset,
             "cannot assign attribute on a non-namespace object ('" + s.targets[0] + "')");
    if (holds_reference(v, 0))
        fail(s.offset, "cannot store a namespace, loop or macro in a namespace attribute");
    target->mutable_dict().set(Value::string(s.attr), std::move(v));
    check_depth(*target, s.offset);
}

void Evaluator::exec_for(const ast::Stmt& s) {
    if (s.recursive) fail(s.offset, "recursive for loops are not supported");
    Value iterable = eval(*s.expr);
    ValueList items;
    switch (iterable.kind()) {
        case Value::Kind::Undefined:
            break;
        case Value::Kind::List:
            items = iterable.items();
            break;
        case Value::Kind::Dict:
            if (iterable.dict_obj().is_namespace || iterable.dict_obj().is_loop)
                fail(s.offset, "object is not iterable");
            for (const auto& [k, v] : iterable.dict_obj().items) items.push_back(k);
            break;
        case Value::Kind::String: {
            auto starts = text_ops::char_starts(iterable.str());
            check_elements(starts.size() - 1, s.offset);
            for (size_t i = 0; i + 1 < starts.size(); ++i)
                items.push_back(
                    Value::string(iterable.text().substr(starts[i], starts[i + 1] - starts[i])));
            break;
        }
        default:
            fail(s.expr->offset,
                 "'" + std::string(type_name(iterable)) + "' object is not iterable");
    }
    Scope loop_scope;
    loop_scope.parent = scope_;
    Scope* saved = scope_;
    scope_ = &loop_scope;
    if (s.cond) {
        ValueList kept;
        for (auto& item : items) {
            count_iterations(1, s.offset);
            assign_targets(loop_scope, s.targets, item, s.offset);
            if (eval(*s.cond).truthy()) kept.push_back(std::move(item));
        }
        items = std::move(kept);
    }
    const int64_t n = static_cast<int64_t>(items.size());
    charge_list(items.size(), s.offset);
    // One `loop` object, its per-iteration fields updated in place: building a fresh one of 11
    // attributes per iteration cost more allocations than most loop bodies. Nothing a template can
    // write keeps it past its iteration (sets are per iteration, namespaces refuse it); should a
    // reference survive anyway, it keeps its values and this loop goes on with a copy.
    enum Field {
        Index0,
        Index,
        Revindex0,
        Revindex,
        First,
        Last,
        Length,
        Depth,
        Depth0,
        Prev,
        Next
    };
    auto loop = std::make_shared<DictObj>();
    loop->is_loop = true;
    loop->loop_state = std::make_shared<LoopState>();
    for (const char* name : {"index0", "index", "revindex0", "revindex", "first", "last", "length",
                             "depth", "depth0", "previtem", "nextitem"})
        loop->items.emplace_back(Value::string(name), Value());
    loop->items[Length].second = Value::integer(n);
    loop->items[Depth].second = Value::integer(1);
    loop->items[Depth0].second = Value::integer(0);
    const Value no_prev = Value::undefined("'previtem' is undefined");
    const Value no_next = Value::undefined("'nextitem' is undefined");
    for (int64_t i = 0; i < n; ++i) {
        count_iterations(1, s.offset);
        // Jinja2 gives every iteration a fresh frame: a `set` in one iteration is not seen
        // by the next (that is what namespace() is for).
        loop_scope.vars.clear();
        assign_targets(loop_scope, s.targets, items[static_cast<size_t>(i)], s.offset);
        if (loop.use_count() > 1) loop = std::make_shared<DictObj>(*loop);
        auto& f = loop->items;
        f[Index0].second = Value::integer(i);
        f[Index].second = Value::integer(i + 1);
        f[Revindex0].second = Value::integer(n - i - 1);
        f[Revindex].second = Value::integer(n - i);
        f[First].second = Value::boolean(i == 0);
        f[Last].second = Value::boolean(i == n - 1);
        f[Prev].second = i > 0 ? items[static_cast<size_t>(i - 1)] : no_prev;
        f[Next].second = i + 1 < n ? items[static_cast<size_t>(i + 1)] : no_next;
        loop->depth = 1 + std::max(nesting(f[Prev].second), nesting(f[Next].second));
        loop_scope.set("loop", Value::dict(loop));
        if (exec_body(s.body) == Flow::Break) break;
    }
    scope_ = saved;
    if (n == 0) exec_body(s.else_body);
}

void Evaluator::exec_macro(const ast::Stmt& s) {
    const ast::Stmt* macro = &s;
    scope_->set(s.name, Value::callable(s.name, [macro](Evaluator& ev, CallArgs& args) {
                    return ev.invoke_macro(*macro, args, Value());
                }));
}

Value Evaluator::invoke_macro(const ast::Stmt& macro, CallArgs& args, Value caller) {
    Scope scope;
    scope.parent = root_;
    size_t used = 0;
    for (size_t i = 0; i < macro.params.size(); ++i) {
        const auto& p = macro.params[i];
        if (i < args.positional.size()) {
            scope.set(p.name, args.positional[i]);
            ++used;
        } else if (const Value* kw = args.kwarg(p.name)) {
            scope.set(p.name, *kw);
        } else if (p.default_value) {
            Scope* saved = scope_;
            scope_ = &scope;
            Value d = eval(*p.default_value);
            scope_ = saved;
            scope.set(p.name, std::move(d));
        } else {
            scope.set(p.name, Value::undefined("'" + p.name + "' is undefined"));
        }
    }
    ValueList varargs(args.positional.begin() +
                          static_cast<std::ptrdiff_t>(std::min(used, args.positional.size())),
                      args.positional.end());
    scope.set("varargs", Value::list(std::move(varargs), true));
    Value kwargs = Value::dict();
    for (const auto& [k, v] : args.kwargs) {
        bool is_param = k == "caller";
        for (const auto& p : macro.params) is_param = is_param || p.name == k;
        if (!is_param) kwargs.set(k, v);
    }
    scope.set("kwargs", kwargs);
    if (const Value* c = args.kwarg("caller")) caller = *c;
    if (!caller.is_undefined()) scope.set("caller", caller);
    return Value::string(capture(macro.body, scope));
}

void Evaluator::exec_call_block(const ast::Stmt& s) {
    const ast::Stmt* block = &s;
    Scope* defining = scope_;
    Value caller = Value::callable("caller", [block, defining](Evaluator& ev, CallArgs& args) {
        Scope scope;
        scope.parent = defining;
        for (size_t i = 0; i < block->params.size(); ++i) {
            const auto& p = block->params[i];
            const Value* v = args.get(i, p.name);
            if (v) {
                scope.set(p.name, *v);
            } else if (p.default_value) {
                Scope* saved = ev.scope_;
                ev.scope_ = &scope;
                Value d = ev.eval(*p.default_value);
                ev.scope_ = saved;
                scope.set(p.name, std::move(d));
            }
        }
        return Value::string(ev.capture(block->body, scope));
    });
    const ast::Expr& call_expr = *s.expr;
    Value callee = eval(*call_expr.object);
    CallArgs args = eval_args(call_expr);
    args.kwargs.emplace_back("caller", caller);
    write_output(to_text(call(callee, args)), s.offset);
}

Value Evaluator::call(const Value& fn, CallArgs& args) {
    if (!fn.is_callable()) {
        if (fn.is_undefined()) fail(args.offset, fn.undefined_name());
        fail(args.offset,
             std::string("'").append(type_name(fn)).append("' object is not callable"));
    }
    if (++call_depth_ > limits_.max_call_depth) {
        --call_depth_;
        fail(args.offset,
             "call depth limit exceeded (" + std::to_string(limits_.max_call_depth) + " calls)");
    }
    Value out = fn.callable_obj().fn(*this, args);
    --call_depth_;
    return out;
}

}  // namespace hearth::chat
