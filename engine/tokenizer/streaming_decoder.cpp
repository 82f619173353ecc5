#include "tokenizer/streaming_decoder.h"

#include "tokenizer/utf8.h"

namespace hearth::tokenizer {

StreamingDecoder::StreamingDecoder(const Tokenizer& tokenizer, bool render_special)
    : tok_(tokenizer), render_special_(render_special) {}

void StreamingDecoder::reset() {
    fragment_start_ = true;
    pending_.clear();
}

std::string StreamingDecoder::push(int32_t id) {
    if (!tok_.valid_id(id)) return {};
    pending_ += tok_.piece_in_sequence(id, render_special_, fragment_start_);
    // Emit everything up to an unfinished trailing character; the sanitizer then sees the
    // same sequence starts it would see on the whole text, so the result matches decode().
    const size_t cut = utf8::complete_prefix_length(pending_);
    std::string out;
    utf8::append_sanitized(out, std::string_view(pending_).substr(0, cut));
    pending_.erase(0, cut);
    return out;
}

std::string StreamingDecoder::finish() {
    std::string out;
    utf8::append_sanitized(out, pending_);
    pending_.clear();
    return out;
}

}  // namespace hearth::tokenizer
