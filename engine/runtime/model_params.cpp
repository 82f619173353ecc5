#include "runtime/model_params.h"

#include <string>

namespace hearth::runtime {

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
    return Status::ok();
}

Result<ModelParams> params_from_config(const model::ModelConfig& c) {
    if (c.head_dim_v != c.head_dim)
        return Result<ModelParams>::error("key_length and value_length differ (not supported)");
    if (c.rope_scaling == model::RopeScaling::Yarn ||
        c.rope_scaling == model::RopeScaling::LongRope)
        return Result<ModelParams>::error("rope scaling '" +
                                          std::string(model::rope_scaling_name(c.rope_scaling)) +
                                          "' is not supported yet");
    ModelParams p;
    p.arch = c.arch == model::Arch::Qwen2 ? Arch::Qwen2 : Arch::Llama;
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
    p.rope.mode = c.rope_style == model::RopeStyle::Neox ? backend::RopeMode::RotateHalf
                                                         : backend::RopeMode::Adjacent;
    p.rope.n_rot = static_cast<int32_t>(c.n_rot);
    p.rope.freq_base = c.rope_freq_base;
    p.rope.freq_scale = c.rope_freq_scale;
    if (Status s = check_model_params(p); !s) return s;
    return p;
}

Result<ModelParams> read_model_params(const gguf::GgufFile& f) {
    auto config = model::load_model_config(f);
    if (!config) return config.status();
    return params_from_config(*config);
}

}  // namespace hearth::runtime
