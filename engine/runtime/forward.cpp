#include "runtime/forward.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace hearth::runtime {

using backend::DType;
using backend::Tensor;

Result<std::unique_ptr<Forward>> Forward::create(backend::Device& device, const ModelParams& p,
                                                 const ModelWeights& w, int64_t n_ctx,
                                                 int64_t max_batch, int n_threads) {
    using R = Result<std::unique_ptr<Forward>>;
    if (max_batch <= 0 || n_ctx <= 0) return R::error("batch size and context must be > 0");
    std::unique_ptr<Forward> f(new Forward(p, w));
    f->max_batch_ = max_batch;
    f->device_ = &device;
    f->n_blocks_ = (n_ctx + KvCache::kBlockSize - 1) / KvCache::kBlockSize;
    auto stream = device.create_stream({n_threads});
    if (!stream) return stream.status();
    f->stream_ = std::move(stream.value());

    // One buffer for all activations; offsets are laid out once here.
    const int64_t B = max_batch;
    const int64_t F = p.ffn_width(), X = std::max<int64_t>(1, p.n_expert);
    const int64_t K = std::max<int64_t>(1, p.n_expert_used);
    const int64_t moe_out = p.n_expert > 0 ? p.n_embd * K : 1;
    const int64_t widths[] = {p.n_embd,
                              p.n_embd,
                              p.q_width(),
                              p.kv_width(),
                              p.kv_width(),
                              p.q_width(),
                              p.n_embd,
                              F,
                              F,
                              p.n_vocab,
                              X,
                              K,
                              K,
                              moe_out};
    Tensor* slots[] = {&f->x_,      &f->xn_,      &f->q_,         &f->k_,      &f->v_,
                       &f->att_,    &f->tmp_,     &f->gate_,      &f->up_,     &f->logits_,
                       &f->router_, &f->route_w_, &f->route_ids_, &f->moe_out_};
    size_t total = 0;
    for (int64_t wd : widths) total += static_cast<size_t>(wd * B) * sizeof(float);
    auto act = device.allocate(total);
    if (!act) return act.status();
    f->act_ = std::move(act.value());
    size_t off = 0;
    for (size_t i = 0; i < std::size(widths); ++i) {
        const DType t = slots[i] == &f->route_ids_ ? DType::I32 : DType::F32;
        *slots[i] = Tensor::dense(f->act_.get(), off, t, {widths[i], B});
        off += static_cast<size_t>(widths[i] * B) * sizeof(float);
    }
    // LongRoPE: the long factors once the context exceeds the original training context.
    f->rope_factors_ = w.rope_freqs;
    if (p.longrope) f->rope_factors_ = n_ctx > p.rope_orig_ctx ? w.rope_long : w.rope_short;
    const int64_t n_inputs = 2 * B + f->n_blocks_;
    auto inputs = device.allocate(static_cast<size_t>(n_inputs) * sizeof(int32_t));
    if (!inputs) return inputs.status();
    f->inputs_ = std::move(inputs.value());
    f->ids_ = Tensor::dense(f->inputs_.get(), 0, DType::I32, {B});
    f->pos_ = Tensor::dense(f->inputs_.get(), static_cast<size_t>(B) * 4, DType::I32, {B});
    f->table_ = Tensor::dense(f->inputs_.get(), static_cast<size_t>(2 * B) * 4, DType::I32,
                              {f->n_blocks_, 1});
    f->host_inputs_.resize(static_cast<size_t>(n_inputs));
    return f;
}

void Forward::record(int64_t T, const KvView& kv, bool all_logits) {
    const ModelParams& p = p_;
    backend::Graph& g = graph_;
    g.clear();
    Tensor ids = ids_;
    ids.ne[0] = T;
    Tensor pos = pos_;
    pos.ne[0] = T;
    record_layers(T, ids, backend::KvIndex{pos, table_, Tensor{}}, kv.k, kv.v, kv.block_size);
    const Tensor x = x_.rows(0, T), xn = xn_.rows(0, T);
    // Only the rows whose logits are wanted go through the output head.
    const int64_t first = all_logits ? 0 : T - 1;
    const int64_t n_out = T - first;
    g.rms_norm(xn.rows(first, n_out), x.rows(first, n_out), w_.output_norm, p.rms_eps,
               "output_norm");
    g.mat_mul(logits_.rows(0, n_out), w_.output, xn.rows(first, n_out), "output");
    if (p.final_softcap > 0.f)
        g.softcap(logits_.rows(0, n_out), logits_.rows(0, n_out), p.final_softcap, "final_softcap");
}

