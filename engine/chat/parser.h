// Builds the syntax tree from tokens with Jinja2's grammar and operator precedence.
#pragma once

#include <vector>

#include "chat/ast.h"
#include "chat/lexer.h"
#include "hearth/result.h"

namespace hearth::chat {

// Nesting deeper than this (brackets, blocks) is refused: it bounds the parser's and the
// evaluator's recursion on hostile input.
inline constexpr int kMaxParseDepth = 96;
// Longest chain of operators in one expression (a + b + c ... also nests in the tree).
inline constexpr int kMaxExprHeight = 256;

Result<ast::Body> parse_template(const std::vector<Token>& tokens, const SourceMap& map);

}  // namespace hearth::chat
