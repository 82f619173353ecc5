#include "tokenizer/tokenizer.h"

#include <algorithm>
#include <cctype>

#include "tokenizer/bpe_encoder.h"
#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/special_matcher.h"
#include "tokenizer/spm_encoder.h"
#include "tokenizer/utf8.h"
#include "tokenizer/vocab.h"
#include "tokenizer/vocab_gguf.h"

namespace hearth::tokenizer {

// One encode call's working memory; never shared between calls.
struct Tokenizer::Scratch {
    SpecialMatcher::Scratch special;
    std::vector<Fragment> fragments;
    std::string sanitized, raw, escaped;
    std::vector<TextSpan> words;
    PreTokenizer::Scratch pre;
    SpmEncoder::Scratch spm;
    BpeEncoder::Scratch bpe;
};

Tokenizer::Tokenizer() = default;
Tokenizer::~Tokenizer() = default;

Result<std::unique_ptr<Tokenizer>> Tokenizer::from_gguf(const gguf::GgufFile& file) {
    return guarded("tokenizer", [&]() -> Result<std::unique_ptr<Tokenizer>> {
        auto data = read_vocab_data(file);
        if (!data) return data.status();
        return from_data_unguarded(std::move(data).value());
    });
}

Result<std::unique_ptr<Tokenizer>> Tokenizer::from_data(VocabData data) {
    return guarded("tokenizer", [&]() -> Result<std::unique_ptr<Tokenizer>> {
        return from_data_unguarded(std::move(data));
    });
}

Result<std::unique_ptr<Tokenizer>> Tokenizer::from_data_unguarded(VocabData data) {
    auto vocab = Vocab::build(std::move(data));
    if (!vocab) return vocab.status();
    std::unique_ptr<Tokenizer> t(new Tokenizer());
    t->vocab_ = std::move(vocab).value();
    if (t->vocab_->kind() == VocabKind::Bpe) {
        auto pre = PreTokenizer::for_name(t->vocab_->pre());
        if (!pre) return pre.status();
        t->pre_ = std::move(pre).value();
    }
    t->template_matcher_ =
        std::make_unique<SpecialMatcher>(*t->vocab_, t->vocab_->template_specials());
    t->user_matcher_ = std::make_unique<SpecialMatcher>(*t->vocab_, t->vocab_->user_specials());
    return t;
}

std::vector<int32_t> Tokenizer::encode_user(std::string_view text) const {
    return encode(text, false, false, false);
}

std::vector<int32_t> Tokenizer::encode_template(std::string_view text) const {
    return encode(text, false, false, true);
}

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool add_bos, bool add_eos,
                                       bool parse_special) const {
    const TextSegment seg{text, parse_special};
    return encode_segments(std::span<const TextSegment>(&seg, 1), add_bos, add_eos);
}

std::vector<int32_t> Tokenizer::encode_segments(std::span<const TextSegment> segments, bool add_bos,
                                                bool add_eos) const {
    std::vector<int32_t> out;
    Scratch s;
    if (add_bos && vocab_->bos() >= 0) out.push_back(vocab_->bos());
    // Raw text runs on across segment boundaries, so content and markup tokenize as they
    // would in one string; only cut-out tokens end a run.
    bool after_special = true;
    bool strip_space = false;  // the last cut token swallows the whitespace after it
    s.raw.clear();
    auto flush = [&] {
        if (s.raw.empty()) return;
        encode_raw(s.raw, after_special, out, s);
        s.raw.clear();
        after_special = false;
    };
    for (const TextSegment& seg : segments) {
        std::string_view text = seg.text;
        if (!utf8::is_valid(text)) {
            s.sanitized.clear();
            utf8::append_sanitized(s.sanitized, text);
            text = s.sanitized;
        }
        s.fragments.clear();
        (seg.is_template ? template_matcher_ : user_matcher_)->split(text, s.fragments, s.special);
        for (const Fragment& f : s.fragments) {
            if (f.token < 0) {
                std::string_view piece = text.substr(f.offset, f.length);
                if (strip_space) {
                    size_t k = 0;
                    while (k < piece.size() && std::isspace(static_cast<unsigned char>(piece[k])))
                        ++k;
                    piece.remove_prefix(k);
                    strip_space = piece.empty();
                }
                s.raw.append(piece);
                continue;
            }
            flush();
            out.push_back(f.token);
            after_special = true;
            strip_space = vocab_->rstrip(f.token);
        }
    }
    flush();
    if (add_eos && vocab_->eos() >= 0) out.push_back(vocab_->eos());
    return out;
}

void Tokenizer::encode_raw(std::string_view text, bool first_after_special,
                           std::vector<int32_t>& out, Scratch& s) const {
    if (vocab_->kind() == VocabKind::Spm) {
        // SentencePiece spells a space as U+2581 and, by default, puts one in front of text
        // that starts a sequence or follows a special token.
        static constexpr std::string_view kSpace = "\xE2\x96\x81";
        s.escaped.clear();
        s.escaped.reserve(text.size() + text.size() / 4 + 3);
        if (vocab_->add_space_prefix() && first_after_special) s.escaped.append(kSpace);
        for (char c : text) {
            if (c == ' ')
                s.escaped.append(kSpace);
            else
                s.escaped.push_back(c);
        }
        SpmEncoder(*vocab_).encode(s.escaped, out, s.spm);
        return;
    }
    pre_->split(text, s.words, s.pre);
    const BpeEncoder bpe(*vocab_);
    for (const TextSpan& w : s.words) bpe.encode_word(text.substr(w.offset, w.length), out, s.bpe);
}

std::string_view Tokenizer::token_text(int32_t id) const {
    return valid_id(id) ? vocab_->text(id) : std::string_view();
}

TokenType Tokenizer::token_type(int32_t id) const {
    return valid_id(id) ? vocab_->type(id) : TokenType::Undefined;
}

int32_t Tokenizer::n_vocab() const {
    return vocab_->size();
}
VocabKind Tokenizer::kind() const {
    return vocab_->kind();
}
std::string_view Tokenizer::pre() const {
    return vocab_->pre();
}
int32_t Tokenizer::bos_id() const {
    return vocab_->bos();
}
int32_t Tokenizer::eos_id() const {
    return vocab_->eos();
}
int32_t Tokenizer::eot_id() const {
    return vocab_->eot();
}
int32_t Tokenizer::pad_id() const {
    return vocab_->pad();
}
int32_t Tokenizer::unk_id() const {
    return vocab_->unk();
}
bool Tokenizer::add_bos() const {
    return vocab_->add_bos();
}
bool Tokenizer::add_eos() const {
    return vocab_->add_eos();
}
bool Tokenizer::is_end_of_generation(int32_t id) const {
    return vocab_->is_eog(id) ||
           std::find(extra_end_of_generation_.begin(), extra_end_of_generation_.end(), id) !=
               extra_end_of_generation_.end();
}

void Tokenizer::add_end_of_generation(int32_t id) {
    if (valid_id(id) && !is_end_of_generation(id)) extra_end_of_generation_.push_back(id);
}

bool Tokenizer::is_special(int32_t id) const {
    const TokenType t = token_type(id);
    return valid_id(id) &&
           (t == TokenType::Control || t == TokenType::Unknown || t == TokenType::Unused);
}

}  // namespace hearth::tokenizer