void Forward::record_layers(int64_t T, const Tensor& ids, const backend::KvIndex& kvi,
                            std::span<const Tensor> kcache, std::span<const Tensor> vcache,
                            int32_t block_size) {
    const ModelParams& p = p_;
    backend::Graph& g = graph_;
    const Tensor& pos = kvi.positions;
    backend::KvParams kvp{block_size, p.attention_scale(), p.attn_softcap, 0};
    const Tensor x = x_.rows(0, T), xn = xn_.rows(0, T), tmp = tmp_.rows(0, T);
    const Tensor q = q_.rows(0, T), k = k_.rows(0, T), v = v_.rows(0, T);
    const Tensor att = att_.rows(0, T), gate = gate_.rows(0, T), up = up_.rows(0, T);
    const Tensor q3 = q.reshaped({p.head_dim, p.n_head, T});
    const Tensor k3 = k.reshaped({p.head_dim, p.n_head_kv, T});
    const Tensor att3 = att.reshaped({p.head_dim, p.n_head, T});
    // Per-head views for the Q/K norms: one row per (head, token).
    const Tensor q_heads = q.reshaped({p.head_dim, p.n_head * T});
    const Tensor k_heads = k.reshaped({p.head_dim, p.n_head_kv * T});

    g.get_rows(x, w_.tok_embd, ids, "token_embd");
    if (p.embd_scale > 0.f) g.scale(x, x, p.embd_scale, "embd_scale");
    for (int64_t l = 0; l < p.n_layer; ++l) {
        const LayerWeights& L = w_.layers[static_cast<size_t>(l)];
        const bool swa = p.is_swa_layer(l);
        g.rms_norm(xn, x, L.attn_norm, p.rms_eps, "attn_norm");
        g.mat_mul(q, L.wq, xn, "attn_q");
        g.mat_mul(k, L.wk, xn, "attn_k");
        g.mat_mul(v, L.wv, xn, "attn_v");
        if (L.bq.valid()) g.add(q, q, L.bq, "attn_q_bias");
        if (L.bk.valid()) g.add(k, k, L.bk, "attn_k_bias");
        if (L.bv.valid()) g.add(v, v, L.bv, "attn_v_bias");
        if (L.q_norm.valid()) g.rms_norm(q_heads, q_heads, L.q_norm, p.rms_eps, "attn_q_norm");
        if (L.k_norm.valid()) g.rms_norm(k_heads, k_heads, L.k_norm, p.rms_eps, "attn_k_norm");
        const backend::RopeParams& rp = swa ? p.rope_swa : p.rope;
        g.rope(q3, q3, pos, rope_factors_, rp, "rope_q");
        g.rope(k3, k3, pos, rope_factors_, rp, "rope_k");
        const Tensor& kc = kcache[static_cast<size_t>(l)];
        const Tensor& vc = vcache[static_cast<size_t>(l)];
        g.kv_append(kc, k, kvi, block_size, "k_cache");
        g.kv_append(vc, v, kvi, block_size, "v_cache");
        kvp.window = swa ? static_cast<int32_t>(p.n_swa) : 0;
        g.attention(att3, q3, kc, vc, kvi, kvp, "attention");
        g.mat_mul(tmp, L.wo, att, "attn_output");
        if (L.bo.valid()) g.add(tmp, tmp, L.bo, "attn_output_bias");
        if (L.attn_post_norm.valid())
            g.rms_norm(tmp, tmp, L.attn_post_norm, p.rms_eps, "post_attention_norm");
        g.add(x, x, tmp, "attn_residual");
        g.rms_norm(xn, x, L.ffn_norm, p.rms_eps, "ffn_norm");
        if (p.n_expert > 0) {
            // Router, then per token the chosen experts only; their outputs are summed with
            // the routing weights.
            const int64_t K = p.n_expert_used, FE = p.n_ff_exp;
            const Tensor router = router_.rows(0, T), rw = route_w_.rows(0, T);
            const Tensor rid = route_ids_.rows(0, T);
            const Tensor g3 = gate.reshaped({FE, K, T}), u3 = up.reshaped({FE, K, T});
            const Tensor out3 = moe_out_.rows(0, T).reshaped({p.n_embd, K, T});
            const Tensor xn3 = xn.reshaped({p.n_embd, 1, T});
            g.mat_mul(router, L.router, xn, "ffn_gate_inp");
            g.moe_route(rw, rid, router, static_cast<int32_t>(K), true, "moe_route");
            g.moe_mat_mul(g3, L.gate_exps, xn3, rid, "ffn_gate_exps");
            g.moe_mat_mul(u3, L.up_exps, xn3, rid, "ffn_up_exps");
            g.swiglu(gate, gate, up, "ffn_swiglu");
            g.moe_mat_mul(out3, L.down_exps, g3, rid, "ffn_down_exps");
            g.moe_combine(tmp, out3, rw, "moe_combine");
        } else {
            g.mat_mul(gate, L.w_gate, xn, "ffn_gate");
            g.mat_mul(up, L.w_up, xn, "ffn_up");
            if (p.gelu_ffn)
                g.geglu(gate, gate, up, "ffn_geglu");
            else
                g.swiglu(gate, gate, up, "ffn_swiglu");
            g.mat_mul(tmp, L.w_down, gate, "ffn_down");
        }
        if (L.ffn_post_norm.valid())
            g.rms_norm(tmp, tmp, L.ffn_post_norm, p.rms_eps, "post_ffw_norm");
        g.add(x, x, tmp, "ffn_residual");
    }
}

