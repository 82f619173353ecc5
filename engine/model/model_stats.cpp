#include "model/model_stats.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace hearth::model {

uint32_t default_context(const ModelConfig& c) {
    return c.n_ctx_train ? std::min<uint32_t>(4096, c.n_ctx_train) : 4096;
}

namespace {

// Parameters of the config, with only `experts` of the experts counted.
uint64_t count_params(const ModelConfig& c, uint64_t experts) {
    const uint64_t E = c.n_embd, V = c.n_vocab, F = c.n_ff;
    uint64_t n = E * V + E;  // token_embd, output_norm
    if (!c.tied_embeddings) n += E * V;
    n += c.rope_freq_factors.size() + c.rope_long_factors.size() + c.rope_short_factors.size();
    uint64_t layer = 2 * E;  // attn_norm, ffn_norm
    layer += E * c.q_width() + E * c.kv_width() + E * c.v_width();
    layer += static_cast<uint64_t>(c.n_head * c.head_dim_v) * E;  // attn_output
    if (c.n_expert > 0)
        layer += E * c.n_expert + experts * 3 * E * c.n_ff_exp;  // router, experts
    else
        layer += 3 * E * F;  // gate, up, down
    if (c.qk_norm) layer += 2ull * c.head_dim;
    if (c.post_norms) layer += 2 * E;
    if (c.has_qkv_bias) layer += c.q_width() + c.kv_width() + c.v_width();
    if (c.has_output_bias) layer += E;
    return n + layer * c.n_layer;
}

}  // namespace

uint64_t parameter_count(const ModelConfig& c) {
    return count_params(c, c.n_expert);
}

uint64_t active_parameter_count(const ModelConfig& c) {
    return count_params(c, c.n_expert_used);
}

uint64_t parameter_count(const gguf::GgufFile& f) {
    uint64_t n = 0;
    for (const auto& t : f.tensors()) n += t.n_elements();
    return n;
}

uint64_t weight_bytes(const gguf::GgufFile& f) {
    uint64_t n = 0;
    for (const auto& t : f.tensors()) n += t.nbytes;
    return n;
}

uint64_t kv_cache_bytes(const ModelConfig& c, uint32_t n_ctx, KvType type) {
    // Elements per token and layer, then bytes by the block format (blocks of 32 for Q8_0/Q4_0).
    const uint64_t elems = static_cast<uint64_t>(c.n_head_kv * (c.head_dim + c.head_dim_v));
    const uint64_t total = elems * c.n_layer * n_ctx;
    switch (type) {
        case KvType::F32:
            return total * 4;
        case KvType::F16:
            return total * 2;
        case KvType::Q8_0:
            return (total + 31) / 32 * 34;
        case KvType::Q4_0:
            return (total + 31) / 32 * 18;
    }
    return 0;
}

MemoryEstimate estimate_memory(const ModelConfig& c, uint64_t weights, uint32_t n_ctx,
                               KvType type) {
    MemoryEstimate m;
    m.weights = weights;
    m.kv_cache = kv_cache_bytes(c, n_ctx, type);
    // A 512-token batch: residual, norm, q/k/v, attention output, FFN gate/up as F32, plus the
    // logits of one row and one 512 x n_ctx score tile per head group.
    const uint64_t batch = 512;
    const uint64_t ffn = c.n_expert > 0 ? 2ull * c.n_ff_exp * c.n_expert_used + c.n_expert +
                                              2ull * c.n_expert_used +
                                              static_cast<uint64_t>(c.n_embd * c.n_expert_used)
                                        : 2ull * c.n_ff;
    const uint64_t per_token = 3ull * c.n_embd + c.q_width() + c.kv_width() + c.v_width() + ffn;
    m.compute = (batch * per_token + c.n_vocab + batch * std::min<uint64_t>(n_ctx, 4096)) * 4;
    return m;
}

}  // namespace hearth::model
