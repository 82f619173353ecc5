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

enum class Arch { Llama, Qwen2 };

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
    backend::RopeParams rope;  // mode by arch, n_rot, base, linear scale

    int64_t q_width() const { return n_head * head_dim; }
    int64_t kv_width() const { return n_head_kv * head_dim; }
};

// Reads and checks the hyperparameters and the tensor set (engine/model's ModelConfig),
// refusing what the forward pass does not implement yet (YaRN, LongRoPE, V heads of another
// size).
Result<ModelParams> read_model_params(const gguf::GgufFile& file);
Result<ModelParams> params_from_config(const model::ModelConfig& config);

// Checks that a set of hyperparameters is consistent (also used for synthetic models).
Status check_model_params(const ModelParams& p);

}  // namespace hearth::runtime
