#include "chat/parser.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <initializer_list>
#include <stdexcept>

namespace hearth::chat {

namespace {

using namespace ast;

// Parse failures unwind to parse_template() as this; it never leaves this file.
struct ParseError {
    size_t offset;
    std::string message;
};

class Parser {
public:
    Parser(const std::vector<Token>& tokens) : t_(tokens) {}

    Body parse_all() {
        Body body = parse_body({});
        if (cur().type != TokenType::End) fail(cur().offset, "unexpected tag");
        return body;
    }

private:
    // ---- token helpers ----
    const Token& cur() const { return t_[i_]; }
    const Token& peek(size_t n = 1) const { return t_[std::min(i_ + n, t_.size() - 1)]; }
    void next() {
        if (i_ + 1 < t_.size()) ++i_;
    }
    [[noreturn]] void fail(size_t offset, std::string msg) {
        throw ParseError{offset, std::move(msg)};
    }
    bool is_op(const char* op) const {
        return cur().type == TokenType::Operator && cur().value == op;
    }
    bool is_name(const char* n) const { return cur().type == TokenType::Name && cur().value == n; }
    bool skip_op(const char* op) {
        if (!is_op(op)) return false;
        next();
        return true;
    }
    bool skip_name(const char* n) {
        if (!is_name(n)) return false;
        next();
        return true;
    }
    void expect_op(const char* op) {
        if (!skip_op(op)) fail(cur().offset, std::string("expected '") + op + "'" + found());
    }
    std::string expect_name() {
        if (cur().type != TokenType::Name) fail(cur().offset, "expected a name" + found());
        std::string n = cur().value;
        next();
        return n;
    }
    void expect_block_end() {
        if (cur().type != TokenType::BlockEnd) fail(cur().offset, "expected '%}'" + found());
        next();
    }
    std::string found() const {
        switch (cur().type) {
            case TokenType::End:
                return " but the template ended";
            case TokenType::BlockEnd:
                return ", found '%}'";
            case TokenType::VarEnd:
                return ", found '}}'";
            case TokenType::Text:
                return ", found text";
            default:
                return ", found '" + cur().value + "'";
        }
    }

    struct DepthGuard {
        Parser& p;
        DepthGuard(Parser& parser, size_t offset) : p(parser) {
            if (++p.depth_ > kMaxParseDepth) p.fail(offset, "template nested too deeply");
        }
        ~DepthGuard() { --p.depth_; }
    };

    // Records the height of a new node and refuses trees too deep to evaluate safely.
    ExprPtr seal(ExprPtr e) {
        int h = 0;
        auto see = [&](const ExprPtr& c) {
            if (c) h = std::max(h, c->height);
        };
        see(e->object);
        see(e->a);
        see(e->b);
        see(e->c);
        for (const auto& c : e->items) see(c);
        for (const auto& kv : e->kwargs) see(kv.second);
        for (const auto& kv : e->pairs) {
            see(kv.first);
            see(kv.second);
        }
        for (const auto& op : e->ops) see(op.second);
        e->height = h + 1;
        if (e->height > kMaxExprHeight) fail(e->offset, "expression nested too deeply");
        return e;
    }

    // ---- statements ----
    // Parses until a block tag whose keyword is in `ends` (left unconsumed: cur() is its name).
    Body parse_body(std::initializer_list<const char*> ends) {
        Body body;
        for (;;) {
            const Token& tk = cur();
            if (tk.type == TokenType::End) {
                if (ends.size() != 0)
                    fail(tk.offset, std::string("missing {% ") + *(ends.end() - 1) + " %}");
                return body;
            }
            if (tk.type == TokenType::Text) {
                auto s = std::make_unique<Stmt>(StmtKind::Text, tk.offset);
                s->text = tk.value;
                body.push_back(std::move(s));
                next();
            } else if (tk.type == TokenType::VarBegin) {
                auto s = std::make_unique<Stmt>(StmtKind::Emit, tk.offset);
                next();
                s->expr = parse_tuple(true);
                if (cur().type != TokenType::VarEnd) fail(cur().offset, "expected '}}'" + found());
                next();
                body.push_back(std::move(s));
            } else if (tk.type == TokenType::BlockBegin) {
                const Token& kw = peek();
                if (kw.type != TokenType::Name) fail(kw.offset, "expected a tag name" + found());
                for (const char* e : ends)
                    if (kw.value == e) {
                        next();
                        return body;
                    }
                next();
                body.push_back(parse_statement(tk.offset));
            } else {
                fail(tk.offset, "unexpected token '" + tk.value + "'");
            }
        }
    }

