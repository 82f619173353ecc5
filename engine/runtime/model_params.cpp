#include "runtime/model_params.h"

#include <cmath>
#include <string>

namespace hearth::runtime {

namespace {

Result<int64_t> get_count(const gguf::GgufFile& f, const std::string& key, bool required,
                          int64_t fallback) {
    const gguf::Value* v = f.find(key);
    if (!v) {
        if (required) return Result<int64_t>::error("missing metadata key " + key);
        return fallback;
    }
    if (v->type() == gguf::ValueType::Array)
        return Result<int64_t>::error(key + ": per-layer values are not supported");
    auto n = v->as_i64();
    if (!n || *n < 0 || *n > (int64_t(1) << 31))
        return Result<int64_t>::error(key + ": not a valid count");
    return *n;
}

Result<float> get_float(const gguf::GgufFile& f, const std::string& key, bool required,
                        float fallback) {
    const gguf::Value* v = f.find(key);
    if (!v) {
        if (required) return Result<float>::error("missing metadata key " + key);
        return fallback;
    }
    auto x = v->as_f64();
    if (!x || !std::isfinite(*x)) return Result<float>::error(key + ": not a number");
    return static_cast<float>(*x);
}

}  // namespace

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

Result<ModelParams> read_model_params(const gguf::GgufFile& f) {
    ModelParams p;
    auto arch = f.get_string("general.architecture");
    if (!arch) return Result<ModelParams>::error("missing general.architecture");
    p.arch_name = std::string(*arch);
    if (p.arch_name == "llama") {
        p.arch = Arch::Llama;
        p.rope.mode = backend::RopeMode::Adjacent;
    } else if (p.arch_name == "qwen2") {
        p.arch = Arch::Qwen2;
        p.rope.mode = backend::RopeMode::RotateHalf;
    } else {
        return Result<ModelParams>::error("unsupported architecture '" + p.arch_name +
                                          "' (supported: llama, qwen2)");
    }
    const std::string a = p.arch_name + ".";
#define HEARTH_TRY_SET(dst, expr)                         \
    do {                                                  \
        auto r_ = (expr);                                 \
        if (!r_) return Result<ModelParams>(r_.status()); \
        dst = *r_;                                        \
    } while (0)
    HEARTH_TRY_SET(p.n_ctx_train, get_count(f, a + "context_length", false, 2048));
    HEARTH_TRY_SET(p.n_embd, get_count(f, a + "embedding_length", true, 0));
    HEARTH_TRY_SET(p.n_layer, get_count(f, a + "block_count", true, 0));
    HEARTH_TRY_SET(p.n_ff, get_count(f, a + "feed_forward_length", true, 0));
    HEARTH_TRY_SET(p.n_head, get_count(f, a + "attention.head_count", true, 0));
    HEARTH_TRY_SET(p.n_head_kv, get_count(f, a + "attention.head_count_kv", false, p.n_head));
    if (p.n_head <= 0) return Result<ModelParams>::error("attention.head_count must be > 0");
    HEARTH_TRY_SET(p.head_dim,
                   get_count(f, a + "attention.key_length", false, p.n_embd / p.n_head));
    int64_t v_len = 0;
    HEARTH_TRY_SET(v_len, get_count(f, a + "attention.value_length", false, p.head_dim));
    if (v_len != p.head_dim)
        return Result<ModelParams>::error("key_length and value_length differ (not supported)");
    int64_t n_rot = 0;
    HEARTH_TRY_SET(n_rot, get_count(f, a + "rope.dimension_count", false, p.head_dim));
    p.rope.n_rot = static_cast<int32_t>(n_rot);
    if (p.arch == Arch::Llama && n_rot != p.head_dim)
        return Result<ModelParams>::error("llama: rope.dimension_count must equal the head size");
    HEARTH_TRY_SET(p.rms_eps, get_float(f, a + "attention.layer_norm_rms_epsilon", true, 0.f));
    HEARTH_TRY_SET(p.rope.freq_base, get_float(f, a + "rope.freq_base", false, 10000.f));
    float factor = 0.f;
    HEARTH_TRY_SET(factor, get_float(f, a + "rope.scaling.factor", false, 0.f));
    if (factor == 0.f) HEARTH_TRY_SET(factor, get_float(f, a + "rope.scale_linear", false, 0.f));
#undef HEARTH_TRY_SET
    const std::string scaling(f.get_string(a + "rope.scaling.type").value_or("linear"));
    if (scaling == "none") {
        factor = 0.f;
    } else if (scaling != "linear") {
        return Result<ModelParams>::error("rope scaling '" + scaling + "' is not supported yet");
    }
    p.rope.freq_scale = factor > 0.f ? 1.f / factor : 1.f;
    const gguf::TensorInfo* embd = f.find_tensor("token_embd.weight");
    if (!embd) return Result<ModelParams>::error("missing tensor token_embd.weight");
    p.n_vocab = static_cast<int64_t>(embd->ne[1]);
    if (Status s = check_model_params(p); !s) return s;
    return p;
}

}  // namespace hearth::runtime
