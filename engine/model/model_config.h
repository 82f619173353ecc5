// The hyper-parameters of a supported model, read from GGUF metadata (llama family and qwen2).
// Shapes below use GGUF order: ne0 (the row length, fastest varying) first.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/gguf_file.h"
#include "hearth/result.h"

namespace hearth::model {

enum class Arch {
    Llama,  // "llama": Llama 1/2/3/3.1/3.2, Mistral 7B, TinyLlama, SmolLM/SmolLM2
    Qwen2,  // "qwen2": Qwen2 / Qwen2.5 (QKV biases, often tied embeddings)
};
std::string_view arch_name(Arch a);

// How RoPE pairs the dimensions of a head.
enum class RopeStyle {
    Adjacent,  // llama.cpp "NORM": rotates (x[2i], x[2i+1]); arch llama (weights pre-permuted)
    Neox,      // llama.cpp "NEOX": rotates (x[i], x[i + n_rot/2]); arch qwen2
};

// <arch>.rope.scaling.type
enum class RopeScaling { None, Linear, Yarn, LongRope };
std::string_view rope_scaling_name(RopeScaling s);

struct ModelConfig {
    Arch arch = Arch::Llama;
    std::string arch_name;  // general.architecture, e.g. "llama"
    // Best guess of the model family from the name and vocabulary: "llama2", "llama3",
    // "mistral", "tinyllama", "smollm", "qwen2" or "llama" when unknown. Informational only.
    std::string family;
    std::string name;  // general.name, may be empty

    uint32_t n_vocab = 0;     // rows of token_embd.weight / output.weight {n_embd, n_vocab}
    uint32_t n_embd = 0;      // hidden size: width of the residual stream
    uint32_t n_layer = 0;     // number of transformer blocks (blk.0 .. blk.{n_layer-1})
    uint32_t n_head = 0;      // query heads
    uint32_t n_head_kv = 0;   // key/value heads (GQA when < n_head); n_head % n_head_kv == 0
    uint32_t head_dim = 0;    // per-head width of Q and K (key_length; default n_embd/n_head)
    uint32_t head_dim_v = 0;  // per-head width of V (value_length; default head_dim)
    uint32_t n_ff = 0;  // FFN inner width: ffn_gate/ffn_up {n_embd, n_ff}, ffn_down {n_ff, n_embd}
    uint32_t n_ctx_train = 0;  // <arch>.context_length: the context the model was trained for

    uint32_t n_rot = 0;  // rotary dims per head (rope.dimension_count; default head_dim)
    RopeStyle rope_style = RopeStyle::Adjacent;
    float rope_freq_base = 10000.0f;               // θ base: freq_i = base^(-2i/n_rot)
    RopeScaling rope_scaling = RopeScaling::None;  // None unless the key says otherwise
    float rope_freq_scale = 1.0f;                  // 1 / rope.scaling.factor (1 when absent or 0)
    uint32_t rope_orig_ctx = 0;  // rope.scaling.original_context_length (default n_ctx_train)
    // Llama 3.1-style per-frequency divisors from rope_freqs.weight {n_rot/2}: the angle of
    // frequency i is divided by rope_freq_factors[i]. Empty when the tensor is absent.
    std::vector<float> rope_freq_factors;

    float rms_eps = 1e-5f;  // RMSNorm epsilon (attention.layer_norm_rms_epsilon, required)

    // Filled by check_tensors() (false until then):
    bool tied_embeddings = false;  // no output.weight: logits use token_embd.weight
    bool has_qkv_bias = false;  // blk.N.attn_{q,k,v}.bias {n_head*head_dim} / {n_head_kv*head_dim}
    bool has_output_bias = false;  // blk.N.attn_output.bias {n_embd}

    uint32_t file_type = 0xFFFFFFFF;  // general.file_type (llama.h LLAMA_FTYPE_*), or ~0 if absent

    uint32_t q_dim() const { return n_head * head_dim; }       // attn_q output width
    uint32_t k_dim() const { return n_head_kv * head_dim; }    // attn_k output width
    uint32_t v_dim() const { return n_head_kv * head_dim_v; }  // attn_v output width
};

// Reads and checks the hyper-parameters. Key types are strict as in llama.cpp (counts UINT32,
// floats FLOAT32); an unsupported architecture or an inconsistent shape is an error.
Result<ModelConfig> config_from_metadata(const gguf::GgufFile& file);

// Checks that the file holds exactly the tensors this config needs, with the right shapes, and
// fills the tensor-derived fields (tied embeddings, biases, rope_freq_factors).
Status check_tensors(const gguf::GgufFile& file, ModelConfig& config);

// Both of the above.
Result<ModelConfig> load_model_config(const gguf::GgufFile& file);

}  // namespace hearth::model
