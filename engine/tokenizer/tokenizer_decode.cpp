// Token ids back to text (Tokenizer::decode and token_to_piece).
#include "tokenizer/byte_level.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8.h"
#include "tokenizer/vocab.h"

namespace hearth::tokenizer {

std::string Tokenizer::token_to_piece(int32_t id, bool render_special) const {
    if (!valid_id(id)) return {};
    const std::string_view text = vocab_->text(id);
    switch (vocab_->type(id)) {
        case TokenType::Control:
        case TokenType::Unused:
            return render_special ? std::string(text) : std::string();
        case TokenType::Unknown:
            return render_special ? std::string(text) : std::string("\xEF\xBF\xBD");
        case TokenType::UserDefined:
            return std::string(text);
        case TokenType::Byte:
            if (const int b = vocab_->byte_value(id); b >= 0)
                return std::string(1, static_cast<char>(b));
            break;
        case TokenType::Normal:
        case TokenType::Undefined:
            break;
    }
    if (vocab_->kind() == VocabKind::Bpe) {
        if (auto bytes = ByteLevel::get().decode(text)) return std::move(*bytes);
        return std::string(text);  // not in the byte alphabet: stored as plain text
    }
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        if (text.compare(i, 3, "\xE2\x96\x81") == 0) {  // U+2581 is a space
            out.push_back(' ');
            i += 2;
        } else {
            out.push_back(text[i]);
        }
    }
    return out;
}

std::string Tokenizer::piece_in_sequence(int32_t id, bool render_special,
                                         bool& fragment_start) const {
    if (!valid_id(id)) return {};
    std::string piece = token_to_piece(id, render_special);
    const TokenType t = vocab_->type(id);
    // Encoding put one space in front of raw text at the start of a sequence and after a
    // cut-out token (SPM with add_space_prefix); the first text token there gives it back.
    const bool text_token =
        t == TokenType::Normal || t == TokenType::Undefined || t == TokenType::Byte;
    if (text_token && fragment_start && vocab_->add_space_prefix() && !piece.empty() &&
        piece[0] == ' ')
        piece.erase(0, 1);
    // Any token that can be cut out of template text ends a fragment (unknown included: with
    // byte fallback, <unk> never comes from plain text).
    fragment_start = t == TokenType::Control || t == TokenType::UserDefined ||
                     t == TokenType::Unused || t == TokenType::Unknown;
    return piece;
}

std::string Tokenizer::decode(std::span<const int32_t> ids, bool render_special) const {
    std::string bytes;
    bool fragment_start = true;
    for (int32_t id : ids) bytes += piece_in_sequence(id, render_special, fragment_start);
    std::string out;
    out.reserve(bytes.size());
    utf8::append_sanitized(out, bytes);
    return out;
}

}  // namespace hearth::tokenizer
