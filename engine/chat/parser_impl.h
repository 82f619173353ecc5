// The recursive-descent parser behind parse_template(); shared by parser.cpp (statements)
// and parser_expr.cpp (expressions). Not part of the module's interface.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "chat/ast.h"
#include "chat/lexer.h"
#include "chat/parser.h"

namespace hearth::chat::parser_detail {

using namespace ast;

// Parse failures unwind to parse_template() as this; it never leaves the parser.
struct ParseError {
    size_t offset;
    std::string message;
};

class Parser {
public:
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
    std::string found() const;

    struct DepthGuard {
        Parser& p;
        DepthGuard(Parser& parser, size_t offset) : p(parser) {
            if (++p.depth_ > kMaxParseDepth) p.fail(offset, "template nested too deeply");
        }
        ~DepthGuard() { --p.depth_; }
    };

    // Records the height of a new node and refuses trees too deep to evaluate safely.
    ExprPtr seal(ExprPtr e);

    // ---- statements ----
    // Parses until a block tag whose keyword is in `ends` (left unconsumed: cur() is its name).
    Body parse_body(std::initializer_list<const char*> ends);

    StmtPtr parse_statement(size_t offset);

    StmtPtr parse_if(size_t offset);

    std::vector<std::string> parse_targets();

    StmtPtr parse_for(size_t offset);

    StmtPtr parse_set(size_t offset);

    std::vector<Param> parse_params();

    StmtPtr parse_macro(size_t offset);

    StmtPtr parse_call_block(size_t offset);

    StmtPtr parse_filter_block(size_t offset);

    // ---- expressions ----
    ExprPtr parse_tuple(bool with_condexpr);

    ExprPtr parse_expression(bool with_condexpr);

    ExprPtr binary(const char* op, size_t off, ExprPtr l, ExprPtr r);

    ExprPtr parse_or();

    ExprPtr parse_and();

    ExprPtr parse_not();

    ExprPtr parse_compare();

    ExprPtr parse_math1();

    ExprPtr parse_concat();

    ExprPtr parse_math2();

    ExprPtr parse_pow();

    ExprPtr parse_unary(bool with_filter);

    ExprPtr parse_primary();

    void parse_call_args(Expr& e);

    ExprPtr parse_postfix(ExprPtr node);

    ExprPtr parse_subscript(ExprPtr object, size_t off);

    ExprPtr parse_filter(ExprPtr operand);

    ExprPtr parse_filter_expr(ExprPtr node);

    bool takes_bare_test_arg() const;

    const std::vector<Token>& t_;
    size_t i_ = 0;
    int depth_ = 0;
};

}  // namespace hearth::chat::parser_detail
