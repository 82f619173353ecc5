// Hyper-parameters from GGUF metadata, with llama.cpp's strict key types and defaults.
#include "model/model_config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <string>

namespace hearth::model {

namespace {

using gguf::GgufFile;
using gguf::Value;
using gguf::ValueType;

std::string type_error(std::string_view key, const Value& v, std::string_view expected) {
    return "key '" + std::string(key) + "' has wrong type " +
           std::string(gguf::value_type_name(v.type())) + ", expected " + std::string(expected);
}

// Reads a UINT32 key. Absent: nullopt; wrong type: error.
Status get_u32(const GgufFile& f, const std::string& key, std::optional<uint32_t>& out) {
    out.reset();
    const Value* v = f.find(key);
    if (!v) return Status::ok();
    if (v->type() != ValueType::U32) return Status::error(type_error(key, *v, "UINT32"));
    out = static_cast<uint32_t>(*v->as_u64());
    return Status::ok();
}

// A UINT32 key that may also be a per-layer array (UINT32/INT32); every layer must agree.
Status get_u32_or_layers(const GgufFile& f, const std::string& key, std::optional<uint32_t>& out) {
    const Value* v = f.find(key);
    if (!v || v->type() != ValueType::Array) return get_u32(f, key, out);
    if (v->array_type() != ValueType::U32 && v->array_type() != ValueType::I32)
        return Status::error("key '" + key + "' is an array of " +
                             std::string(gguf::value_type_name(v->array_type())) +
                             ", expected UINT32 or an array of UINT32");
    if (v->array_size() == 0) return Status::error("key '" + key + "' is an empty array");
    const int64_t first = v->int_at(0);
    for (uint64_t i = 1; i < v->array_size(); ++i)
        if (v->int_at(i) != first)
            return Status::error("key '" + key +
                                 "' differs between layers; per-layer sizes are not supported yet");
    if (first < 0 || first > UINT32_MAX)
        return Status::error("key '" + key + "' has an invalid value " + std::to_string(first));
    out = static_cast<uint32_t>(first);
    return Status::ok();
}

Status get_f32(const GgufFile& f, const std::string& key, std::optional<float>& out) {
    out.reset();
    const Value* v = f.find(key);
    if (!v) return Status::ok();
    if (v->type() != ValueType::F32) return Status::error(type_error(key, *v, "FLOAT32"));
    out = static_cast<float>(*v->as_f64());
    return Status::ok();
}

std::string lower(std::string_view s) {
    std::string r(s);
    for (auto& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return r;
}

std::string guess_family(const GgufFile& f, const ModelConfig& c) {
    if (c.arch != Arch::Llama) return std::string(arch_name(c.arch));
    const std::string name = lower(c.name);
    const std::string pre = std::string(f.get_string("tokenizer.ggml.pre").value_or(""));
    if (name.find("tinyllama") != std::string::npos) return "tinyllama";
    if (name.find("mistral") != std::string::npos) return "mistral";
    if (name.find("smollm") != std::string::npos || pre == "smollm") return "smollm";
    if (pre == "llama-bpe" || pre == "llama3" || f.find_tensor("rope_freqs.weight") ||
        c.n_vocab == 128256)
        return "llama3";
    if (name.find("llama") != std::string::npos && c.n_vocab == 32000) return "llama2";
    return "llama";
}

}  // namespace

std::string_view arch_name(Arch a) {
    switch (a) {
        case Arch::Llama:
            return "llama";
        case Arch::Qwen2:
            return "qwen2";
        case Arch::Qwen3:
            return "qwen3";
        case Arch::Qwen3Moe:
            return "qwen3moe";
        case Arch::Gemma2:
            return "gemma2";
        case Arch::Gemma3:
            return "gemma3";
        case Arch::Phi3:
            return "phi3";
    }
    return "?";
}

float ModelConfig::attention_scale() const {
    return attn_scale > 0.f ? attn_scale : static_cast<float>(1.0 / std::sqrt(double(head_dim)));
}

std::string_view rope_scaling_name(RopeScaling s) {
    switch (s) {
        case RopeScaling::None:
            return "none";
        case RopeScaling::Linear:
            return "linear";
        case RopeScaling::Yarn:
            return "yarn";
        case RopeScaling::LongRope:
            return "longrope";
    }
    return "?";
}

#define HEARTH_TRY(expr)                        \
    do {                                        \
        if (Status s_ = (expr); !s_) return s_; \
    } while (0)

Result<ModelConfig> config_from_metadata(const GgufFile& f) {
    ModelConfig c;
    const Value* arch = f.find("general.architecture");
    if (!arch)
        return Result<ModelConfig>::error("general.architecture is missing: not a model file");
    if (arch->type() != ValueType::String)
        return Result<ModelConfig>::error(type_error("general.architecture", *arch, "STRING"));
    c.arch_name = std::string(*arch->as_string());
    bool known = false;
    for (Arch a : {Arch::Llama, Arch::Qwen2, Arch::Qwen3, Arch::Qwen3Moe, Arch::Gemma2,
                   Arch::Gemma3, Arch::Phi3})
        if (c.arch_name == arch_name(a)) {
            c.arch = a;
            known = true;
        }
    if (!known)
        return Result<ModelConfig>::error(
            "architecture '" + c.arch_name +
            "' is not supported yet (supported: llama, qwen2, qwen3, qwen3moe, gemma2, gemma3, "
            "phi3)");
    c.rope.mode = c.arch == Arch::Llama ? RopeMode::Adjacent : RopeMode::RotateHalf;
    c.qk_norm = c.arch == Arch::Qwen3 || c.arch == Arch::Qwen3Moe || c.arch == Arch::Gemma3;
    const bool gemma = c.arch == Arch::Gemma2 || c.arch == Arch::Gemma3;
    c.post_norms = c.gelu_ffn = gemma;
    c.fused_qkv = c.fused_gate_up = c.arch == Arch::Phi3;
    // llama.cpp's fixed layer patterns (no GGUF key): gemma2 alternates, gemma3 has 5 : 1.
    if (c.arch == Arch::Gemma2) c.swa_period = 2;
    if (c.arch == Arch::Gemma3) c.swa_period = 6;
    if (const Value* n = f.find("general.name"); n && n->type() == ValueType::String)
        c.name = std::string(*n->as_string());

    const std::string p = c.arch_name + ".";
    std::optional<uint32_t> ctx, embd, layers, ff, head, head_kv, key_len, val_len, rot, vocab,
        orig_ctx, ftype;
    std::optional<float> base, eps, factor, scale_linear;
    HEARTH_TRY(get_u32(f, p + "context_length", ctx));
    HEARTH_TRY(get_u32(f, p + "embedding_length", embd));
    HEARTH_TRY(get_u32(f, p + "block_count", layers));
    HEARTH_TRY(get_u32_or_layers(f, p + "feed_forward_length", ff));
    HEARTH_TRY(get_u32_or_layers(f, p + "attention.head_count", head));
    HEARTH_TRY(get_u32_or_layers(f, p + "attention.head_count_kv", head_kv));
    HEARTH_TRY(get_u32(f, p + "attention.key_length", key_len));
    HEARTH_TRY(get_u32(f, p + "attention.value_length", val_len));
    HEARTH_TRY(get_u32(f, p + "rope.dimension_count", rot));
    HEARTH_TRY(get_u32(f, p + "vocab_size", vocab));
    HEARTH_TRY(get_u32(f, p + "rope.scaling.original_context_length", orig_ctx));
    HEARTH_TRY(get_u32(f, "general.file_type", ftype));
    HEARTH_TRY(get_f32(f, p + "rope.freq_base", base));
    HEARTH_TRY(get_f32(f, p + "attention.layer_norm_rms_epsilon", eps));
    HEARTH_TRY(get_f32(f, p + "rope.scaling.factor", factor));
    HEARTH_TRY(get_f32(f, p + "rope.scale_linear", scale_linear));
    std::optional<uint32_t> n_exp, n_exp_used, ff_exp, swa;
    std::optional<float> a_scale, a_cap, f_cap, base_swa, attn_factor;
    HEARTH_TRY(get_u32(f, p + "expert_count", n_exp));
    HEARTH_TRY(get_u32(f, p + "expert_used_count", n_exp_used));
    HEARTH_TRY(get_u32(f, p + "expert_feed_forward_length", ff_exp));
    HEARTH_TRY(get_u32(f, p + "attention.sliding_window", swa));
    HEARTH_TRY(get_f32(f, p + "attention.scale", a_scale));
    HEARTH_TRY(get_f32(f, p + "attn_logit_softcapping", a_cap));
    HEARTH_TRY(get_f32(f, p + "final_logit_softcapping", f_cap));
    HEARTH_TRY(get_f32(f, p + "rope.freq_base_swa", base_swa));
    HEARTH_TRY(get_f32(f, p + "rope.scaling.attn_factor", attn_factor));

    auto missing = [&](const std::string& key) {
        return Result<ModelConfig>::error("required key '" + key + "' is missing");
    };
    if (!ctx) return missing(p + "context_length");
    if (!embd) return missing(p + "embedding_length");
    if (!layers) return missing(p + "block_count");
    if (!ff) return missing(p + "feed_forward_length");
    if (!head) return missing(p + "attention.head_count");
    if (!eps) return missing(p + "attention.layer_norm_rms_epsilon");
    c.n_ctx_train = *ctx;
    c.n_embd = *embd;
    c.n_layer = *layers;
    c.n_ff = *ff;
    c.n_head = *head;
    c.n_head_kv = head_kv.value_or(c.n_head);
    c.rms_eps = *eps;
    if (ftype) c.file_type = *ftype;

    auto bad = [](const std::string& what) { return Result<ModelConfig>::error(what); };
    if (c.n_embd == 0) return bad(p + "embedding_length is 0");
    if (c.n_layer == 0) return bad(p + "block_count is 0");
    if (c.n_ff == 0) return bad(p + "feed_forward_length is 0");
    if (c.n_head == 0) return bad(p + "attention.head_count is 0");
    if (c.n_head_kv == 0 || c.n_head % c.n_head_kv != 0)
        return bad("attention.head_count " + std::to_string(c.n_head) +
                   " is not a multiple of attention.head_count_kv " + std::to_string(c.n_head_kv));
    if (!key_len && c.n_embd % c.n_head != 0)
        return bad(p + "embedding_length " + std::to_string(c.n_embd) +
                   " is not divisible by the head count " + std::to_string(c.n_head));
    c.head_dim = key_len.value_or(c.n_embd / c.n_head);
    c.head_dim_v = val_len.value_or(c.head_dim);
    if (c.head_dim == 0 || c.head_dim_v == 0) return bad("attention key/value length is 0");
    // Sizes that would overflow 32-bit tensor dimensions are nonsense for these models.
    if (c.n_head * std::max(c.head_dim, c.head_dim_v) > UINT32_MAX || c.head_dim > INT32_MAX)
        return bad("attention head sizes are too large");
    const int64_t n_rot = rot ? int64_t{*rot} : c.head_dim;
    if (c.arch == Arch::Llama && n_rot != c.head_dim)
        return bad("invalid n_rot: " + p + "rope.dimension_count is " + std::to_string(n_rot) +
                   " but the head dimension is " + std::to_string(c.head_dim));
    if (n_rot > c.head_dim || n_rot % 2 != 0)
        return bad(p + "rope.dimension_count " + std::to_string(n_rot) +
                   " must be even and at most the head dimension " + std::to_string(c.head_dim));
    c.rope.n_rot = static_cast<int32_t>(n_rot);
    if (gemma) c.embd_scale = static_cast<float>(std::sqrt(double(c.n_embd)));

    c.rope.freq_base = base.value_or(10000.0f);
    if (!(c.rope.freq_base > 0.0f) || !std::isfinite(c.rope.freq_base))
        return bad(p + "rope.freq_base must be a positive number");
    if (!(c.rms_eps > 0.0f) || !std::isfinite(c.rms_eps))
        return bad(p + "attention.layer_norm_rms_epsilon must be a positive number");
    const float f_scale = factor ? *factor : scale_linear.value_or(0.0f);
    c.rope.freq_scale = (f_scale == 0.0f || !std::isfinite(f_scale)) ? 1.0f : 1.0f / f_scale;
    c.rope_orig_ctx = orig_ctx ? int64_t{*orig_ctx} : c.n_ctx_train;
    c.rope_scaling = c.rope.freq_scale != 1.0f ? RopeScaling::Linear : RopeScaling::None;
    if (const Value* st = f.find(p + "rope.scaling.type")) {
        if (st->type() != ValueType::String)
            return Result<ModelConfig>::error(type_error(p + "rope.scaling.type", *st, "STRING"));
        const auto s = *st->as_string();
        if (s == "none")
            c.rope_scaling = RopeScaling::None;
        else if (s == "linear")
            c.rope_scaling = RopeScaling::Linear;
        else if (s == "yarn")
            c.rope_scaling = RopeScaling::Yarn;
        else if (s == "longrope")
            c.rope_scaling = RopeScaling::LongRope;
        else
            return bad("unknown " + p + "rope.scaling.type '" + std::string(s) + "'");
    }

    // Family features read from keys.
    auto finite_pos = [](const std::optional<float>& v) {
        return v && *v > 0 && std::isfinite(*v);
    };
    if (finite_pos(a_scale)) {
        c.attn_scale = *a_scale;
    } else if ((c.arch == Arch::Gemma2 && c.n_layer == 46) ||
               (c.arch == Arch::Gemma3 && c.n_layer == 62)) {
        // The 27B Gemmas scale queries by 1/sqrt(n_embd / n_head) (168 or 144), not by the
        // head size (128); their files carry no key for it, so llama.cpp keys it on the depth.
        c.attn_scale = static_cast<float>(1.0 / std::sqrt(double(c.n_embd) / double(c.n_head)));
    }
    if (c.arch == Arch::Gemma2) {  // the soft-caps are gemma2's (gemma3 files may carry none)
        if (finite_pos(a_cap)) c.attn_softcap = *a_cap;
        if (finite_pos(f_cap)) c.final_softcap = *f_cap;
    }
    if (c.swa_period > 0) {
        c.n_swa = swa.value_or(0);
        if (c.n_swa == 0) c.swa_period = 0;  // no window: every layer is global
    }
    if (attn_factor && std::isfinite(*attn_factor) && *attn_factor > 0)
        c.rope.attn_factor = *attn_factor;
    c.rope_swa = c.rope;
    if (c.arch == Arch::Gemma3) {  // local layers: their own base, never scaled
        c.rope_swa.freq_base = base_swa.value_or(10000.f);
        c.rope_swa.freq_scale = 1.f;
    }
    if (!(c.rope_swa.freq_base > 0.f) || !std::isfinite(c.rope_swa.freq_base))
        return bad(p + "rope.freq_base_swa must be a positive number");
    if (n_exp && *n_exp > 0) {
        if (c.arch != Arch::Llama && c.arch != Arch::Qwen3Moe)
            return bad(p +
                       "expert_count is set, but experts are supported only for llama and "
                       "qwen3moe");
        c.n_expert = *n_exp;
        c.n_expert_used = n_exp_used.value_or(0);
        if (c.n_expert_used == 0 || c.n_expert_used > c.n_expert)
            return bad(p + "expert_used_count must be between 1 and expert_count (" +
                       std::to_string(c.n_expert) + ")");
        c.n_ff_exp = ff_exp.value_or(c.n_ff);
        if (c.n_ff_exp == 0) return bad(p + "expert_feed_forward_length is 0");
    } else if (c.arch == Arch::Qwen3Moe) {
        return bad("qwen3moe without " + p + "expert_count");
    }

    // Vocabulary: the explicit key, else the tokens array, else the embedding's rows.
    if (vocab) {
        c.n_vocab = *vocab;
    } else if (const Value* t = f.find("tokenizer.ggml.tokens");
               t && t->type() == ValueType::Array) {
        if (t->array_size() > UINT32_MAX) return bad("tokenizer.ggml.tokens is too large");
        c.n_vocab = static_cast<uint32_t>(t->array_size());
    } else if (const auto* e = f.find_tensor("token_embd.weight"); e && e->ne[1] <= UINT32_MAX) {
        c.n_vocab = static_cast<uint32_t>(e->ne[1]);
    }
    if (c.n_vocab == 0)
        return bad("the vocabulary size is unknown (no tokens and no " + p + "vocab_size)");
    c.family = guess_family(f, c);
    return c;
}

Result<ModelConfig> load_model_config(const GgufFile& f) {
    auto c = config_from_metadata(f);
    if (!c) return c;
    if (auto s = check_tensors(f, *c); !s) return s;
    return c;
}

}  // namespace hearth::model
