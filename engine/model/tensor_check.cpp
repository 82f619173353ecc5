// Tensor-set validation: every tensor the architecture needs, with the right shape, and nothing
// else. Messages name the tensor and both shapes so a user can see what is wrong with a file.
#include <set>
#include <string>
#include <vector>

#include "model/model_config.h"
#include "quant/quant_ref.h"

namespace hearth::model {

namespace {

using gguf::GgufFile;
using gguf::TensorInfo;

std::string shape_text(const std::vector<uint64_t>& ne) {
    std::string s = "[";
    for (size_t i = 0; i < ne.size(); ++i) s += (i ? ", " : "") + std::to_string(ne[i]);
    return s + "]";
}

std::string shape_text(const TensorInfo& t) {
    return shape_text(std::vector<uint64_t>(t.ne, t.ne + t.n_dims));
}

// Whether t has exactly the dims `want` (missing trailing dims count as 1).
bool same_shape(const TensorInfo& t, const std::vector<uint64_t>& want) {
    for (size_t d = 0; d < 4; ++d)
        if (t.ne[d] != (d < want.size() ? want[d] : 1)) return false;
    return true;
}

class Checker {
public:
    explicit Checker(const GgufFile& f) : f_(f) {}

    // A required tensor; returns nullptr (and records the error) when missing or wrong.
    const TensorInfo* need(const std::string& name, const std::vector<uint64_t>& shape) {
        const TensorInfo* t = f_.find_tensor(name);
        if (!t) {
            fail(name + ": missing (expected shape " + shape_text(shape) + ")");
            return nullptr;
        }
        return check(*t, shape) ? t : nullptr;
    }
    // An optional tensor; nullptr when absent.
    const TensorInfo* maybe(const std::string& name, const std::vector<uint64_t>& shape) {
        const TensorInfo* t = f_.find_tensor(name);
        if (!t) return nullptr;
        return check(*t, shape) ? t : nullptr;
    }
    void fail(const std::string& m) {
        if (error_.empty()) error_ = m;
    }
    bool failed() const { return !error_.empty(); }
    Status finish() {
        if (error_.empty()) {
            for (const auto& t : f_.tensors()) {
                if (!seen_.count(std::string(t.name))) {
                    fail("unexpected tensor '" + std::string(t.name) + "' " + shape_text(t) +
                         ": not part of this architecture");
                    break;
                }
            }
        }
        return error_.empty() ? Status::ok() : Status::error(error_);
    }

private:
    bool check(const TensorInfo& t, const std::vector<uint64_t>& shape) {
        seen_.insert(std::string(t.name));
        if (!same_shape(t, shape)) {
            fail(std::string(t.name) + ": expected " + shape_text(shape) + ", file has " +
                 shape_text(t));
            return false;
        }
        return true;
    }
    const GgufFile& f_;
    std::set<std::string> seen_;
    std::string error_;
};

}  // namespace

Status check_tensors(const GgufFile& f, ModelConfig& c) {
    Checker ck(f);
    const uint64_t E = c.n_embd, V = c.n_vocab, F = c.n_ff;
    // Widths as tensor dimensions (the config's sizes are positive here).
    const uint64_t Q = c.q_width(), K = c.kv_width(), VW = c.v_width(), HD = c.head_dim;
    const uint64_t HALF_ROT = static_cast<uint64_t>(c.rope.n_rot) / 2;
    ck.need("token_embd.weight", {E, V});
    ck.need("output_norm.weight", {E});
    // Gemma always uses token_embd as its output head (an output.weight is then unexpected).
    const bool gemma = c.arch == Arch::Gemma2 || c.arch == Arch::Gemma3;
    c.tied_embeddings = gemma || (ck.maybe("output.weight", {E, V}) == nullptr &&
                                  f.find_tensor("output.weight") == nullptr);
    auto factors = [&](const std::string& name, std::vector<float>& out) {
        out.clear();
        const TensorInfo* t = ck.maybe(name, {HALF_ROT});
        if (!t) return;
        if (t->type != quant::Type::F32) {
            ck.fail(name + ": expected type F32, file has " +
                    std::string(quant::traits(t->type).name));
            return;
        }
        out.resize(c.rope.n_rot / 2);
        quant::dequantize_row(quant::Type::F32, t->data.data(), out.data(), out.size());
    };
    if (c.arch == Arch::Phi3) {
        factors("rope_factors_long.weight", c.rope_long_factors);
        factors("rope_factors_short.weight", c.rope_short_factors);
        if (c.rope_long_factors.empty() != c.rope_short_factors.empty())
            ck.fail("rope_factors_long/short.weight: only one of the two is present");
    }
    c.rope_freq_factors.clear();
    if (const TensorInfo* rf = ck.maybe("rope_freqs.weight", {HALF_ROT})) {
        if (rf->type != quant::Type::F32) {
            ck.fail("rope_freqs.weight: expected type F32, file has " +
                    std::string(quant::traits(rf->type).name));
        } else {
            c.rope_freq_factors.resize(c.rope.n_rot / 2);
            quant::dequantize_row(quant::Type::F32, rf->data.data(), c.rope_freq_factors.data(),
                                  c.rope_freq_factors.size());
        }
    }
    // block_count comes from the file: a claim of billions of layers must cost one comparison
    // (and the layer loop stops at the first error), not billions of name lookups.
    if (uint64_t(c.n_layer) > f.tensors().size())
        return Status::error("block_count " + std::to_string(c.n_layer) +
                             " is more layers than the file has tensors (" +
                             std::to_string(f.tensors().size()) + ")");
    bool bias_seen = false, bias_missing = false, obias_seen = false, obias_missing = false;
    for (int64_t i = 0; i < c.n_layer && !ck.failed(); ++i) {
        const std::string b = "blk." + std::to_string(i) + ".";
        ck.need(b + "attn_norm.weight", {E});
        if (c.fused_qkv) {
            ck.need(b + "attn_qkv.weight", {E, Q + K + VW});
        } else {
            ck.need(b + "attn_q.weight", {E, Q});
            ck.need(b + "attn_k.weight", {E, K});
            ck.need(b + "attn_v.weight", {E, VW});
        }
        if (c.qk_norm) {
            ck.need(b + "attn_q_norm.weight", {HD});
            ck.need(b + "attn_k_norm.weight", {HD});
        }
        ck.need(b + "attn_output.weight", {static_cast<uint64_t>(c.n_head * c.head_dim_v), E});
        if (c.post_norms) {
            ck.need(b + "post_attention_norm.weight", {E});
            ck.need(b + "post_ffw_norm.weight", {E});
        }
        ck.need(b + "ffn_norm.weight", {E});
        if (c.n_expert > 0) {
            const uint64_t X = c.n_expert, FE = c.n_ff_exp;
            ck.need(b + "ffn_gate_inp.weight", {E, X});
            ck.need(b + "ffn_gate_exps.weight", {E, FE, X});
            ck.need(b + "ffn_up_exps.weight", {E, FE, X});
            ck.need(b + "ffn_down_exps.weight", {FE, E, X});
        } else if (c.fused_gate_up) {
            ck.need(b + "ffn_up.weight", {E, 2 * F});
            ck.need(b + "ffn_down.weight", {F, E});
        } else {
            ck.need(b + "ffn_gate.weight", {E, F});
            ck.need(b + "ffn_up.weight", {E, F});
            ck.need(b + "ffn_down.weight", {F, E});
        }
        const bool q = ck.maybe(b + "attn_q.bias", {Q}) != nullptr;
        const bool k = ck.maybe(b + "attn_k.bias", {K}) != nullptr;
        const bool v = ck.maybe(b + "attn_v.bias", {VW}) != nullptr;
        if (q && k && v)
            bias_seen = true;
        else if (q || k || v)
            ck.fail(b + "attn_q/k/v.bias: some but not all are present");
        else
            bias_missing = true;
        if (ck.maybe(b + "attn_output.bias", {E}))
            obias_seen = true;
        else
            obias_missing = true;
    }
    if (bias_seen && bias_missing)
        ck.fail("attn_q/k/v.bias are present in some layers but not in others");
    if (obias_seen && obias_missing)
        ck.fail("attn_output.bias is present in some layers but not in others");
    if (auto s = ck.finish(); !s) return s;
    c.has_qkv_bias = bias_seen;
    c.has_output_bias = obias_seen;
    return Status::ok();
}

}  // namespace hearth::model
