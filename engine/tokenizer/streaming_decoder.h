// Turns generated tokens, one at a time, into text deltas for display. A delta never ends
// inside a UTF-8 character: bytes of an unfinished character (byte-fallback tokens, or a BPE
// token holding half of an emoji) wait until the character completes. The deltas joined, plus
// finish(), equal Tokenizer::decode of the same tokens, including the SPM leading-space rule.
//
// Not thread-safe (one per stream); the Tokenizer it reads must outlive it.
#pragma once

#include <cstdint>
#include <string>

#include "tokenizer/tokenizer.h"

namespace hearth::tokenizer {

class StreamingDecoder {
public:
    explicit StreamingDecoder(const Tokenizer& tokenizer, bool render_special = false);

    // The text that became complete with this token (often empty or a whole piece).
    std::string push(int32_t id);
    // Ends the stream: returns held bytes, an unfinished character reading as U+FFFD.
    std::string finish();
    // Starts a new stream (as after construction).
    void reset();

    // Bytes held back because they end in an unfinished character (at most 3).
    size_t pending_bytes() const { return pending_.size(); }

private:
    const Tokenizer& tok_;
    bool render_special_;
    bool fragment_start_ = true;
    std::string pending_;
};

}  // namespace hearth::tokenizer
