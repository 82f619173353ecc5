#include "runtime/config_support.h"

#include <string>

namespace hearth::runtime {

Status check_config(const ModelConfig& c) {
    if (c.n_embd <= 0 || c.n_layer <= 0 || c.n_head <= 0 || c.n_head_kv <= 0 || c.n_ff <= 0 ||
        c.n_vocab <= 0 || c.head_dim <= 0)
        return Status::error("model hyperparameters must be positive");
    if (c.n_head % c.n_head_kv != 0)
        return Status::error("head_count must be a multiple of head_count_kv");
    if (c.head_dim_v != c.head_dim)
        return Status::error("key_length and value_length differ (not supported)");
    if (c.rope.n_rot <= 0 || c.rope.n_rot % 2 != 0 || c.rope.n_rot > c.head_dim)
        return Status::error("rope dimension count must be even and at most the head size");
    if (!(c.rope.freq_base > 0.f) || !(c.rope.freq_scale > 0.f))
        return Status::error("rope frequency base and scale must be positive");
    if (!(c.rms_eps >= 0.f)) return Status::error("layer_norm_rms_epsilon must be >= 0");
    if (c.n_expert < 0 || (c.n_expert > 0 && (c.n_expert_used <= 0 ||
                                              c.n_expert_used > c.n_expert || c.n_ff_exp <= 0)))
        return Status::error("expert counts must be positive, at most expert_count");
    if (c.n_swa < 0 || c.swa_period < 0) return Status::error("bad sliding window");
    if (!(c.rope_swa.freq_base > 0.f) || !(c.rope_swa.freq_scale > 0.f))
        return Status::error("sliding-window rope frequency base and scale must be positive");
    if (c.rope_scaling == model::RopeScaling::Yarn ||
        (c.rope_scaling == model::RopeScaling::LongRope && !c.longrope()))
        return Status::error("rope scaling '" +
                             std::string(model::rope_scaling_name(c.rope_scaling)) +
                             "' is not supported yet");
    return Status::ok();
}

Result<ModelConfig> load_supported_config(const gguf::GgufFile& f) {
    auto config = model::load_model_config(f);
    if (!config) return config;
    if (Status s = check_config(*config); !s) return s;
    return config;
}

}  // namespace hearth::runtime
