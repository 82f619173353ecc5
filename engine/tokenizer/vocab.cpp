#include "tokenizer/vocab.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "tokenizer/byte_level.h"
#include "tokenizer/pre_tokenizer_rules.h"

namespace hearth::tokenizer {
namespace {

// Token texts that end a turn in some chat format (GGUF_FACTS section 4). They are
// end-of-generation tokens, and are treated as control tokens even where a file marks them
// otherwise, so user text can never produce them.
constexpr std::string_view kEndTexts[] = {
    "<|eot_id|>",
    "<|im_end|>",
    "<|end|>",
    "<end_of_turn>",
    "<|endoftext|>",
    "<|eom_id|>",
    "<EOT>",
    "<|end_of_text|>",
    "<|return|>",
    "<end_of_utterance>",
    // <｜end▁of▁sentence｜> (DeepSeek; U+FF5C and U+2581 inside)
    "<\xEF\xBD\x9C"
    "end\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>",
};
// Texts that name the end-of-turn token when tokenizer.ggml.eot_token_id is absent.
constexpr std::string_view kEotTexts[] = {"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>"};

bool is_text_type(TokenType t) {
    return t == TokenType::Normal || t == TokenType::UserDefined || t == TokenType::Undefined;
}

}  // namespace

Result<std::unique_ptr<const Vocab>> Vocab::build(VocabData data) {
    std::unique_ptr<Vocab> v(new Vocab());
    v->d_ = std::move(data);
    if (Status s = v->init(); !s) return s;
    return std::unique_ptr<const Vocab>(std::move(v));
}

int32_t Vocab::find_any(std::string_view text) const {
    auto it = text_to_id_.find(text);
    return it == text_to_id_.end() ? -1 : it->second;
}

int32_t Vocab::find_piece(std::string_view text) const {
    auto it = text_to_id_.find(text);
    if (it == text_to_id_.end() || !is_text_type(types_[static_cast<size_t>(it->second)]))
        return -1;
    return it->second;
}

int Vocab::byte_value(int32_t id) const {
    if (!valid_id(id) || type(id) != TokenType::Byte) return -1;
    std::string_view t = text(id);
    unsigned v = 0;
    if (t.size() != 6 || t.substr(0, 3) != "<0x" || t[5] != '>') return -1;
    for (char c : t.substr(3, 2)) {
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= static_cast<unsigned>(c - '0');
        else if (c >= 'A' && c <= 'F')
            v |= static_cast<unsigned>(c - 'A' + 10);
        else if (c >= 'a' && c <= 'f')
            v |= static_cast<unsigned>(c - 'a' + 10);
        else
            return -1;
    }
    return static_cast<int>(v);
}

Status Vocab::init() {
    const size_t n = d_.tokens.size();
    if (n == 0) return Status::error("vocabulary has no tokens");
    if (n > 0x7FFFFFFF) return Status::error("vocabulary too large");
    if (!d_.scores.empty() && d_.scores.size() < n)
        return Status::error("tokenizer.ggml.scores has " + std::to_string(d_.scores.size()) +
                             " entries for " + std::to_string(n) + " tokens");
    if (!d_.types.empty() && d_.types.size() < n)
        return Status::error("tokenizer.ggml.token_type has " + std::to_string(d_.types.size()) +
                             " entries for " + std::to_string(n) + " tokens");
    types_.assign(n, TokenType::Normal);
    for (size_t i = 0; i < n && i < d_.types.size(); ++i) {
        const auto t = static_cast<uint8_t>(d_.types[i]);
        if (t > 6)
            return Status::error("token " + std::to_string(i) + " has invalid type " +
                                 std::to_string(t));
        types_[i] = d_.types[i];
    }
    scores_.assign(n, 0.0f);
    for (size_t i = 0; i < n && i < d_.scores.size(); ++i) scores_[i] = d_.scores[i];

    text_to_id_.reserve(n);
    for (size_t i = 0; i < n; ++i) text_to_id_.emplace(d_.tokens[i], static_cast<int32_t>(i));

    // Pre-tokenizer name: flags it implies (BPE only).
    bool name_add_bos = false, name_no_bos = false;
    if (d_.kind == VocabKind::Bpe) {
        if (d_.pre.empty()) d_.pre = "default";
        bool found = false;
        for (const auto& r : pre_name_rules()) {
            if (r.name != d_.pre) continue;
            found = true;
            ignore_merges_ = r.ignore_merges;
            name_add_bos = r.add_bos;
            name_no_bos = r.no_bos;
        }
        if (!found)
            return Status::error("unknown pre-tokenizer '" + d_.pre + "' (tokenizer.ggml.pre)");
    }

    // Special ids: model defaults when absent, ignored when out of range.
    const bool spm = d_.kind == VocabKind::Spm;
    auto pick = [&](const std::optional<int32_t>& v, int32_t fallback) {
        int32_t id = v ? *v : fallback;
        return valid_id(id) ? id : -1;
    };
    bos_ = name_no_bos ? -1 : pick(d_.bos, spm ? 1 : -1);
    eos_ = pick(d_.eos, spm ? 2 : -1);
    unk_ = pick(d_.unk, spm ? 0 : -1);
    pad_ = pick(d_.pad, -1);
    eom_ = pick(d_.eom, -1);
    eot_ = pick(d_.eot, -1);
    if (eot_ < 0) {
        for (auto t : kEotTexts) {
            if (int32_t id = find_any(t); id >= 0) {
                eot_ = id;
                break;
            }
        }
    }
    add_bos_ = d_.add_bos.value_or(spm || name_add_bos) && bos_ >= 0;
    add_eos_ = d_.add_eos.value_or(false) && eos_ >= 0;
    add_space_prefix_ = spm && d_.add_space_prefix.value_or(true);

    // End of generation: the declared ids plus the well-known end texts.
    eog_.assign(n, false);
    for (int32_t id : {eos_, eot_, eom_})
        if (id >= 0) eog_[static_cast<size_t>(id)] = true;
    for (auto t : kEndTexts) {
        if (int32_t id = find_any(t); id >= 0) {
            eog_[static_cast<size_t>(id)] = true;
            types_[static_cast<size_t>(id)] = TokenType::Control;
        }
    }

    // Byte tokens.
    byte_token_.fill(-1);
    if (spm) {
        for (int b = 0; b < 256; ++b) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "<0x%02X>", b);
            byte_token_[static_cast<size_t>(b)] = find_any(buf);
        }
    } else {
        const auto& bl = ByteLevel::get();
        for (int b = 0; b < 256; ++b)
            byte_token_[static_cast<size_t>(b)] = find_piece(bl.encode(static_cast<uint8_t>(b)));
    }

    if (spm) {
        static constexpr std::string_view kSpace = "\xE2\x96\x81";
        spm_words_independent_ = true;
        for (size_t i = 0; i < n && spm_words_independent_; ++i) {
            if (!is_text_type(types_[i])) continue;
            const std::string& t = d_.tokens[i];
            for (size_t k = t.find(kSpace, 1); k != std::string::npos; k = t.find(kSpace, k + 1))
                if (k < kSpace.size() || t.compare(k - kSpace.size(), kSpace.size(), kSpace) != 0)
                    spm_words_independent_ = false;
        }
    }

    // Merges (BPE): "left right" in rank order. Pairs that name unknown tokens, or whose
    // result is not a token, can never apply and are dropped.
    if (!spm) {
        if (d_.merges.empty()) return Status::error("BPE vocabulary has no tokenizer.ggml.merges");
        merges_.reserve(d_.merges.size());
        std::string joined;
        for (size_t r = 0; r < d_.merges.size(); ++r) {
            const std::string& m = d_.merges[r];
            const size_t sp = m.find(' ', 1);
            if (sp == std::string::npos) continue;
            const std::string_view left(m.data(), sp), right(m.data() + sp + 1, m.size() - sp - 1);
            const int32_t l = find_any(left), rt = find_any(right);
            joined.assign(left);
            joined.append(right);
            const int32_t res = find_any(joined);
            if (l < 0 || rt < 0 || res < 0) continue;
            const uint64_t key =
                (static_cast<uint64_t>(static_cast<uint32_t>(l)) << 32) | static_cast<uint32_t>(rt);
            merges_.emplace(key, Merge{static_cast<uint32_t>(r), res});
        }
    }

    // Phi-3 declares its special tokens with rstrip (except <unk>, <s> and <|endoftext|>),
    // recognised by the model name as in the reference implementation.
    rstrip_.assign(n, false);
    std::string lname = d_.model_name;
    for (char& c : lname) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lname.find("phi-3") != std::string::npos || lname.find("phi3") != std::string::npos) {
        for (size_t i = 0; i < n; ++i) {
            const TokenType t = types_[i];
            const std::string& s = d_.tokens[i];
            rstrip_[i] = (t == TokenType::Control || t == TokenType::UserDefined ||
                          t == TokenType::Unknown || s == "</s>") &&
                         s != "<unk>" && s != "<s>" && s != "<|endoftext|>";
        }
    }

    // Tokens cut out of raw text, longest first (ties by id, for a stable order).
    for (size_t i = 0; i < n; ++i) {
        const auto id = static_cast<int32_t>(i);
        if (d_.tokens[i].empty()) continue;
        const TokenType t = types_[i];
        if (t == TokenType::Control || t == TokenType::UserDefined || t == TokenType::Unknown)
            template_specials_.push_back(id);
        const bool framing = eog_[i] || id == bos_ || id == eos_;
        if (t == TokenType::UserDefined && !framing) user_specials_.push_back(id);
    }
    auto by_length = [&](int32_t a, int32_t b) {
        const size_t la = text(a).size(), lb = text(b).size();
        return la != lb ? la > lb : a < b;
    };
    std::sort(template_specials_.begin(), template_specials_.end(), by_length);
    std::sort(user_specials_.begin(), user_specials_.end(), by_length);
    return Status::ok();
}

}  // namespace hearth::tokenizer
