#include "runtime/forward.h"

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
    f->n_blocks_ = (n_ctx + KvCache::kBlockSize - 1) / KvCache::kBlockSize;
    auto stream = device.create_stream({n_threads});
    if (!stream) return stream.status();
    f->stream_ = std::move(stream.value());

    // One buffer for all activations; offsets are laid out once here.
    const int64_t B = max_batch;
    const int64_t widths[] = {p.n_embd,    p.n_embd, p.q_width(), p.kv_width(), p.kv_width(),
                              p.q_width(), p.n_embd, p.n_ff,      p.n_ff,       p.n_vocab};
    Tensor* slots[] = {&f->x_,   &f->xn_,  &f->q_,    &f->k_,  &f->v_,
                       &f->att_, &f->tmp_, &f->gate_, &f->up_, &f->logits_};
    size_t total = 0;
    for (int64_t wd : widths) total += static_cast<size_t>(wd * B) * sizeof(float);
    auto act = device.allocate(total);
    if (!act) return act.status();
    f->act_ = std::move(act.value());
    size_t off = 0;
    for (size_t i = 0; i < std::size(widths); ++i) {
        *slots[i] = Tensor::dense(f->act_.get(), off, DType::F32, {widths[i], B});
        off += static_cast<size_t>(widths[i] * B) * sizeof(float);
    }
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
    const backend::KvIndex kvi{pos, table_, Tensor{}};
    const backend::KvParams kvp{kv.block_size,
                                static_cast<float>(1.0 / std::sqrt(double(p.head_dim)))};
    const Tensor x = x_.rows(0, T), xn = xn_.rows(0, T), tmp = tmp_.rows(0, T);
    const Tensor q = q_.rows(0, T), k = k_.rows(0, T), v = v_.rows(0, T);
    const Tensor att = att_.rows(0, T), gate = gate_.rows(0, T), up = up_.rows(0, T);
    const Tensor q3 = q.reshaped({p.head_dim, p.n_head, T});
    const Tensor k3 = k.reshaped({p.head_dim, p.n_head_kv, T});
    const Tensor att3 = att.reshaped({p.head_dim, p.n_head, T});

    g.get_rows(x, w_.tok_embd, ids, "token_embd");
    for (int64_t l = 0; l < p.n_layer; ++l) {
        const LayerWeights& L = w_.layers[static_cast<size_t>(l)];
        g.rms_norm(xn, x, L.attn_norm, p.rms_eps, "attn_norm");
        g.mat_mul(q, L.wq, xn, "attn_q");
        g.mat_mul(k, L.wk, xn, "attn_k");
        g.mat_mul(v, L.wv, xn, "attn_v");
        if (L.bq.valid()) g.add(q, q, L.bq, "attn_q_bias");
        if (L.bk.valid()) g.add(k, k, L.bk, "attn_k_bias");
        if (L.bv.valid()) g.add(v, v, L.bv, "attn_v_bias");
        g.rope(q3, q3, pos, w_.rope_freqs, p.rope, "rope_q");
        g.rope(k3, k3, pos, w_.rope_freqs, p.rope, "rope_k");
        const Tensor& kc = kv.k[static_cast<size_t>(l)];
        const Tensor& vc = kv.v[static_cast<size_t>(l)];
        g.kv_append(kc, k, kvi, kv.block_size, "k_cache");
        g.kv_append(vc, v, kvi, kv.block_size, "v_cache");
        g.attention(att3, q3, kc, vc, kvi, kvp, "attention");
        g.mat_mul(tmp, L.wo, att, "attn_output");
        if (L.bo.valid()) g.add(tmp, tmp, L.bo, "attn_output_bias");
        g.add(x, x, tmp, "attn_residual");
        g.rms_norm(xn, x, L.ffn_norm, p.rms_eps, "ffn_norm");
        g.mat_mul(gate, L.w_gate, xn, "ffn_gate");
        g.mat_mul(up, L.w_up, xn, "ffn_up");
        g.swiglu(gate, gate, up, "ffn_swiglu");
        g.mat_mul(tmp, L.w_down, gate, "ffn_down");
        g.add(x, x, tmp, "ffn_residual");
    }
    // Only the rows whose logits are wanted go through the output head.
    const int64_t first = all_logits ? 0 : T - 1;
    const int64_t n_out = T - first;
    g.rms_norm(xn.rows(first, n_out), x.rows(first, n_out), w_.output_norm, p.rms_eps,
               "output_norm");
    g.mat_mul(logits_.rows(0, n_out), w_.output, xn.rows(first, n_out), "output");
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
