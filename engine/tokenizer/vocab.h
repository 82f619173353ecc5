// A vocabulary's immutable lookup tables, built once and shared by every encode/decode call.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hearth/result.h"
#include "tokenizer/vocab_data.h"

namespace hearth::tokenizer {

class Vocab {
public:
    // Validates the data and builds the tables. Errors name the problem.
    static Result<std::unique_ptr<const Vocab>> build(VocabData data);

    Vocab(const Vocab&) = delete;
    Vocab& operator=(const Vocab&) = delete;

    VocabKind kind() const { return d_.kind; }
    const std::string& pre() const { return d_.pre; }
    int32_t size() const { return static_cast<int32_t>(d_.tokens.size()); }
    bool valid_id(int32_t id) const { return id >= 0 && id < size(); }
    std::string_view text(int32_t id) const { return d_.tokens[static_cast<size_t>(id)]; }
    TokenType type(int32_t id) const { return types_[static_cast<size_t>(id)]; }
    float score(int32_t id) const { return scores_[static_cast<size_t>(id)]; }

    // A token that may stand for ordinary text (normal or user-defined), or -1. Control,
    // unknown, unused and byte tokens are never produced by merging text.
    int32_t find_piece(std::string_view text) const;
    // Any token with exactly this text, or -1.
    int32_t find_any(std::string_view text) const;

    struct Merge {
        uint32_t rank;
        int32_t result;
    };
    // BPE: the merge of two adjacent tokens, or nullptr.
    const Merge* find_merge(int32_t left, int32_t right) const {
        auto it = merges_.find((static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) |
                               static_cast<uint32_t>(right));
        return it == merges_.end() ? nullptr : &it->second;
    }
    // SPM: the <0xXX> token; BPE: the token spelling that byte. -1 when absent.
    int32_t byte_token(uint8_t b) const { return byte_token_[b]; }
    // SPM byte tokens: the byte they stand for, or -1.
    int byte_value(int32_t id) const;

    int32_t bos() const { return bos_; }
    int32_t eos() const { return eos_; }
    int32_t eot() const { return eot_; }
    int32_t eom() const { return eom_; }
    int32_t unk() const { return unk_; }
    int32_t pad() const { return pad_; }
    bool add_bos() const { return add_bos_; }
    bool add_eos() const { return add_eos_; }
    bool add_space_prefix() const { return add_space_prefix_; }
    bool ignore_merges() const { return ignore_merges_; }
    // SPM: no mergeable token has U+2581 right after another character.
    bool spm_words_independent() const { return spm_words_independent_; }
    bool is_eog(int32_t id) const { return valid_id(id) && eog_[static_cast<size_t>(id)]; }
    // Whitespace right after this token, when it is cut out of text, is dropped (Phi-3's
    // special tokens are declared this way).
    bool rstrip(int32_t id) const { return valid_id(id) && rstrip_[static_cast<size_t>(id)]; }

    // Tokens cut out of raw text before tokenizing, longest text first: with special parsing
    // (template text) control, user-defined and unknown tokens; without it (user text) only
    // user-defined ones that do not end or start a sequence.
    const std::vector<int32_t>& template_specials() const { return template_specials_; }
    const std::vector<int32_t>& user_specials() const { return user_specials_; }

private:
    Vocab() = default;
    Status init();

    VocabData d_;
    std::vector<TokenType> types_;
    std::vector<float> scores_;
    std::unordered_map<std::string_view, int32_t> text_to_id_;  // views into d_.tokens
    std::unordered_map<uint64_t, Merge> merges_;
    std::array<int32_t, 256> byte_token_{};
    std::vector<bool> eog_, rstrip_;
    std::vector<int32_t> template_specials_, user_specials_;
    int32_t bos_ = -1, eos_ = -1, eot_ = -1, eom_ = -1, unk_ = -1, pad_ = -1;
    bool add_bos_ = false, add_eos_ = false, add_space_prefix_ = false, ignore_merges_ = false;
    bool spm_words_independent_ = false;
};

}  // namespace hearth::tokenizer
