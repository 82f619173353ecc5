// Expressions, with Jinja2's precedence: conditional, or, and, not, comparisons, + -, ~,
// * / // %, **, unary, then postfix (attribute, subscript, call) and filters/tests.
#include <cerrno>
#include <cstdlib>

#include "chat/parser_impl.h"

namespace hearth::chat::parser_detail {

ExprPtr Parser::parse_tuple(bool with_condexpr) {
    size_t off = cur().offset;
    ExprPtr first = parse_expression(with_condexpr);
    if (!is_op(",")) return first;
    auto tuple = std::make_unique<Expr>(ExprKind::Tuple, off);
    tuple->items.push_back(std::move(first));
    while (skip_op(",")) {
        if (cur().type == TokenType::BlockEnd || cur().type == TokenType::VarEnd || is_op(")"))
            break;
        tuple->items.push_back(parse_expression(with_condexpr));
    }
    return seal(std::move(tuple));
}

ExprPtr Parser::parse_expression(bool with_condexpr) {
    DepthGuard guard(*this, cur().offset);
    ExprPtr e = parse_or();
    if (!with_condexpr) return e;
    while (is_name("if")) {
        size_t off = cur().offset;
        next();
        auto cond = std::make_unique<Expr>(ExprKind::Conditional, off);
        cond->a = parse_or();         // condition
        cond->object = std::move(e);  // value when true
        if (skip_name("else")) cond->b = parse_expression(true);
        e = seal(std::move(cond));
    }
    return e;
}

ExprPtr Parser::binary(const char* op, size_t off, ExprPtr l, ExprPtr r) {
    auto e = std::make_unique<Expr>(ExprKind::Binary, off);
    e->name = op;
    e->a = std::move(l);
    e->b = std::move(r);
    return seal(std::move(e));
}

ExprPtr Parser::parse_or() {
    ExprPtr l = parse_and();
    while (is_name("or")) {
        size_t off = cur().offset;
        next();
        l = binary("or", off, std::move(l), parse_and());
    }
    return l;
}

ExprPtr Parser::parse_and() {
    ExprPtr l = parse_not();
    while (is_name("and")) {
        size_t off = cur().offset;
        next();
        l = binary("and", off, std::move(l), parse_not());
    }
    return l;
}

ExprPtr Parser::parse_not() {
    if (is_name("not")) {
        DepthGuard guard(*this, cur().offset);
        auto e = std::make_unique<Expr>(ExprKind::Not, cur().offset);
        next();
        e->object = parse_not();
        return seal(std::move(e));
    }
    return parse_compare();
}

ExprPtr Parser::parse_compare() {
    size_t off = cur().offset;
    ExprPtr first = parse_math1();
    std::vector<std::pair<std::string, ExprPtr>> ops;
    for (;;) {
        if (cur().type == TokenType::Operator &&
            (cur().value == "==" || cur().value == "!=" || cur().value == "<" ||
             cur().value == "<=" || cur().value == ">" || cur().value == ">=")) {
            std::string op = cur().value;
            next();
            ops.emplace_back(op, parse_math1());
        } else if (is_name("in")) {
            next();
            ops.emplace_back("in", parse_math1());
        } else if (is_name("not") && peek().type == TokenType::Name && peek().value == "in") {
            next();
            next();
            ops.emplace_back("not in", parse_math1());
        } else {
            break;
        }
    }
    if (ops.empty()) return first;
    auto e = std::make_unique<Expr>(ExprKind::Compare, off);
    e->object = std::move(first);
    e->ops = std::move(ops);
    return seal(std::move(e));
}

ExprPtr Parser::parse_math1() {
    ExprPtr l = parse_concat();
    while (is_op("+") || is_op("-")) {
        std::string op = cur().value;
        size_t off = cur().offset;
        next();
        l = binary(op == "+" ? "+" : "-", off, std::move(l), parse_concat());
    }
    return l;
}

ExprPtr Parser::parse_concat() {
    ExprPtr l = parse_math2();
    while (is_op("~")) {
        size_t off = cur().offset;
        next();
        l = binary("~", off, std::move(l), parse_math2());
    }
    return l;
}

ExprPtr Parser::parse_math2() {
    ExprPtr l = parse_pow();
    while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
        std::string op = cur().value;
        size_t off = cur().offset;
        next();
        auto e = std::make_unique<Expr>(ExprKind::Binary, off);
        e->name = op;
        e->a = std::move(l);
        e->b = parse_pow();
        l = seal(std::move(e));
    }
    return l;
}

