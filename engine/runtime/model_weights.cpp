#include "runtime/model_weights.h"

#include <algorithm>
#include <string>

namespace hearth::runtime {

using backend::DType;
using backend::Tensor;

const TensorSource::Entry* TensorSource::find(std::string_view name) const {
    for (const auto& e : tensors)
        if (e.name == name) return &e;
    return nullptr;
}

TensorSource TensorSource::from_gguf(const gguf::GgufFile& file) {
    TensorSource s;
    const auto all = file.bytes();
    s.bytes = all.subspan(file.data_offset());
    for (const auto& t : file.tensors()) {
        Entry e;
        e.name = std::string(t.name);
        e.type = t.type;
        for (int i = 0; i < 4; ++i) e.ne[i] = static_cast<int64_t>(t.ne[i]);
        e.offset = static_cast<size_t>(t.data.data() - s.bytes.data());
        s.tensors.push_back(std::move(e));
    }
    return s;
}

namespace {

class Binder {
public:
    Binder(const TensorSource& src, backend::Buffer* buf, ModelWeights& w,
           const UploadProgress& progress)
        : src_(src), buf_(buf), w_(w), progress_(progress) {}

    // Where the next tensors go: the main buffer (null) or uploads to this device.
    void target(backend::Device* accel) { accel_ = accel; }
    // The next tensor is a second copy (a tied output matrix): not counted as parameters.
    void copy_only() { copy_only_ = true; }

