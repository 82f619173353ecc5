// Parameter counts and the memory a model needs (weights + KV cache + working buffers), used to
// refuse a model that cannot fit before loading it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "gguf/gguf_file.h"
#include "model/model_config.h"
#include "quant/kv_type.h"

namespace hearth::model {

using quant::kv_type_from_name;
using quant::kv_type_name;
using quant::KvType;

// Context used by inspect and as the app default: 4096 tokens, or less if the model was
// trained on less.
uint32_t default_context(const ModelConfig& c);

// Parameters implied by the config alone (embeddings, output unless tied, norms, layers,
// biases when present, every expert of a mixture-of-experts model).
uint64_t parameter_count(const ModelConfig& c);
// Parameters one token uses: as above with only expert_used_count experts per layer (equal to
// parameter_count for a dense model).
uint64_t active_parameter_count(const ModelConfig& c);
// Parameters actually stored in a file: the sum of its tensors' element counts.
uint64_t parameter_count(const gguf::GgufFile& f);
// Bytes of tensor data in a file.
uint64_t weight_bytes(const gguf::GgufFile& f);

struct MemoryEstimate {
    uint64_t weights = 0;   // tensor data, as stored
    uint64_t kv_cache = 0;  // K and V for every layer at the given context
    uint64_t compute = 0;   // activations and logits for a 512-token batch (approximate)
    uint64_t total() const { return weights + kv_cache + compute; }
};

// Bytes of K plus V for n_ctx tokens.
uint64_t kv_cache_bytes(const ModelConfig& c, uint32_t n_ctx, KvType type);
MemoryEstimate estimate_memory(const ModelConfig& c, uint64_t weights, uint32_t n_ctx, KvType type);

}  // namespace hearth::model
