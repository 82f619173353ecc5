// The tokenizer of a model: text to token ids and back, built once from a GGUF vocabulary and
// immutable afterwards, so any number of threads may share one (each call keeps its own
// scratch).
//
// Two ways in, and the chat path must keep them apart:
//  - user text (encode_user): special-token text such as "<|im_start|>" or "</s>" is plain
//    text and can never become a control token. User-defined tokens (type 4, e.g. runs of
//    spaces in some vocabularies) are still cut out first, as the reference tokenizers do,
//    unless they start or end a sequence.
//  - template text (encode_template): the chat template's own markup; control, user-defined
//    and unknown tokens written verbatim become those tokens.
// encode_segments() tokenizes a rendered chat as if it were one string while recognising
// special tokens only in the template's segments.
//
// Supported: tokenizer.ggml.model "llama" (SentencePiece-style) and "gpt2" (byte-level BPE
// with the pre-tokenizer chosen by tokenizer.ggml.pre). Others fail in from_gguf with a message.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/gguf_file.h"
#include "hearth/result.h"
#include "tokenizer/vocab_data.h"

namespace hearth::tokenizer {

class Vocab;
class PreTokenizer;
class SpecialMatcher;

// One piece of a rendered chat: template markup (special tokens recognised) or user content.
struct TextSegment {
    std::string_view text;
    bool is_template = false;
};

class Tokenizer {
public:
    static Result<std::unique_ptr<Tokenizer>> from_gguf(const gguf::GgufFile& file);
    // From plain data (tests, tools); same validation as from_gguf.
    static Result<std::unique_ptr<Tokenizer>> from_data(VocabData data);
    ~Tokenizer();
    Tokenizer(const Tokenizer&) = delete;
    Tokenizer& operator=(const Tokenizer&) = delete;

    // No BOS/EOS; see the header comment. Invalid UTF-8 in the input is read as U+FFFD.
    std::vector<int32_t> encode_user(std::string_view text) const;
    std::vector<int32_t> encode_template(std::string_view text) const;
    // add_bos / add_eos add the token when the vocabulary has one (pass add_bos() to follow
    // the model's convention). parse_special: template text (true) or user text (false).
    std::vector<int32_t> encode(std::string_view text, bool add_bos, bool add_eos,
                                bool parse_special) const;
    // A rendered chat: segments joined as one string, special tokens recognised only inside
    // is_template segments (what the chat path should call).
    std::vector<int32_t> encode_segments(std::span<const TextSegment> segments, bool add_bos,
                                         bool add_eos) const;

    // Text of a token sequence. Control and unused tokens are dropped unless render_special;
    // an unknown token reads as U+FFFD unless rendered. SPM: the space a tokenizer puts in
    // front of text that starts a sequence or follows a special token is removed again, so
    // decode(encode_user(s)) == s (SPM: unless s holds U+2581 itself). The result is always valid
    // UTF-8 (bad bytes become U+FFFD).
    std::string decode(std::span<const int32_t> ids, bool render_special = false) const;

    // The raw bytes one token stands for (no leading-space removal; may be part of a UTF-8
    // character). Empty for a hidden special token or an invalid id.
    std::string token_to_piece(int32_t id, bool render_special = false) const;
    // The token's text as stored in the vocabulary ("▁Hello", "Ġworld", "<0x0A>").
    std::string_view token_text(int32_t id) const;
    TokenType token_type(int32_t id) const;  // Undefined for an invalid id
    int32_t n_vocab() const;
    bool valid_id(int32_t id) const { return id >= 0 && id < n_vocab(); }

    VocabKind kind() const;
    std::string_view pre() const;  // tokenizer.ggml.pre ("default" when absent)

    // Special ids, -1 when the vocabulary has none.
    int32_t bos_id() const;
    int32_t eos_id() const;
    int32_t eot_id() const;  // end of turn: eot_token_id, else <|eot_id|>, <|im_end|>, ...
    int32_t pad_id() const;
    int32_t unk_id() const;
    // Whether prompts get BOS / EOS by the model's convention (GGUF keys, else defaults).
    bool add_bos() const;
    bool add_eos() const;
    // True for eos, eot, eom, every token whose text ends a turn in a known chat format and
    // those added with add_end_of_generation.
    bool is_end_of_generation(int32_t id) const;
    // Marks one more token as ending generation (the model's chat template closes turns with
    // it). Call while loading, before the tokenizer is shared; invalid ids are ignored.
    void add_end_of_generation(int32_t id);
    // Control, unknown and unused tokens: not text, shown only when rendering specials.
    bool is_special(int32_t id) const;

    // The bytes token id adds to a decoded sequence at this point. fragment_start carries the
    // SPM leading-space state from token to token: start a sequence with true. decode() and
    // StreamingDecoder are built on this.
    std::string piece_in_sequence(int32_t id, bool render_special, bool& fragment_start) const;

    // The internal tables (tests and tools; not a stable API).
    const Vocab& vocab() const { return *vocab_; }

private:
    static Result<std::unique_ptr<Tokenizer>> from_data_unguarded(VocabData data);
    Tokenizer();
    struct Scratch;
    void encode_raw(std::string_view text, bool first_after_special, std::vector<int32_t>& out,
                    Scratch& s) const;

    std::unique_ptr<const Vocab> vocab_;
    std::unique_ptr<const PreTokenizer> pre_;  // BPE only
    std::unique_ptr<const SpecialMatcher> template_matcher_, user_matcher_;
    std::vector<int32_t> extra_end_of_generation_;
};

}  // namespace hearth::tokenizer