Status Forward::run_chunk(std::span<const int32_t> tokens, const KvView& kv, int64_t n_past,
                          bool all_logits, float* logits_out) {
    const int64_t T = static_cast<int64_t>(tokens.size());
    // Inputs: ids, positions and the block table prefix in use, in one write.
    const size_t B = static_cast<size_t>(max_batch_);
    std::memcpy(host_inputs_.data(), tokens.data(), tokens.size() * sizeof(int32_t));
    for (int64_t i = 0; i < T; ++i) host_inputs_[B + size_t(i)] = static_cast<int32_t>(n_past + i);
    const auto table = kv.block_table;
    std::memcpy(host_inputs_.data() + 2 * B, table.data(),
                std::min<size_t>(table.size(), static_cast<size_t>(n_blocks_)) * sizeof(int32_t));
    if (Status s = inputs_->write(0, std::as_bytes(std::span(host_inputs_))); !s) return s;

    record(T, kv, all_logits);
    if (Status s = stream_->compute(graph_); !s) return s;
    tokens_computed_ += static_cast<uint64_t>(T);

    const int64_t n_out = all_logits ? T : 1;
    const size_t bytes = static_cast<size_t>(n_out * p_.n_vocab) * sizeof(float);
    return act_->read(logits_.offset, std::span(reinterpret_cast<std::byte*>(logits_out), bytes));
}

Result<std::span<const float>> Forward::step(std::span<const int32_t> tokens, KvCache& kv,
                                             bool all_logits) {
    const std::span<const backend::Tensor> ks = kv.k_all(), vs = kv.v_all();
    const KvView view{ks, vs, kv.block_table(), KvCache::kBlockSize, kv.n_past(), kv.n_ctx()};
    auto out = step(tokens, view, all_logits);
    if (out) kv.set_n_past(kv.n_past() + static_cast<int64_t>(tokens.size()));
    return out;
}

Result<std::span<const float>> Forward::step(std::span<const int32_t> tokens, const KvView& kv,
                                             bool all_logits) {
    using R = Result<std::span<const float>>;
    if (tokens.empty()) return R::error("no tokens to evaluate");
    for (int32_t t : tokens)
        if (t < 0 || t >= p_.n_vocab)
            return R::error("token id " + std::to_string(t) + " is outside the vocabulary (0.." +
                            std::to_string(p_.n_vocab - 1) + ")");
    const int64_t n = static_cast<int64_t>(tokens.size());
    if (kv.n_past + n > kv.n_ctx)
        return R::error("context is full: " + std::to_string(kv.n_past) + " + " +
                        std::to_string(n) + " tokens exceed the context length of " +
                        std::to_string(kv.n_ctx));
    // The block table must cover every position written and fit the index tensor.
    const int64_t blocks_needed = (kv.n_past + n + kv.block_size - 1) / kv.block_size;
    if (static_cast<int64_t>(kv.block_table.size()) < blocks_needed || blocks_needed > n_blocks_)
        return R::error("KV block table does not cover the positions to compute");
    if (static_cast<int64_t>(kv.k.size()) != p_.n_layer ||
        static_cast<int64_t>(kv.v.size()) != p_.n_layer)
        return R::error("KV cache has the wrong number of layers");
    const size_t V = static_cast<size_t>(p_.n_vocab);
    const size_t want = all_logits ? static_cast<size_t>(n) * V : V;
    if (host_logits_.size() < want) host_logits_.resize(want);
    for (int64_t done = 0; done < n;) {
        const int64_t T = std::min(max_batch_, n - done);
        // Without all_logits only the final chunk's last row matters.
        float* out =
            all_logits ? host_logits_.data() + static_cast<size_t>(done) * V : host_logits_.data();
        if (Status s = run_chunk(tokens.subspan(static_cast<size_t>(done), static_cast<size_t>(T)),
                                 kv, kv.n_past + done, all_logits, out);
            !s)
            return s;
        done += T;
    }
    return std::span<const float>(host_logits_.data(), want);
}

}  // namespace hearth::runtime