    StmtPtr parse_statement(size_t offset) {
        DepthGuard guard(*this, offset);
        std::string kw = cur().value;
        size_t kw_offset = cur().offset;
        next();
        if (kw == "if") return parse_if(offset);
        if (kw == "for") return parse_for(offset);
        if (kw == "set") return parse_set(offset);
        if (kw == "macro") return parse_macro(offset);
        if (kw == "call") return parse_call_block(offset);
        if (kw == "filter") return parse_filter_block(offset);
        if (kw == "break" || kw == "continue") {
            expect_block_end();
            return std::make_unique<Stmt>(kw == "break" ? StmtKind::Break : StmtKind::Continue,
                                          offset);
        }
        if (kw == "generation") {
            auto s = std::make_unique<Stmt>(StmtKind::Block, offset);
            expect_block_end();
            s->body = parse_body({"endgeneration"});
            next();
            expect_block_end();
            return s;
        }
        if (kw == "include" || kw == "extends" || kw == "import" || kw == "from" || kw == "block" ||
            kw == "with" || kw == "autoescape")
            fail(kw_offset, "unsupported tag '" + kw + "'");
        fail(kw_offset, "unknown tag '" + kw + "'");
    }

    StmtPtr parse_if(size_t offset) {
        auto s = std::make_unique<Stmt>(StmtKind::If, offset);
        for (;;) {
            ExprPtr cond = parse_tuple(true);
            expect_block_end();
            Body body = parse_body({"elif", "else", "endif"});
            s->branches.emplace_back(std::move(cond), std::move(body));
            std::string which = cur().value;
            next();
            if (which == "elif") continue;
            if (which == "else") {
                expect_block_end();
                s->else_body = parse_body({"endif"});
                next();
            }
            expect_block_end();
            return s;
        }
    }

    std::vector<std::string> parse_targets() {
        std::vector<std::string> names;
        bool paren = skip_op("(");
        do {
            names.push_back(expect_name());
        } while (skip_op(","));
        if (paren) expect_op(")");
        return names;
    }

    StmtPtr parse_for(size_t offset) {
        auto s = std::make_unique<Stmt>(StmtKind::For, offset);
        s->targets = parse_targets();
        if (!skip_name("in")) fail(cur().offset, "expected 'in'" + found());
        s->expr = parse_tuple(false);
        if (skip_name("if")) s->cond = parse_expression(true);
        if (skip_name("recursive")) s->recursive = true;
        expect_block_end();
        s->body = parse_body({"else", "endfor"});
        std::string which = cur().value;
        next();
        if (which == "else") {
            expect_block_end();
            s->else_body = parse_body({"endfor"});
            next();
        }
        expect_block_end();
        return s;
    }

    StmtPtr parse_set(size_t offset) {
        std::string first = expect_name();
        if (skip_op(".")) {
            auto s = std::make_unique<Stmt>(StmtKind::Set, offset);
            s->targets.push_back(first);
            s->attr = expect_name();
            expect_op("=");
            s->expr = parse_tuple(true);
            expect_block_end();
            return s;
        }
        std::vector<std::string> names{first};
        while (skip_op(",")) names.push_back(expect_name());
        if (names.size() == 1 && cur().type == TokenType::BlockEnd) {
            auto s = std::make_unique<Stmt>(StmtKind::SetBlock, offset);
            s->targets = names;
            next();
            s->body = parse_body({"endset"});
            next();
            expect_block_end();
            return s;
        }
        auto s = std::make_unique<Stmt>(StmtKind::Set, offset);
        s->targets = std::move(names);
        expect_op("=");
        s->expr = parse_tuple(true);
        expect_block_end();
        return s;
    }

    std::vector<Param> parse_params() {
        std::vector<Param> params;
        expect_op("(");
        while (!is_op(")")) {
            if (!params.empty()) expect_op(",");
            if (is_op(")")) break;
            Param p;
            p.name = expect_name();
            if (skip_op("=")) p.default_value = parse_expression(true);
            params.push_back(std::move(p));
        }
        next();
        return params;
    }

    StmtPtr parse_macro(size_t offset) {
        auto s = std::make_unique<Stmt>(StmtKind::Macro, offset);
        s->name = expect_name();
        s->params = parse_params();
        expect_block_end();
        s->body = parse_body({"endmacro"});
        next();
        if (cur().type == TokenType::Name) next();  // {% endmacro name %}
        expect_block_end();
        return s;
    }

