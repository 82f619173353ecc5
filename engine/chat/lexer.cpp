#include "chat/lexer.h"

#include <algorithm>
#include <cstdint>

namespace hearth::chat {

SourceMap::SourceMap(std::string source) : source_(std::move(source)) {
    line_starts_.push_back(0);
    for (size_t i = 0; i < source_.size(); ++i)
        if (source_[i] == '\n') line_starts_.push_back(i + 1);
}

SourcePos SourceMap::locate(size_t offset) const {
    offset = std::min(offset, source_.size());
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    size_t line = static_cast<size_t>(it - line_starts_.begin());  // 1-based
    size_t start = line_starts_[line - 1];
    int column = 1;
    for (size_t i = start; i < offset; ++i)
        if ((static_cast<unsigned char>(source_[i]) & 0xC0) != 0x80) ++column;
    return {static_cast<int>(line), column};
}

std::string format_error(const SourceMap& map, size_t offset, std::string_view message) {
    SourcePos p = map.locate(offset);
    return "line " + std::to_string(p.line) + ", column " + std::to_string(p.column) + ": " +
           std::string(message);
}

std::string normalize_source(std::string_view source) {
    std::string out;
    out.reserve(source.size());
    for (size_t i = 0; i < source.size(); ++i) {
        if (source[i] == '\r') {
            out += '\n';
            if (i + 1 < source.size() && source[i + 1] == '\n') ++i;
        } else {
            out += source[i];
        }
    }
    if (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
}

namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
bool is_name_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

class Lexer {
public:
    explicit Lexer(const SourceMap& map) : map_(map), src_(map.source()) {}

    Result<std::vector<Token>> run() {
        while (pos_ < src_.size()) {
            size_t start = find_tag(pos_);
            std::string text = src_.substr(pos_, start - pos_);
            if (start == src_.size()) {
                emit_text(std::move(text), pos_);
                break;
            }
            char kind = src_[start + 1];  // '{', '%' or '#'
            char sign = start + 2 < src_.size() ? src_[start + 2] : '\0';
            if (sign == '-') {
                while (!text.empty() && is_space(text.back())) text.pop_back();
            } else if (sign != '+' && kind != '{') {
                lstrip_block(text);
            }
            emit_text(std::move(text), pos_);
            size_t body = start + 2 + ((sign == '-' || sign == '+') ? 1 : 0);
            Status st = kind == '#' ? comment(start, body) : tag(start, body, kind == '%');
            if (!st) return st;
        }
        tokens_.push_back({TokenType::End, {}, src_.size()});
        return std::move(tokens_);
    }

private:
    Status fail(size_t offset, std::string_view message) {
        return Status::error(format_error(map_, offset, message));
    }

    size_t find_tag(size_t from) const {
        for (size_t i = from; i + 1 < src_.size(); ++i) {
            if (src_[i] == '{' && (src_[i + 1] == '{' || src_[i + 1] == '%' || src_[i + 1] == '#'))
                return i;
        }
        return src_.size();
    }

    // lstrip_blocks: drop spaces between the start of the line and a block or comment tag.
    void lstrip_block(std::string& text) const {
        size_t nl = text.rfind('\n');
        size_t l_pos = nl == std::string::npos ? 0 : nl + 1;
        if (l_pos == 0 && !line_starting_) return;
        if (l_pos == text.size()) return;
        for (size_t i = l_pos; i < text.size(); ++i)
            if (!is_space(text[i])) return;
        text.resize(l_pos);
    }

    void emit_text(std::string text, size_t offset) {
        if (text.empty()) return;
        tokens_.push_back({TokenType::Text, std::move(text), offset});
    }

    // After a tag end: `-` strips all following whitespace; a block end drops one newline.
    void after_end(char modifier, bool is_block) {
        line_starting_ = false;
        if (modifier == '-') {
            while (pos_ < src_.size() && is_space(src_[pos_])) {
                line_starting_ = src_[pos_] == '\n';
                ++pos_;
            }
        } else if (modifier != '+' && is_block && pos_ < src_.size() && src_[pos_] == '\n') {
            ++pos_;
            line_starting_ = true;
        }
    }

    Status comment(size_t start, size_t body) {
        size_t end = src_.find("#}", body);
        if (end == std::string::npos) return fail(start, "unclosed comment (missing '#}')");
        char modifier =
            (end > body && (src_[end - 1] == '-' || src_[end - 1] == '+')) ? src_[end - 1] : '\0';
        pos_ = end + 2;
        after_end(modifier, true);
        return Status::ok();
    }

    Status tag(size_t start, size_t body, bool is_block) {
        size_t first_token = tokens_.size();
        tokens_.push_back({is_block ? TokenType::BlockBegin : TokenType::VarBegin, {}, start});
        size_t i = body;
        int depth = 0;
        for (;;) {
            while (i < src_.size() && is_space(src_[i])) ++i;
            if (i >= src_.size())
                return fail(start, is_block ? "unclosed tag (missing '%}')"
                                            : "unclosed expression (missing '}}')");
            char c = src_[i];
            char closer = is_block ? '%' : '}';
            if (depth == 0) {
                char modifier = '\0';
                size_t at = i;
                if ((c == '-' || c == '+') && i + 2 < src_.size() + 0 && src_[i + 1] == closer &&
                    i + 2 < src_.size() && src_[i + 2] == '}') {
                    modifier = c;
                    at = i + 1;
                }
                if (at + 1 < src_.size() && src_[at] == closer && src_[at + 1] == '}' &&
                    (modifier != '+' || is_block)) {
                    tokens_.push_back({is_block ? TokenType::BlockEnd : TokenType::VarEnd, {}, i});
                    pos_ = at + 2;
                    after_end(modifier, is_block);
                    if (is_block && tokens_.size() == first_token + 3 &&
                        tokens_[first_token + 1].type == TokenType::Name &&
                        tokens_[first_token + 1].value == "raw")
                        return raw(start);
                    return Status::ok();
                }
            }
            if (is_name_start(c)) {
                size_t b = i;
                while (i < src_.size() && (is_name_start(src_[i]) || is_digit(src_[i]))) ++i;
                tokens_.push_back({TokenType::Name, src_.substr(b, i - b), b});
            } else if (is_digit(c)) {
                Status st = number(i);
                if (!st) return st;
            } else if (c == '\'' || c == '"') {
                Status st = string(i);
                if (!st) return st;
            } else {
                static const char* const kOps[] = {
                    "//", "**", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "~", "<",
                    ">",  "=",  "(",  ")",  "[",  "]",  "{", "}", ",", ".", ":", "|"};
                bool matched = false;
                for (const char* op : kOps) {
                    std::string_view o(op);
                    if (src_.compare(i, o.size(), o) == 0) {
                        if (o == "(" || o == "[" || o == "{") ++depth;
                        if (o == ")" || o == "]" || o == "}") depth = std::max(0, depth - 1);
                        tokens_.push_back({TokenType::Operator, std::string(o), i});
                        i += o.size();
                        matched = true;
                        break;
                    }
                }
                if (!matched) {
                    std::string msg = "unexpected character '";
                    msg += c;
                    return fail(i, msg + "'");
                }
            }
        }
    }

    Status number(size_t& i) {
        size_t b = i;
        auto digits = [&] {
            while (i < src_.size() && (is_digit(src_[i]) || src_[i] == '_')) ++i;
        };
        digits();
        bool is_float = false;
        if (i + 1 < src_.size() && src_[i] == '.' && is_digit(src_[i + 1])) {
            is_float = true;
            ++i;
            digits();
        }
        if (i < src_.size() && (src_[i] == 'e' || src_[i] == 'E')) {
            size_t j = i + 1;
            if (j < src_.size() && (src_[j] == '+' || src_[j] == '-')) ++j;
            if (j < src_.size() && is_digit(src_[j])) {
                is_float = true;
                i = j;
                digits();
            }
        }
        std::string lit;
        for (size_t k = b; k < i; ++k)
            if (src_[k] != '_') lit += src_[k];
        tokens_.push_back({is_float ? TokenType::Float : TokenType::Integer, lit, b});
        return Status::ok();
    }

    Status string(size_t& i) {
        size_t b = i;
        char q = src_[i++];
        std::string out;
        for (;;) {
            if (i >= src_.size()) return fail(b, "unterminated string literal");
            char c = src_[i++];
            if (c == q) break;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (i >= src_.size()) return fail(b, "unterminated string literal");
            char e = src_[i++];
            switch (e) {
                case 'n':
                    out += '\n';
                    break;
                case 't':
                    out += '\t';
                    break;
                case 'r':
                    out += '\r';
                    break;
                case '0':
                case '1':
                case '2':
                case '3':
                case '4':
                case '5':
                case '6':
                case '7': {  // octal: up to three digits
                    uint32_t cp = static_cast<uint32_t>(e - '0');
                    for (int k = 0; k < 2 && i < src_.size() && src_[i] >= '0' && src_[i] <= '7';
                         ++k)
                        cp = cp * 8 + static_cast<uint32_t>(src_[i++] - '0');
                    append_utf8(out, cp);
                    break;
                }
                case 'a':
                    out += '\a';
                    break;
                case 'b':
                    out += '\b';
                    break;
                case 'f':
                    out += '\f';
                    break;
                case 'v':
                    out += '\v';
                    break;
                case '\\':
                    out += '\\';
                    break;
                case '\'':
                    out += '\'';
                    break;
                case '"':
                    out += '"';
                    break;
                case '\n':
                    break;  // line continuation
                case 'x':
                case 'u':
                case 'U': {
                    size_t n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
                    uint32_t cp = 0;
                    for (size_t k = 0; k < n; ++k, ++i) {
                        if (i >= src_.size()) return fail(b, "truncated escape in string literal");
                        char h = src_[i];
                        int v = (h >= '0' && h <= '9')   ? h - '0'
                                : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                                : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                                         : -1;
                        if (v < 0) return fail(i, "bad hex digit in string escape");
                        cp = cp * 16 + static_cast<uint32_t>(v);
                    }
                    if (cp > 0x10FFFF) return fail(b, "escape out of Unicode range");
                    append_utf8(out, cp);
                    break;
                }
                default:  // Python keeps unknown escapes as written
                    out += '\\';
                    out += e;
            }
        }
        tokens_.push_back({TokenType::String, std::move(out), b});
        return Status::ok();
    }

    // {% raw %}...{% endraw %}: everything in between is text.
    Status raw(size_t start) {
        tokens_.resize(tokens_.size() - 3);
        size_t search = pos_;
        for (;;) {
            size_t t = src_.find("{%", search);
            if (t == std::string::npos) return fail(start, "missing {% endraw %}");
            size_t j = t + 2;
            char sign = j < src_.size() ? src_[j] : '\0';
            if (sign == '-' || sign == '+') ++j;
            while (j < src_.size() && is_space(src_[j])) ++j;
            if (src_.compare(j, 6, "endraw") != 0) {
                search = t + 2;
                continue;
            }
            j += 6;
            while (j < src_.size() && is_space(src_[j])) ++j;
            char modifier = '\0';
            if (j < src_.size() && (src_[j] == '-' || src_[j] == '+')) modifier = src_[j++];
            if (src_.compare(j, 2, "%}") != 0) {
                search = t + 2;
                continue;
            }
            std::string text = src_.substr(pos_, t - pos_);
            if (sign == '-') {
                while (!text.empty() && is_space(text.back())) text.pop_back();
            } else if (sign != '+') {
                line_starting_ = false;
                lstrip_block(text);
            }
            emit_text(std::move(text), pos_);
            pos_ = j + 2;
            after_end(modifier, true);
            return Status::ok();
        }
    }

    const SourceMap& map_;
    const std::string& src_;
    size_t pos_ = 0;
    bool line_starting_ = true;
    std::vector<Token> tokens_;
};

}  // namespace

Result<std::vector<Token>> tokenize(const SourceMap& map) {
    return Lexer(map).run();
}

}  // namespace hearth::chat
