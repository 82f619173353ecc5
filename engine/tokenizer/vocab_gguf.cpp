#include "tokenizer/vocab_gguf.h"

#include <algorithm>
#include <string>

namespace hearth::tokenizer {
namespace {

const gguf::Value* find_array(const gguf::GgufFile& f, std::string_view key, std::string& error) {
    const gguf::Value* v = f.find(key);
    if (!v) return nullptr;
    if (v->type() != gguf::ValueType::Array) error = std::string(key) + " is not an array";
    return v;
}

bool is_numeric(gguf::ValueType t) {
    return t != gguf::ValueType::String && t != gguf::ValueType::Array &&
           t != gguf::ValueType::Bool;
}

}  // namespace

Result<VocabData> read_vocab_data(const gguf::GgufFile& f) {
    VocabData d;
    const auto model = f.get_string("tokenizer.ggml.model");
    if (!model)
        return Result<VocabData>::error("no tokenizer.ggml.model: the file has no vocabulary");
    if (*model == "llama") {
        d.kind = VocabKind::Spm;
    } else if (*model == "gpt2") {
        d.kind = VocabKind::Bpe;
    } else if (*model == "bert" || *model == "t5" || *model == "rwkv" || *model == "plamo2" ||
               *model == "ugm") {
        return Result<VocabData>::error("tokenizer model '" + std::string(*model) +
                                        "' is not supported (only llama/SPM and gpt2/BPE are)");
    } else if (*model == "no_vocab" || *model == "none") {
        return Result<VocabData>::error(
            "the file has no vocabulary (tokenizer.ggml.model = " + std::string(*model) + ")");
    } else {
        return Result<VocabData>::error("unknown tokenizer.ggml.model '" + std::string(*model) +
                                        "'");
    }
    if (auto pre = f.get_string("tokenizer.ggml.pre")) d.pre = std::string(*pre);
    if (auto name = f.get_string("general.name")) d.model_name = std::string(*name);

    std::string error;
    const gguf::Value* tokens = find_array(f, "tokenizer.ggml.tokens", error);
    if (!tokens) return Result<VocabData>::error("no tokenizer.ggml.tokens");
    if (!error.empty()) return Result<VocabData>::error(error);
    if (tokens->array_type() != gguf::ValueType::String)
        return Result<VocabData>::error("tokenizer.ggml.tokens is not an array of strings");
    const uint64_t n = tokens->array_size();
    // Real vocabularies have up to a few hundred thousand tokens; each costs ~100 bytes here.
    constexpr uint64_t kMaxTokens = uint64_t{1} << 22;
    if (n == 0 || n > kMaxTokens)
        return Result<VocabData>::error("tokenizer.ggml.tokens has " + std::to_string(n) +
                                        " entries (a vocabulary has 1 to " +
                                        std::to_string(kMaxTokens) + ")");
    // Reservations are capped: the counts come from the file, and memory should grow only with
    // entries that really parse.
    constexpr uint64_t kMaxReserve = uint64_t{1} << 18;
    d.tokens.reserve(std::min(n, kMaxReserve));
    for (uint64_t i = 0; i < n; ++i) d.tokens.emplace_back(tokens->string_at(i));

    if (const gguf::Value* s = find_array(f, "tokenizer.ggml.scores", error)) {
        if (!error.empty()) return Result<VocabData>::error(error);
        if (!is_numeric(s->array_type()))
            return Result<VocabData>::error("tokenizer.ggml.scores is not numeric");
        d.scores.reserve(std::min(s->array_size(), kMaxReserve));
        for (uint64_t i = 0; i < s->array_size(); ++i)
            d.scores.push_back(static_cast<float>(s->float_at(i)));
    }
    if (const gguf::Value* t = find_array(f, "tokenizer.ggml.token_type", error)) {
        if (!error.empty()) return Result<VocabData>::error(error);
        if (!is_numeric(t->array_type()) || t->array_type() == gguf::ValueType::F32 ||
            t->array_type() == gguf::ValueType::F64)
            return Result<VocabData>::error("tokenizer.ggml.token_type is not an integer array");
        d.types.reserve(std::min(t->array_size(), kMaxReserve));
        for (uint64_t i = 0; i < t->array_size(); ++i) {
            const int64_t v = t->int_at(i);
            if (v < 0 || v > 6)
                return Result<VocabData>::error("tokenizer.ggml.token_type[" + std::to_string(i) +
                                                "] = " + std::to_string(v) +
                                                " is not a token type");
            d.types.push_back(static_cast<TokenType>(v));
        }
    }
    if (const gguf::Value* m = find_array(f, "tokenizer.ggml.merges", error)) {
        if (!error.empty()) return Result<VocabData>::error(error);
        if (m->array_type() != gguf::ValueType::String)
            return Result<VocabData>::error("tokenizer.ggml.merges is not an array of strings");
        d.merges.reserve(std::min(m->array_size(), kMaxReserve));
        for (uint64_t i = 0; i < m->array_size(); ++i) d.merges.emplace_back(m->string_at(i));
    }

    auto id = [&](const char* key) -> std::optional<int32_t> {
        const auto v = f.get_i64(key);
        if (!v) return std::nullopt;
        return (*v < 0 || *v > 0x7FFFFFFF) ? -1 : static_cast<int32_t>(*v);
    };
    d.bos = id("tokenizer.ggml.bos_token_id");
    d.eos = id("tokenizer.ggml.eos_token_id");
    d.eot = id("tokenizer.ggml.eot_token_id");
    d.eom = id("tokenizer.ggml.eom_token_id");
    d.unk = id("tokenizer.ggml.unknown_token_id");
    d.pad = id("tokenizer.ggml.padding_token_id");
    d.add_bos = f.get_bool("tokenizer.ggml.add_bos_token");
    d.add_eos = f.get_bool("tokenizer.ggml.add_eos_token");
    d.add_space_prefix = f.get_bool("tokenizer.ggml.add_space_prefix");
    return d;
}

}  // namespace hearth::tokenizer