    StmtPtr parse_call_block(size_t offset) {
        auto s = std::make_unique<Stmt>(StmtKind::CallBlock, offset);
        if (is_op("(")) s->params = parse_params();
        s->expr = parse_expression(true);
        if (s->expr->kind != ExprKind::Call) fail(s->expr->offset, "expected a macro call");
        expect_block_end();
        s->body = parse_body({"endcall"});
        next();
        expect_block_end();
        return s;
    }

    StmtPtr parse_filter_block(size_t offset) {
        auto s = std::make_unique<Stmt>(StmtKind::FilterBlock, offset);
        // The filters apply to a placeholder (null object) that the evaluator fills in.
        ExprPtr chain;
        do {
            chain = parse_filter(std::move(chain));
        } while (skip_op("|"));
        s->expr = std::move(chain);
        expect_block_end();
        s->body = parse_body({"endfilter"});
        next();
        expect_block_end();
        return s;
    }

    // ---- expressions ----
    ExprPtr parse_tuple(bool with_condexpr) {
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

    ExprPtr parse_expression(bool with_condexpr) {
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

    ExprPtr binary(const char* op, size_t off, ExprPtr l, ExprPtr r) {
        auto e = std::make_unique<Expr>(ExprKind::Binary, off);
        e->name = op;
        e->a = std::move(l);
        e->b = std::move(r);
        return seal(std::move(e));
    }

    ExprPtr parse_or() {
        ExprPtr l = parse_and();
        while (is_name("or")) {
            size_t off = cur().offset;
            next();
            l = binary("or", off, std::move(l), parse_and());
        }
        return l;
    }

    ExprPtr parse_and() {
        ExprPtr l = parse_not();
        while (is_name("and")) {
            size_t off = cur().offset;
            next();
            l = binary("and", off, std::move(l), parse_not());
        }
        return l;
    }

    ExprPtr parse_not() {
        if (is_name("not")) {
            DepthGuard guard(*this, cur().offset);
            auto e = std::make_unique<Expr>(ExprKind::Not, cur().offset);
            next();
            e->object = parse_not();
            return seal(std::move(e));
        }
        return parse_compare();
    }

    ExprPtr parse_compare() {
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

    ExprPtr parse_math1() {
        ExprPtr l = parse_concat();
        while (is_op("+") || is_op("-")) {
            std::string op = cur().value;
            size_t off = cur().offset;
            next();
            l = binary(op == "+" ? "+" : "-", off, std::move(l), parse_concat());
        }
        return l;
    }

    ExprPtr parse_concat() {
        ExprPtr l = parse_math2();
        while (is_op("~")) {
            size_t off = cur().offset;
            next();
            l = binary("~", off, std::move(l), parse_math2());
        }
        return l;
    }

    ExprPtr parse_math2() {
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

    ExprPtr parse_pow() {
        ExprPtr l = parse_unary(true);
        while (is_op("**")) {
            size_t off = cur().offset;
            next();
            l = binary("**", off, std::move(l), parse_unary(true));
        }
        return l;
    }

    ExprPtr parse_unary(bool with_filter) {
        DepthGuard guard(*this, cur().offset);
        ExprPtr node;
        if (is_op("-") || is_op("+")) {
            auto e =
                std::make_unique<Expr>(is_op("-") ? ExprKind::Neg : ExprKind::Pos, cur().offset);
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

    ExprPtr parse_primary() {
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

    void parse_call_args(Expr& e) {
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

    ExprPtr parse_postfix(ExprPtr node) {
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

    ExprPtr parse_subscript(ExprPtr object, size_t off) {
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

    ExprPtr parse_filter(ExprPtr operand) {
        size_t off = cur().offset;
        auto e = std::make_unique<Expr>(ExprKind::Filter, off);
        e->name = expect_name();
        while (skip_op(".")) e->name += "." + expect_name();
        e->object = std::move(operand);
        if (is_op("(")) parse_call_args(*e);
        return seal(std::move(e));
    }

    ExprPtr parse_filter_expr(ExprPtr node) {
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

    bool takes_bare_test_arg() const {
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

    const std::vector<Token>& t_;
    size_t i_ = 0;
    int depth_ = 0;
};

}  // namespace

Result<ast::Body> parse_template(const std::vector<Token>& tokens, const SourceMap& map) {
    if (tokens.empty()) return ast::Body{};
    try {
        return Parser(tokens).parse_all();
    } catch (const ParseError& e) {
        return Result<ast::Body>::error(format_error(map, e.offset, e.message));
    }
}

}  // namespace hearth::chat
