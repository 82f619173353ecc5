// Splits template source into text and tag tokens with Jinja2's whitespace rules as HF
// transformers configures them: trim_blocks, lstrip_blocks, `-`/`+` modifiers, newlines
// normalised to "\n" and one trailing newline dropped (keep_trailing_newline=False).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "hearth/result.h"

namespace hearth::chat {

enum class TokenType {
    Text,        // literal template text (value holds it)
    VarBegin,    // {{
    VarEnd,      // }}
    BlockBegin,  // {%
    BlockEnd,    // %}
    Name,        // identifiers and keywords
    String,      // string literal, value holds the decoded text
    Integer,     // value holds the digits
    Float,       // value holds the literal
    Operator,    // value holds the operator, e.g. "==", "(", "|"
    End,         // end of input
};

struct Token {
    TokenType type = TokenType::End;
    std::string value;
    size_t offset = 0;  // byte offset in the normalised source
};

// A position in the source for error messages: 1-based line and column (in characters).
struct SourcePos {
    int line = 1;
    int column = 1;
};

// Line/column lookup over the normalised source.
class SourceMap {
public:
    SourceMap() = default;
    explicit SourceMap(std::string source);
    SourcePos locate(size_t offset) const;
    const std::string& source() const { return source_; }

private:
    std::string source_;
    std::vector<size_t> line_starts_;
};

// "line L, column C: message"
std::string format_error(const SourceMap& map, size_t offset, std::string_view message);

// The normalised source Jinja2 actually lexes (\r\n and \r become \n, one final \n dropped).
std::string normalize_source(std::string_view source);

// Tokenizes normalised source. Errors name line and column.
Result<std::vector<Token>> tokenize(const SourceMap& map);

}  // namespace hearth::chat
