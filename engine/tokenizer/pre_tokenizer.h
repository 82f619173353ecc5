// Splits text into words before BPE merging, by the regex set a tokenizer.ggml.pre name picks.
// Regexes run on PCRE2 in UTF + UCP mode, so \p{L}, \p{N}, \s ... follow the Unicode database
// PCRE2 ships (not hand-written tables). Compiled once (and JIT-compiled where available);
// split() keeps its state in the caller's scratch, so threads can share one PreTokenizer.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "hearth/result.h"

namespace hearth::tokenizer {

struct TextSpan {
    size_t offset = 0;
    size_t length = 0;
};

class PreTokenizer {
public:
    // The regex set for a tokenizer.ggml.pre name; an unknown or unsupported name is an error.
    static Result<std::unique_ptr<const PreTokenizer>> for_name(std::string_view pre);
    // An explicit regex list (tests).
    static Result<std::unique_ptr<const PreTokenizer>> from_regexes(
        const std::vector<std::string_view>& regexes);

    ~PreTokenizer();
    PreTokenizer(const PreTokenizer&) = delete;
    PreTokenizer& operator=(const PreTokenizer&) = delete;

    // Per-call state (PCRE2 match data and buffers).
    class Scratch {
    public:
        Scratch();
        ~Scratch();

    private:
        friend class PreTokenizer;
        struct Impl;
        std::unique_ptr<Impl> impl_;
    };

    // Replaces out with the pieces of text (valid UTF-8), in order; together they cover text
    // exactly. Each regex splits every piece the previous one produced into its matches and
    // the unmatched gaps between them.
    void split(std::string_view text, std::vector<TextSpan>& out, Scratch& scratch) const;

private:
    struct Compiled;
    PreTokenizer() = default;
    std::vector<std::unique_ptr<Compiled>> regexes_;
};

}  // namespace hearth::tokenizer
