// A summary of a GGUF file for people: what `hearth-cli inspect` prints. Works on vocab-only
// files too (then config is empty and config_error says why).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"
#include "model/model_config.h"
#include "model/model_stats.h"

namespace hearth::model {

struct SpecialToken {
    std::string role;  // "bos", "eos", "unk", "pad", "eot", "eom", "sep", "cls", "mask"
    uint32_t id = 0;
    std::string text;  // the token's text, or empty when the id is beyond the vocabulary
};

struct ModelInfo {
    uint64_t file_size = 0;
    uint32_t gguf_version = 0;
    uint64_t n_kv = 0;
    std::string arch;  // general.architecture (may be unsupported)
    std::string name;  // general.name

    std::optional<ModelConfig> config;  // set when metadata and tensors check out
    std::string config_error;           // why config is empty ("" when set)

    uint64_t n_tensors = 0;
    uint64_t n_params = 0;                            // sum of tensor element counts
    uint64_t weight_bytes = 0;                        // sum of tensor data sizes
    std::map<std::string, uint64_t> tensors_by_type;  // "Q4_K" -> count

    std::string vocab_model;  // tokenizer.ggml.model ("llama", "gpt2", ...), "" when absent
    std::string vocab_kind;   // "SentencePiece", "byte-level BPE", ...
    std::string vocab_pre;    // tokenizer.ggml.pre
    uint64_t vocab_size = 0;  // tokens in tokenizer.ggml.tokens
    std::vector<SpecialToken> special_tokens;
    std::optional<bool> add_bos, add_eos;
    uint64_t chat_template_bytes = 0;  // 0: no tokenizer.chat_template

    uint32_t context = 0;  // the context the estimate is for
    KvType kv_type = KvType::F16;
    std::optional<MemoryEstimate> memory;  // with config only
};

// n_ctx 0 means default_context(config).
ModelInfo describe_model(const gguf::GgufFile& file, uint32_t n_ctx = 0,
                         KvType kv_type = KvType::F16);

}  // namespace hearth::model