ExprPtr Parser::parse_pow() {
    ExprPtr l = parse_unary(true);
    while (is_op("**")) {
        size_t off = cur().offset;
        next();
        l = binary("**", off, std::move(l), parse_unary(true));
    }
    return l;
}

ExprPtr Parser::parse_unary(bool with_filter) {
    DepthGuard guard(*this, cur().offset);
    ExprPtr node;
    if (is_op("-") || is_op("+")) {
        auto e = std::make_unique<Expr>(is_op("-") ? ExprKind::Neg : ExprKind::Pos, cur().offset);
        next();
        e->object = parse_unary(false);
        node = seal(std::move(e));
    } else {
        node = parse_primary();
    }
    node = parse_postfix(std::move(node));
    if (with_filter) node = parse_filter_expr(std::move(node));
    return node;
}

ExprPtr Parser::parse_primary() {
    const Token& tk = cur();
    size_t off = tk.offset;
    switch (tk.type) {
        case TokenType::Name: {
            auto e = std::make_unique<Expr>(ExprKind::Literal, off);
            const std::string& n = tk.value;
            if (n == "true" || n == "True")
                e->value = Value::boolean(true);
            else if (n == "false" || n == "False")
                e->value = Value::boolean(false);
            else if (n == "none" || n == "None")
                e->value = Value::none();
            else {
                e->kind = ExprKind::Name;
                e->name = n;
            }
            next();
            return e;
        }
        case TokenType::String: {
            std::string s;
            while (cur().type == TokenType::String) {
                s += cur().value;
                next();
            }
            auto e = std::make_unique<Expr>(ExprKind::Literal, off);
            e->value = Value::string(std::move(s));
            return e;
        }
        case TokenType::Integer: {
            errno = 0;
            long long v = std::strtoll(tk.value.c_str(), nullptr, 10);
            if (errno == ERANGE) fail(off, "integer literal too large");
            auto e = std::make_unique<Expr>(ExprKind::Literal, off);
            e->value = Value::integer(v);
            next();
            return e;
        }
        case TokenType::Float: {
            auto e = std::make_unique<Expr>(ExprKind::Literal, off);
            e->value = Value::number(std::strtod(tk.value.c_str(), nullptr));
            next();
            return e;
        }
        case TokenType::Operator:
            if (tk.value == "(") {
                next();
                if (skip_op(")")) return std::make_unique<Expr>(ExprKind::Tuple, off);
                ExprPtr inner = parse_tuple(true);
                expect_op(")");
                return inner;
            }
            if (tk.value == "[") {
                next();
                auto e = std::make_unique<Expr>(ExprKind::List, off);
                while (!is_op("]")) {
                    if (!e->items.empty()) expect_op(",");
                    if (is_op("]")) break;
                    e->items.push_back(parse_expression(true));
                }
                next();
                return seal(std::move(e));
            }
            if (tk.value == "{") {
                next();
                auto e = std::make_unique<Expr>(ExprKind::Dict, off);
                while (!is_op("}")) {
                    if (!e->pairs.empty()) expect_op(",");
                    if (is_op("}")) break;
                    ExprPtr k = parse_expression(true);
                    expect_op(":");
                    e->pairs.emplace_back(std::move(k), parse_expression(true));
                }
                next();
                return seal(std::move(e));
            }
            break;
        default:
            break;
    }
    fail(off, "expected an expression" + found());
}