    // A tensor with exactly these dims (trailing dims 1). float_only: norms and biases.
    Status get(const std::string& name, std::initializer_list<int64_t> dims, bool float_only,
               bool optional, Tensor& out) {
        const bool copy = copy_only_;
        copy_only_ = false;
        const TensorSource::Entry* e = src_.find(name);
        if (!e) {
            if (optional) return Status::ok();
            return Status::error("missing tensor " + name);
        }
        int i = 0;
        int64_t want[4] = {1, 1, 1, 1};
        for (int64_t d : dims) want[i++] = d;
        for (int d = 0; d < 4; ++d) {
            if (e->ne[d] != want[d]) {
                std::string got, exp;
                for (int k = 0; k < 4; ++k) {
                    // (Appended piece by piece: GCC 12's -Wrestrict misreads `"," + string&&`
                    // at -O3, the release preset.)
                    if (k) {
                        got += ',';
                        exp += ',';
                    }
                    got += std::to_string(e->ne[k]);
                    exp += std::to_string(want[k]);
                }
                return Status::error("tensor " + name + " has shape [" + got + "], expected [" +
                                     exp + "]");
            }
        }
        const DType t = e->type;
        if (float_only ? t != DType::F32 : !backend::is_weight_dtype(t))
            return Status::error("tensor " + name + ": unsupported type " + backend::dtype_name(t));
        out = Tensor::dense(buf_, e->offset, t, dims);
        if (out.offset > src_.bytes.size() || out.span_bytes() > src_.bytes.size() - out.offset)
            return Status::error("tensor " + name + " lies outside the data");
        if (!copy) n_params_ += static_cast<uint64_t>(out.n_elements());
        if (!accel_) return Status::ok();
        // Upload: the tensor's bytes into a buffer of its own on the accelerator.
        auto b = accel_->import_host(src_.bytes.subspan(out.offset, out.span_bytes()));
        if (!b)
            return Status::error("uploading " + name + " to " + accel_->name() + ": " +
                                 b.error_message());
        out = Tensor::dense(b.value().get(), 0, t, dims);
        w_.uploaded_bytes += out.span_bytes();
        w_.buffers.push_back(std::move(b.value()));
        if (progress_.on_tensor && !progress_.on_tensor(w_.uploaded_bytes, progress_.total))
            return Status::error("loading cancelled");
        return Status::ok();
    }
    uint64_t n_params() const { return n_params_; }

private:
    const TensorSource& src_;
    backend::Buffer* buf_;
    ModelWeights& w_;
    const UploadProgress& progress_;
    backend::Device* accel_ = nullptr;
    bool copy_only_ = false;
    uint64_t n_params_ = 0;
};

}  // namespace

Result<ModelWeights> bind_weights(const ModelConfig& p, const TensorSource& source,
                                  backend::Device& device) {
    Placement all;
    all.main = &device;
    return bind_weights(p, source, all);
}

uint64_t upload_bytes(const ModelConfig& p, const TensorSource& source, const Placement& pl) {
    if (!pl.accel) return 0;
    uint64_t n = 0;
    for (int64_t l = 0; l < std::min(pl.n_accel, p.n_layer); ++l)
        n += layer_weight_bytes(source, l);
    auto bytes = [&](std::string_view name) {
        const auto* e = source.find(name);
        return e ? uint64_t(e->bytes()) : 0;
    };
    const bool tied = !source.find("output.weight");
    if (pl.output_on_accel)
        n += bytes(tied ? "token_embd.weight" : "output.weight") + bytes("output_norm.weight");
    if (pl.n_accel > 0)
        n += bytes("rope_freqs.weight") + bytes("rope_factors_long.weight") +
             bytes("rope_factors_short.weight");
    return n;
}

Result<ModelWeights> bind_weights(const ModelConfig& p, const TensorSource& source,
                                  const Placement& pl, const UploadProgress& progress) {
    if (Status s = check_config(p); !s) return s;
    if (!pl.main) return Result<ModelWeights>::error("no device for the weights");
    auto buffer = pl.main->import_host(source.bytes);
    if (!buffer) return buffer.status();
    ModelWeights w;
    w.placement = pl;
    if (!pl.accel) {
        w.placement.n_accel = 0;
        w.placement.output_on_accel = false;
    }
    w.placement.n_accel = std::clamp<int64_t>(w.placement.n_accel, 0, p.n_layer);
    w.buffers.push_back(std::move(buffer.value()));
    Binder b(source, w.buffers.front().get(), w, progress);
    backend::Device* accel = w.placement.accel;
    const int64_t E = p.n_embd, V = p.n_vocab, Q = p.q_width(), KV = p.kv_width(), F = p.n_ff;
#define HEARTH_BIND(...)                                    \
    do {                                                    \
        if (Status s_ = b.get(__VA_ARGS__); !s_) return s_; \
    } while (0)
    // The embedding lookup stays on the main device.
    HEARTH_BIND("token_embd.weight", {E, V}, false, false, w.tok_embd);
    if (w.placement.output_on_accel) b.target(accel);
    HEARTH_BIND("output_norm.weight", {E}, true, false, w.output_norm);
    const bool gemma = p.arch == Arch::Gemma2 || p.arch == Arch::Gemma3;
    if (!gemma) HEARTH_BIND("output.weight", {E, V}, false, true, w.output);
    if (!w.output.valid()) {  // tied embeddings: the accelerator gets its own copy
        if (w.placement.output_on_accel) {
            b.copy_only();
            HEARTH_BIND("token_embd.weight", {E, V}, false, false, w.output);
        } else {
            w.output = w.tok_embd;
        }
    }
    b.target(nullptr);
    for (int copy = 0; copy < (w.placement.n_accel > 0 ? 2 : 1); ++copy) {
        b.target(copy ? accel : nullptr);
        Tensor& freqs = copy ? w.accel_rope_freqs : w.rope_freqs;
        Tensor& lng = copy ? w.accel_rope_long : w.rope_long;
        Tensor& shrt = copy ? w.accel_rope_short : w.rope_short;
        if (copy) b.copy_only();
        HEARTH_BIND("rope_freqs.weight", {p.rope.n_rot / 2}, true, true, freqs);
        if (p.longrope()) {
            if (copy) b.copy_only();
            HEARTH_BIND("rope_factors_long.weight", {p.rope.n_rot / 2}, true, false, lng);
            if (copy) b.copy_only();
            HEARTH_BIND("rope_factors_short.weight", {p.rope.n_rot / 2}, true, false, shrt);
        }
    }
    const int64_t HD = p.head_dim, FE = p.n_ff_exp, X = p.n_expert;
    for (int64_t l = 0; l < p.n_layer; ++l) {
        b.target(l < w.placement.n_accel ? accel : nullptr);
        LayerWeights& L = w.layers.emplace_back();
        const std::string pre = "blk." + std::to_string(l) + ".";
        HEARTH_BIND(pre + "attn_norm.weight", {E}, true, false, L.attn_norm);
        if (p.fused_qkv) {  // one matrix: Q rows, then K, then V
            Tensor qkv;
            HEARTH_BIND(pre + "attn_qkv.weight", {E, Q + 2 * KV}, false, false, qkv);
            L.wq = qkv.rows(0, Q);
            L.wk = qkv.rows(Q, KV);
            L.wv = qkv.rows(Q + KV, KV);
        } else {
            HEARTH_BIND(pre + "attn_q.weight", {E, Q}, false, false, L.wq);
            HEARTH_BIND(pre + "attn_k.weight", {E, KV}, false, false, L.wk);
            HEARTH_BIND(pre + "attn_v.weight", {E, KV}, false, false, L.wv);
        }
        if (p.qk_norm) {
            HEARTH_BIND(pre + "attn_q_norm.weight", {HD}, true, false, L.q_norm);
            HEARTH_BIND(pre + "attn_k_norm.weight", {HD}, true, false, L.k_norm);
        }
        if (p.post_norms) {
            HEARTH_BIND(pre + "post_attention_norm.weight", {E}, true, false, L.attn_post_norm);
            HEARTH_BIND(pre + "post_ffw_norm.weight", {E}, true, false, L.ffn_post_norm);
        }
        HEARTH_BIND(pre + "attn_q.bias", {Q}, true, true, L.bq);
        HEARTH_BIND(pre + "attn_k.bias", {KV}, true, true, L.bk);
        HEARTH_BIND(pre + "attn_v.bias", {KV}, true, true, L.bv);
        HEARTH_BIND(pre + "attn_output.weight", {Q, E}, false, false, L.wo);
        HEARTH_BIND(pre + "attn_output.bias", {E}, true, true, L.bo);
        HEARTH_BIND(pre + "ffn_norm.weight", {E}, true, false, L.ffn_norm);
        if (p.n_expert > 0) {
            HEARTH_BIND(pre + "ffn_gate_inp.weight", {E, X}, false, false, L.router);
            HEARTH_BIND(pre + "ffn_gate_exps.weight", {E, FE, X}, false, false, L.gate_exps);
            HEARTH_BIND(pre + "ffn_up_exps.weight", {E, FE, X}, false, false, L.up_exps);
            HEARTH_BIND(pre + "ffn_down_exps.weight", {FE, E, X}, false, false, L.down_exps);
            continue;
        }
        if (p.fused_gate_up) {  // gate rows, then up rows
            Tensor gu;
            HEARTH_BIND(pre + "ffn_up.weight", {E, 2 * F}, false, false, gu);
            L.w_gate = gu.rows(0, F);
            L.w_up = gu.rows(F, F);
        } else {
            HEARTH_BIND(pre + "ffn_gate.weight", {E, F}, false, false, L.w_gate);
            HEARTH_BIND(pre + "ffn_up.weight", {E, F}, false, false, L.w_up);
        }
        HEARTH_BIND(pre + "ffn_down.weight", {F, E}, false, false, L.w_down);
    }
#undef HEARTH_BIND
    w.n_params = b.n_params();
    return w;
}

}  // namespace hearth::runtime
