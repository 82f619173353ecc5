// The hyper-parameters of a supported model, read from GGUF metadata (llama family and qwen2).
// Shapes below use GGUF order: ne0 (the row length, fastest varying) first.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/gguf_file.h"
#include "hearth/backend/rope_mode.h"
#include "hearth/result.h"

namespace hearth::model {

enum class Arch {
    Llama,     // "llama": Llama 1/2/3/3.1/3.2, Mistral 7B, TinyLlama, SmolLM/SmolLM2
    Qwen2,     // "qwen2": Qwen2 / Qwen2.5 (QKV biases, often tied embeddings)
    Qwen3,     // "qwen3": per-head RMS norm of Q and K before RoPE
    Qwen3Moe,  // "qwen3moe": the qwen3 attention with a mixture-of-experts FFN
    Gemma2,    // "gemma2": GeGLU, scaled embeddings, post-norms, soft-capping, sliding window
    Gemma3,    // "gemma3": gemma2 without soft-capping, Q/K norms, 5 local : 1 global layers
    Phi3,      // "phi3": Phi-3 / Phi-4-mini (fused QKV and gate/up, partial rotary, LongRoPE)
};
std::string_view arch_name(Arch a);

using backend::RopeMode;  // how RoPE pairs a head's dimensions: Adjacent (llama), RotateHalf

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
    RopeMode rope_mode = RopeMode::Adjacent;
    float rope_freq_base = 10000.0f;               // θ base: freq_i = base^(-2i/n_rot)
    RopeScaling rope_scaling = RopeScaling::None;  // None unless the key says otherwise
    float rope_freq_scale = 1.0f;                  // 1 / rope.scaling.factor (1 when absent or 0)
    uint32_t rope_orig_ctx = 0;  // rope.scaling.original_context_length (default n_ctx_train)
    // Llama 3.1-style per-frequency divisors from rope_freqs.weight {n_rot/2}: the angle of
    // frequency i is divided by rope_freq_factors[i]. Empty when the tensor is absent.
    std::vector<float> rope_freq_factors;

    float rms_eps = 1e-5f;  // RMSNorm epsilon (attention.layer_norm_rms_epsilon, required)

    // Family features (set from the architecture; see each Arch above).
    bool qk_norm = false;        // blk.N.attn_{q,k}_norm.weight {head_dim}, before RoPE
    bool post_norms = false;     // blk.N.post_attention_norm / post_ffw_norm {n_embd}
    bool gelu_ffn = false;       // GeGLU (tanh GELU) instead of SwiGLU
    bool embd_scale = false;     // embeddings multiplied by sqrt(n_embd)
    bool fused_qkv = false;      // blk.N.attn_qkv.weight {n_embd, q + k + v}
    bool fused_gate_up = false;  // blk.N.ffn_up.weight {n_embd, 2 n_ff}: gate rows, then up
    float attn_scale = 0.f;      // attention.scale: Q scaling (0: 1/sqrt(head_dim))
    float attn_softcap = 0.f;    // attn_logit_softcapping (0: none)
    float final_softcap = 0.f;   // final_logit_softcapping (0: none)
    uint32_t n_swa = 0;          // attention.sliding_window (0: every layer is global)
    // Layer il uses the sliding window when il % swa_period < swa_period - 1 (gemma2: 2,
    // gemma3: 6); 0 when no layer does.
    uint32_t swa_period = 0;
    float rope_freq_base_swa = 10000.f;  // RoPE base of sliding layers (gemma3), unscaled
    float rope_attn_factor = 1.f;        // rope.scaling.attn_factor (LongRoPE magnitude)
    // LongRoPE per-frequency divisors (phi3): rope_factors_{long,short}.weight {n_rot/2}; the
    // long ones apply when the context exceeds rope_orig_ctx. Empty when absent.
    std::vector<float> rope_long_factors, rope_short_factors;

    // Mixture of experts (0 experts: a dense FFN).
    uint32_t n_expert = 0;       // expert_count
    uint32_t n_expert_used = 0;  // expert_used_count (top-k)
    uint32_t n_ff_exp = 0;       // expert FFN width (expert_feed_forward_length, or n_ff)

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
