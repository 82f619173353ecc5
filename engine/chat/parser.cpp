// Statements and the entry point; expressions are in parser_expr.cpp.
#include "chat/parser.h"

#include <algorithm>

#include "chat/parser_impl.h"

namespace hearth::chat {

namespace parser_detail {

std::string Parser::found() const {
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

ExprPtr Parser::seal(ExprPtr e) {
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

Body Parser::parse_body(std::initializer_list<const char*> ends) {
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

StmtPtr Parser::parse_statement(size_t offset) {
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
        return std::make_unique<Stmt>(kw == "break" ? StmtKind::Break : StmtKind::Continue, offset);
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

StmtPtr Parser::parse_if(size_t offset) {
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

std::vector<std::string> Parser::parse_targets() {
    std::vector<std::string> names;
    bool paren = skip_op("(");
    do {
        names.push_back(expect_name());
    } while (skip_op(","));
    if (paren) expect_op(")");
    return names;
}

StmtPtr Parser::parse_for(size_t offset) {
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

StmtPtr Parser::parse_set(size_t offset) {
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

std::vector<Param> Parser::parse_params() {
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

StmtPtr Parser::parse_macro(size_t offset) {
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

StmtPtr Parser::parse_call_block(size_t offset) {
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

StmtPtr Parser::parse_filter_block(size_t offset) {
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

}  // namespace parser_detail

Result<ast::Body> parse_template(const std::vector<Token>& tokens, const SourceMap& map) {
    if (tokens.empty()) return ast::Body{};
    try {
        return parser_detail::Parser(tokens).parse_all();
    } catch (const parser_detail::ParseError& e) {
        return Result<ast::Body>::error(format_error(map, e.offset, e.message));
    }
}

}  // namespace hearth::chat