void Parser::parse_call_args(Expr& e) {
    expect_op("(");
    while (!is_op(")")) {
        if (!e.items.empty() || !e.kwargs.empty()) expect_op(",");
        if (is_op(")")) break;
        if (cur().type == TokenType::Name && peek().type == TokenType::Operator &&
            peek().value == "=") {
            std::string key = cur().value;
            next();
            next();
            e.kwargs.emplace_back(key, parse_expression(true));
        } else {
            if (!e.kwargs.empty()) fail(cur().offset, "positional argument after keyword");
            e.items.push_back(parse_expression(true));
        }
    }
    next();
}

ExprPtr Parser::parse_postfix(ExprPtr node) {
    for (;;) {
        size_t off = cur().offset;
        if (is_op(".")) {
            next();
            if (cur().type == TokenType::Integer) {
                auto e = std::make_unique<Expr>(ExprKind::Item, off);
                e->object = std::move(node);
                e->a = parse_primary();
                node = seal(std::move(e));
                continue;
            }
            auto e = std::make_unique<Expr>(ExprKind::Attr, off);
            e->object = std::move(node);
            e->name = expect_name();
            node = seal(std::move(e));
        } else if (is_op("[")) {
            next();
            node = seal(parse_subscript(std::move(node), off));
        } else if (is_op("(")) {
            auto e = std::make_unique<Expr>(ExprKind::Call, off);
            e->object = std::move(node);
            parse_call_args(*e);
            node = seal(std::move(e));
        } else {
            return node;
        }
    }
}

ExprPtr Parser::parse_subscript(ExprPtr object, size_t off) {
    ExprPtr parts[3];
    int idx = 0;
    bool slice = false;
    while (!is_op("]")) {
        if (is_op(":")) {
            slice = true;
            if (++idx > 2) fail(cur().offset, "too many ':' in slice");
            next();
            continue;
        }
        if (parts[idx]) fail(cur().offset, "expected ']'" + found());
        parts[idx] = parse_expression(true);
    }
    next();
    if (!slice) {
        if (!parts[0]) fail(off, "empty subscript");
        auto e = std::make_unique<Expr>(ExprKind::Item, off);
        e->object = std::move(object);
        e->a = std::move(parts[0]);
        return e;
    }
    auto e = std::make_unique<Expr>(ExprKind::Slice, off);
    e->object = std::move(object);
    e->a = std::move(parts[0]);
    e->b = std::move(parts[1]);
    e->c = std::move(parts[2]);
    return e;
}

ExprPtr Parser::parse_filter(ExprPtr operand) {
    size_t off = cur().offset;
    auto e = std::make_unique<Expr>(ExprKind::Filter, off);
    e->name = expect_name();
    while (skip_op(".")) {
        const std::string part = expect_name();
        e->name += '.';
        e->name += part;
    }
    e->object = std::move(operand);
    if (is_op("(")) parse_call_args(*e);
    return seal(std::move(e));
}

ExprPtr Parser::parse_filter_expr(ExprPtr node) {
    for (;;) {
        if (skip_op("|")) {
            node = parse_filter(std::move(node));
        } else if (is_name("is")) {
            size_t off = cur().offset;
            next();
            auto e = std::make_unique<Expr>(ExprKind::Test, off);
            e->negated = skip_name("not");
            e->name = expect_name();
            e->object = std::move(node);
            if (is_op("(")) {
                parse_call_args(*e);
            } else if (takes_bare_test_arg()) {
                ExprPtr arg = parse_primary();
                e->items.push_back(parse_postfix(std::move(arg)));
            }
            node = seal(std::move(e));
        } else {
            return node;
        }
    }
}

bool Parser::takes_bare_test_arg() const {
    const Token& tk = cur();
    if (tk.type == TokenType::String || tk.type == TokenType::Integer ||
        tk.type == TokenType::Float)
        return true;
    if (tk.type == TokenType::Operator) return tk.value == "[" || tk.value == "{";
    if (tk.type != TokenType::Name) return false;
    for (const char* kw : {"else", "or", "and", "if", "is", "in", "not", "recursive"})
        if (tk.value == kw) return false;
    return true;
}

}  // namespace hearth::chat::parser_detail
