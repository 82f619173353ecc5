#include "chat/chat_template.h"

#include <exception>
#include <new>

#include "chat/filters.h"
#include "chat/jinja_tests.h"
#include "chat/lexer.h"
#include "chat/parser.h"

namespace hearth::chat {

struct ChatTemplate::Impl {
    SourceMap map;
    std::string original;
    ast::Body body;
    Limits limits;
};

namespace {

// Jinja2 refuses unknown filters and tests when it compiles a template, even in branches
// that never run; do the same so a broken template is caught before the first message.
std::optional<std::pair<size_t, std::string>> check_expr(const ast::Expr* e) {
    if (!e) return std::nullopt;
    if (e->kind == ast::ExprKind::Filter && !is_known_filter(e->name))
        return std::make_pair(e->offset, "no filter named '" + e->name + "'");
    if (e->kind == ast::ExprKind::Test && !is_known_test(e->name))
        return std::make_pair(e->offset, "no test named '" + e->name + "'");
    for (const ast::Expr* c : {e->object.get(), e->a.get(), e->b.get(), e->c.get()})
        if (auto r = check_expr(c)) return r;
    for (const auto& c : e->items)
        if (auto r = check_expr(c.get())) return r;
    for (const auto& kv : e->kwargs)
        if (auto r = check_expr(kv.second.get())) return r;
    for (const auto& kv : e->pairs) {
        if (auto r = check_expr(kv.first.get())) return r;
        if (auto r = check_expr(kv.second.get())) return r;
    }
    for (const auto& op : e->ops)
        if (auto r = check_expr(op.second.get())) return r;
    return std::nullopt;
}

std::optional<std::pair<size_t, std::string>> check_body(const ast::Body& body) {
    for (const auto& s : body) {
        for (const ast::Expr* e : {s->expr.get(), s->cond.get()})
            if (auto r = check_expr(e)) return r;
        for (const auto& [cond, branch] : s->branches) {
            if (auto r = check_expr(cond.get())) return r;
            if (auto r = check_body(branch)) return r;
        }
        for (const auto& p : s->params)
            if (auto r = check_expr(p.default_value.get())) return r;
        if (auto r = check_body(s->body)) return r;
        if (auto r = check_body(s->else_body)) return r;
    }
    return std::nullopt;
}

}  // namespace

Result<ChatTemplate> ChatTemplate::parse(std::string_view source, const Limits& limits) {
    try {
        auto impl = std::make_shared<Impl>();
        impl->original = std::string(source);
        impl->map = SourceMap(normalize_source(source));
        impl->limits = limits;
        auto tokens = tokenize(impl->map);
        if (!tokens) return tokens.status();
        auto body = parse_template(*tokens, impl->map);
        if (!body) return body.status();
        impl->body = std::move(*body);
        if (auto problem = check_body(impl->body))
            return Result<ChatTemplate>::error(
                format_error(impl->map, problem->first, problem->second));
        return ChatTemplate(std::move(impl));
    } catch (const std::bad_alloc&) {
        return Result<ChatTemplate>::error("out of memory while parsing the chat template");
    } catch (const std::exception& e) {  // e.g. length_error; nothing may escape the API
        return Result<ChatTemplate>::error(std::string("chat template: ") + e.what());
    }
}

const std::string& ChatTemplate::source() const {
    return impl_->original;
}

Value mark_input(const Value& v) {
    switch (v.kind()) {
        case Value::Kind::String:
            return Value::string(v.str(), true);
        case Value::Kind::List: {
            ValueList items;
            for (const auto& item : v.items()) items.push_back(mark_input(item));
            return Value::list(std::move(items), v.is_tuple());
        }
        case Value::Kind::Dict: {
            auto d = std::make_shared<DictObj>();
            for (const auto& [k, item] : v.dict_obj().items) d->set(k, mark_input(item));
            return Value::dict(std::move(d));
        }
        default:
            return v;
    }
}

Value make_context(const ChatInputs& inputs) {
    ValueList messages;
    for (const auto& m : inputs.messages) {
        Value msg = Value::dict();
        msg.set("role", Value::string(m.role));
        msg.set("content", Value::string(m.content, true));
        for (const auto& [k, v] : m.extra) msg.set(k, mark_input(v));
        messages.push_back(std::move(msg));
    }
    Value ctx = Value::dict();
    ctx.set("messages", Value::list(std::move(messages)));
    ctx.set("add_generation_prompt", Value::boolean(inputs.add_generation_prompt));
    ctx.set("bos_token", Value::string(inputs.bos_token));
    ctx.set("eos_token", Value::string(inputs.eos_token));
    // transformers always passes tools and documents, None when the caller has none, so
    // `tools is defined` holds and `tools is not none` does not.
    ctx.set("tools", Value::none());
    ctx.set("documents", Value::none());
    for (const auto& [k, v] : inputs.context) ctx.set(k, v);
    return ctx;
}

RenderedPrompt to_prompt(const Text& text) {
    RenderedPrompt out;
    out.text = text.str;
    size_t pos = 0;
    for (const auto& span : text.input) {
        if (span.begin > pos)
            out.segments.push_back({text.str.substr(pos, span.begin - pos), false});
        out.segments.push_back({text.str.substr(span.begin, span.end - span.begin), true});
        pos = span.end;
    }
    if (pos < text.str.size()) out.segments.push_back({text.str.substr(pos), false});
    return out;
}

Result<RenderedPrompt> ChatTemplate::render(const ChatInputs& inputs) const {
    try {
        Evaluator ev(impl_->map, impl_->limits, inputs.now);
        Text out = ev.render(impl_->body, make_context(inputs));
        return to_prompt(out);
    } catch (const EvalError& e) {
        return Result<RenderedPrompt>::error(format_error(impl_->map, e.offset, e.message));
    } catch (const std::bad_alloc&) {
        return Result<RenderedPrompt>::error("out of memory while rendering the chat template");
    } catch (const std::exception& e) {
        return Result<RenderedPrompt>::error(std::string("chat template: ") + e.what());
    }
}

}  // namespace hearth::chat
