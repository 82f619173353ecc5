#include "runtime/model_params.h"

#include <cmath>
#include <string>

namespace hearth::runtime {

float ModelParams::attention_scale() const {
    return attn_scale > 0.f ? attn_scale : static_cast<float>(1.0 / std::sqrt(double(head_dim)));
}

Status check_model_params(const ModelParams& p) {
    if (p.n_embd <= 0 || p.n_layer <= 0 || p.n_head <= 0 || p.n_head_kv <= 0 || p.n_ff <= 0 ||
        p.n_vocab <= 0 || p.head_dim <= 0)
        return Status::error("model hyperparameters must be positive");
    if (p.n_head % p.n_head_kv != 0)
        return Status::error("head_count must be a multiple of head_count_kv");
    if (p.rope.n_rot <= 0 || p.rope.n_rot % 2 != 0 || p.rope.n_rot > p.head_dim)
        return Status::error("rope dimension count must be even and at most the head size");
    if (!(p.rope.freq_base > 0.f) || !(p.rope.freq_scale > 0.f))
        return Status::error("rope frequency base and scale must be positive");
    if (!(p.rms_eps >= 0.f)) return Status::error("layer_norm_rms_epsilon must be >= 0");
    if (p.n_expert < 0 || (p.n_expert > 0 && (p.n_expert_used <= 0 ||
                                              p.n_expert_used > p.n_expert || p.n_ff_exp <= 0)))
        return Status::error("expert counts must be positive, at most expert_count");
    if (p.n_swa < 0 || p.swa_period < 0) return Status::error("bad sliding window");
    if (!(p.rope_swa.freq_base > 0.f) || !(p.rope_swa.freq_scale > 0.f))
        return Status::error("sliding-window rope frequency base and scale must be positive");
    return Status::ok();
}

Result<ModelParams> params_from_config(const model::ModelConfig& c) {
    if (c.head_dim_v != c.head_dim)
        return Result<ModelParams>::error("key_length and value_length differ (not supported)");
    const bool longrope = !c.rope_long_factors.empty() && !c.rope_short_factors.empty();
    if (c.rope_scaling == model::RopeScaling::Yarn ||
        (c.rope_scaling == model::RopeScaling::LongRope && !longrope))
        return Result<ModelParams>::error("rope scaling '" +
                                          std::string(model::rope_scaling_name(c.rope_scaling)) +
                                          "' is not supported yet");
    ModelParams p;
    p.arch = c.arch;
    p.arch_name = c.arch_name;
    p.n_vocab = c.n_vocab;
    p.n_embd = c.n_embd;
    p.n_layer = c.n_layer;
    p.n_head = c.n_head;
    p.n_head_kv = c.n_head_kv;
    p.head_dim = c.head_dim;
    p.n_ff = c.n_ff;
    p.n_ctx_train = c.n_ctx_train;
    p.rms_eps = c.rms_eps;
    p.rope.mode = c.rope_mode;
    p.rope.n_rot = static_cast<int32_t>(c.n_rot);
    p.rope.freq_base = c.rope_freq_base;
    p.rope.freq_scale = c.rope_freq_scale;
    p.rope.attn_factor = c.rope_attn_factor;
    p.rope_swa = p.rope;
    if (c.arch == model::Arch::Gemma3) {  // local layers: their own base, never scaled
        p.rope_swa.freq_base = c.rope_freq_base_swa;
        p.rope_swa.freq_scale = 1.f;
    }
    p.qk_norm = c.qk_norm;
    p.post_norms = c.post_norms;
    p.gelu_ffn = c.gelu_ffn;
    p.embd_scale = c.embd_scale ? static_cast<float>(std::sqrt(double(c.n_embd))) : 0.f;
    p.fused_qkv = c.fused_qkv;
    p.fused_gate_up = c.fused_gate_up;
    p.attn_scale = c.attn_scale;
    p.attn_softcap = c.attn_softcap;
    p.final_softcap = c.final_softcap;
    p.n_swa = c.n_swa;
    p.swa_period = c.swa_period;
    p.longrope = longrope;
    p.rope_orig_ctx = c.rope_orig_ctx;
    p.n_expert = c.n_expert;
    p.n_expert_used = c.n_expert_used;
    p.n_ff_exp = c.n_ff_exp;
    if (Status s = check_model_params(p); !s) return s;
    return p;
}

Result<ModelParams> read_model_params(const gguf::GgufFile& f) {
    auto config = model::load_model_config(f);
    if (!config) return config.status();
    return params_from_config(*config);
}

}  // namespace hearth::runtime
