// JSON-constrained decoding over a model's vocabulary: which tokens keep the reply a prefix of
// a valid JSON object (JsonRecognizer) from a given state. Control tokens and those that end
// generation are never offered; the caller ends the reply when the object is complete.
//
// A mask costs one scan of the vocabulary's trie (every node while inside a string, where
// almost every byte is allowed); a reply revisits few states (inside a string at the same
// depth, after a value, ...), so masks are cached by state. Not thread-safe: one per stepping
// thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "hearth/engine.h"
#include "runtime/json_recognizer.h"
#include "runtime/sampler.h"
#include "runtime/token_trie.h"

namespace hearth::tokenizer {
class Tokenizer;
}

namespace hearth::runtime {

class JsonTokenMask {
public:
    // pieces[id]: the bytes of token id (empty: never allowed).
    explicit JsonTokenMask(std::vector<std::string> pieces);
    // Every token that is text: not control, unknown or unused, and not an end of generation.
    static JsonTokenMask for_tokenizer(const tokenizer::Tokenizer& tok);

    // One bit per token id: set when the token's bytes are accepted from `state`.
    std::span<const uint64_t> allowed(const JsonRecognizer& state);
    // Sets the logits of the tokens not allowed from `state` to -infinity; false when no
    // token is allowed (the vocabulary cannot continue the document).
    bool apply(const JsonRecognizer& state, std::span<float> logits);
    // Drops the masks cached for states under this schema.
    void forget(const JsonSchema* schema);
    // Advances state by token's bytes; false when they are not accepted.
    bool advance(JsonRecognizer& state, int32_t token) const;

    size_t n_vocab() const { return pieces_.size(); }
    const TokenTrie& trie() const { return trie_; }
    size_t cache_size() const { return cache_.size(); }

private:
    struct StateHash {
        size_t operator()(const JsonRecognizer& r) const { return static_cast<size_t>(r.hash()); }
    };
    static constexpr size_t kMaxCached = 64;

    std::vector<std::string> pieces_;
    TokenTrie trie_;
    std::unordered_map<JsonRecognizer, std::vector<uint64_t>, StateHash> cache_;
};

// Why a request's format cannot be decoded ("" when it can): a schema format without a schema,
// or one JsonSchema::check() refuses. The scheduler's submit and Context::generate say the same.
std::string json_format_error(OutputFormat format, const JsonSchema* schema);

// The next token of a JSON reply (the scheduler and Context::generate): the chain draws from
// the logits with the tokens that would break the object masked (`scratch` holds the masked
// copy), and state advances by it. -1, with `why`, when no token continues the object.
int32_t sample_json_token(JsonTokenMask& mask, JsonRecognizer& state, SamplerChain& chain,
                          std::span<const float> logits, std::vector<float>& scratch,
                          std::string& why);

}  // namespace hearth::runtime
