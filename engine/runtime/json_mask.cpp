#include "runtime/json_mask.h"

#include <cmath>

#include "tokenizer/tokenizer.h"

namespace hearth::runtime {

JsonTokenMask::JsonTokenMask(std::vector<std::string> pieces)
    : pieces_(std::move(pieces)), trie_(pieces_) {}

JsonTokenMask JsonTokenMask::for_tokenizer(const tokenizer::Tokenizer& tok) {
    std::vector<std::string> pieces(static_cast<size_t>(tok.n_vocab()));
    for (int32_t id = 0; id < tok.n_vocab(); ++id)
        if (!tok.is_special(id) && !tok.is_end_of_generation(id))
            pieces[size_t(id)] = tok.token_to_piece(id);
    return JsonTokenMask(std::move(pieces));
}

std::span<const uint64_t> JsonTokenMask::allowed(const JsonRecognizer& state) {
    if (const auto it = cache_.find(state); it != cache_.end()) return it->second;
    // A full cache starts over: a reply's states repeat within a few tokens, so the masks it
    // needs are back after one scan each.
    if (cache_.size() >= kMaxCached) cache_.clear();
    std::vector<uint64_t> bits((pieces_.size() + 63) / 64, 0);
    trie_.walk(state, [&bits](int32_t id) { bits[size_t(id) / 64] |= uint64_t{1} << (id % 64); });
    return cache_.emplace(state, std::move(bits)).first->second;
}

bool JsonTokenMask::apply(const JsonRecognizer& state, std::span<float> logits) {
    const std::span<const uint64_t> bits = allowed(state);
    bool any = false;
    for (size_t w = 0; w < bits.size(); ++w) {
        const size_t end = std::min(logits.size(), (w + 1) * 64);
        if (bits[w] == ~uint64_t{0}) {
            any = any || end > w * 64;
            continue;
        }
        for (size_t i = w * 64; i < end; ++i) {
            if ((bits[w] >> (i % 64)) & 1u)
                any = true;
            else
                logits[i] = -INFINITY;
        }
    }
    for (size_t i = pieces_.size(); i < logits.size(); ++i) logits[i] = -INFINITY;
    return any;
}

void JsonTokenMask::forget(const JsonSchema* schema) {
    std::erase_if(cache_, [schema](const auto& e) { return e.first.schema() == schema; });
}

std::string json_format_error(OutputFormat format, const JsonSchema* schema) {
    if (format != OutputFormat::JsonSchema) return {};
    if (!schema) return "a JSON schema format needs a schema";
    if (std::string why = schema->check(); !why.empty())
        return "the JSON schema cannot be followed: " + why;
    return {};
}

int32_t sample_json_token(JsonTokenMask& mask, JsonRecognizer& state, SamplerChain& chain,
                          std::span<const float> logits, std::vector<float>& scratch,
                          std::string& why) {
    scratch.assign(logits.begin(), logits.end());
    if (!mask.apply(state, scratch)) {
        why = "no token of the model's vocabulary continues the JSON object";
        return -1;
    }
    const int32_t tok = chain.sample(scratch);
    if (!mask.advance(state, tok)) {  // not expected: the chain drew a masked token
        why = "the sampler chose a token outside the JSON mask";
        return -1;
    }
    return tok;
}

bool JsonTokenMask::advance(JsonRecognizer& state, int32_t token) const {
    if (token < 0 || size_t(token) >= pieces_.size() || pieces_[size_t(token)].empty())
        return false;
    return state.feed(pieces_[size_t(token)]);
}

}  // namespace hearth::runtime
