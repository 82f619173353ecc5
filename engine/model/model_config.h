// The hyper-parameters of a supported model, read from GGUF metadata (llama family and qwen2).
// Shapes below use GGUF order: ne0 (the row length, fastest varying) first.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/gguf_file.h"
#include "hearth/backend/rope.h"
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

using backend::RopeMode;
using backend::RopeParams;

// <arch>.rope.scaling.type
enum class RopeScaling { None, Linear, Yarn, LongRope };
std::string_view rope_scaling_name(RopeScaling s);

// One model's hyper-parameters: what the file says (read by config_from_metadata and
// check_tensors) and what the forward pass runs on (runtime::load_supported_config refuses
// what it does not implement yet; tests fill one directly for synthetic models). Sizes are
// int64_t, the type tensor shapes and the forward pass compute in.
struct ModelConfig {
    Arch arch = Arch::Llama;
    std::string arch_name;  // general.architecture, e.g. "llama"
    // Best guess of the model family from the name and vocabulary: "llama2", "llama3",
    // "mistral", "tinyllama", "smollm", "qwen2" or "llama" when unknown. Informational only.
    std::string family;
    std::string name;  // general.name, may be empty

    int64_t n_vocab = 0;     // rows of token_embd.weight / output.weight {n_embd, n_vocab}
    int64_t n_embd = 0;      // hidden size: width of the residual stream
    int64_t n_layer = 0;     // number of transformer blocks (blk.0 .. blk.{n_layer-1})
    int64_t n_head = 0;      // query heads
    int64_t n_head_kv = 0;   // key/value heads (GQA when < n_head); n_head % n_head_kv == 0
    int64_t head_dim = 0;    // per-head width of Q and K (key_length; default n_embd/n_head)
    int64_t head_dim_v = 0;  // per-head width of V (value_length; default head_dim)
    int64_t n_ff = 0;  // FFN inner width: ffn_gate/ffn_up {n_embd, n_ff}, ffn_down {n_ff, n_embd}
    int64_t n_ctx_train = 0;  // <arch>.context_length: the context the model was trained for

    // Pairing by arch; n_rot = rope.dimension_count (default head_dim); θ base; linear scale =
    // 1 / rope.scaling.factor (1 when absent or 0); attn_factor = rope.scaling.attn_factor.
    RopeParams rope;
    // The sliding-window layers' RoPE: gemma3's own base (rope.freq_base_swa), unscaled; else
    // equal to rope.
    RopeParams rope_swa;
    RopeScaling rope_scaling = RopeScaling::None;  // None unless the key says otherwise
    int64_t rope_orig_ctx = 0;  // rope.scaling.original_context_length (default n_ctx_train)
    // Llama 3.1-style per-frequency divisors from rope_freqs.weight {n_rot/2}: the angle of
    // frequency i is divided by rope_freq_factors[i]. Empty when the tensor is absent.
    std::vector<float> rope_freq_factors;
    // LongRoPE per-frequency divisors (phi3): rope_factors_{long,short}.weight {n_rot/2}; the
    // long ones apply when the context exceeds rope_orig_ctx. Empty when absent.
    std::vector<float> rope_long_factors, rope_short_factors;

    float rms_eps = 1e-5f;  // RMSNorm epsilon (attention.layer_norm_rms_epsilon, required)

    // Family features (set from the architecture; see each Arch above).
    bool qk_norm = false;        // blk.N.attn_{q,k}_norm.weight {head_dim}, before RoPE
    bool post_norms = false;     // blk.N.post_attention_norm / post_ffw_norm {n_embd}
    bool gelu_ffn = false;       // GeGLU (tanh GELU) instead of SwiGLU
    float embd_scale = 0.f;      // embeddings multiplied by it (gemma: sqrt(n_embd); 0: not)
    bool fused_qkv = false;      // blk.N.attn_qkv.weight {n_embd, q + k + v}
    bool fused_gate_up = false;  // blk.N.ffn_up.weight {n_embd, 2 n_ff}: gate rows, then up
    float attn_scale = 0.f;      // attention.scale: Q scaling (0: 1/sqrt(head_dim))
    float attn_softcap = 0.f;    // attn_logit_softcapping (0: none)
    float final_softcap = 0.f;   // final_logit_softcapping (0: none)
    int64_t n_swa = 0;           // attention.sliding_window (0: every layer is global)
    // Layer il uses the sliding window when il % swa_period < swa_period - 1 (gemma2: 2,
    // gemma3: 6); 0 when no layer does.
    int64_t swa_period = 0;

    // Mixture of experts (0 experts: a dense FFN).
    int64_t n_expert = 0;       // expert_count
    int64_t n_expert_used = 0;  // expert_used_count (top-k)
    int64_t n_ff_exp = 0;       // expert FFN width (expert_feed_forward_length, or n_ff)

    // Filled by check_tensors() (false until then):
    bool tied_embeddings = false;  // no output.weight: logits use token_embd.weight
    bool has_qkv_bias = false;  // blk.N.attn_{q,k,v}.bias {n_head*head_dim} / {n_head_kv*head_dim}
    bool has_output_bias = false;  // blk.N.attn_output.bias {n_embd}

    uint32_t file_type = 0xFFFFFFFF;  // general.file_type (llama.h LLAMA_FTYPE_*), or ~0 if absent

    int64_t q_width() const { return n_head * head_dim; }       // attn_q output width
    int64_t kv_width() const { return n_head_kv * head_dim; }   // attn_k output width
    int64_t v_width() const { return n_head_kv * head_dim_v; }  // attn_v output width
    bool is_swa_layer(int64_t l) const {
        return n_swa > 0 && swa_period > 0 && l % swa_period < swa_period - 1;
    }
    // Both LongRoPE factor sets are present (phi3 with rope.scaling.type longrope).
    bool longrope() const { return !rope_long_factors.empty() && !rope_short_factors.empty(); }
    // The Q.K scale: attn_scale, or 1/sqrt(head_dim).
    float attention_scale() const;
    // Width of the FFN activations of one token: n_ff, or n_ff_exp for each chosen expert.
    int64_t ffn_width() const { return n_expert > 0 ? n_ff_exp * n_expert_used : n_ff; }
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
