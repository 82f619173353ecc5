// The hyperparameters the forward pass needs, for the llama family (llama, mistral, tinyllama,
// smollm all convert as `llama`) and qwen2.
#pragma once

#include <cstdint>
#include <string>

#include "gguf/gguf_file.h"
#include "hearth/backend/graph.h"
#include "hearth/result.h"
#include "model/model_config.h"

namespace hearth::runtime {

using Arch = model::Arch;

struct ModelParams {
    Arch arch = Arch::Llama;
    std::string arch_name;  // general.architecture
    int64_t n_vocab = 0;
    int64_t n_embd = 0;  // hidden size
    int64_t n_layer = 0;
    int64_t n_head = 0;
    int64_t n_head_kv = 0;  // < n_head for grouped-query attention
    int64_t head_dim = 0;   // per head, for Q, K and V
    int64_t n_ff = 0;       // feed-forward width
    int64_t n_ctx_train = 0;
    float rms_eps = 1e-5f;
    backend::RopeParams rope;      // mode by arch, n_rot, base, linear scale
    backend::RopeParams rope_swa;  // sliding-window layers (gemma3: own base, no scaling)

    // Family features (model::ModelConfig has what each means).
    bool qk_norm = false;
    bool post_norms = false;
    bool gelu_ffn = false;
    float embd_scale = 0.f;  // embeddings multiplied by it (0: not scaled)
    bool fused_qkv = false;
    bool fused_gate_up = false;
    float attn_scale = 0.f;  // Q.K scale; 0 means 1/sqrt(head_dim)
    float attn_softcap = 0.f;
    float final_softcap = 0.f;
    int64_t n_swa = 0;
    int64_t swa_period = 0;
    bool longrope = false;      // rope_factors_{long,short}.weight are present
    int64_t rope_orig_ctx = 0;  // LongRoPE: contexts above it use the long factors
    int64_t n_expert = 0;       // 0: dense FFN
    int64_t n_expert_used = 0;
    int64_t n_ff_exp = 0;

    bool is_swa_layer(int64_t l) const {
        return n_swa > 0 && swa_period > 0 && l % swa_period < swa_period - 1;
    }
    float attention_scale() const;
    // Width of the FFN activations of one token: n_ff, or n_ff_exp for each chosen expert.
    int64_t ffn_width() const { return n_expert > 0 ? n_ff_exp * n_expert_used : n_ff; }

    int64_t q_width() const { return n_head * head_dim; }
    int64_t kv_width() const { return n_head_kv * head_dim; }
};

// Reads and checks the hyperparameters and the tensor set (engine/model's ModelConfig),
// refusing what the forward pass does not implement yet (YaRN, LongRoPE without its factor
// tensors, V heads of another size).
Result<ModelParams> read_model_params(const gguf::GgufFile& file);
Result<ModelParams> params_from_config(const model::ModelConfig& config);

// Checks that a set of hyperparameters is consistent (also used for synthetic models).
Status check_model_params(const ModelParams& p);

}  // namespace hearth::runtime
