#include "runtime/forward.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace hearth::runtime {

using backend::DType;
using backend::Tensor;

Status Forward::make_lane(Lane& L, backend::Device& device, int64_t n_ctx, int n_threads,
                          const Tensor& rope_freqs, const Tensor& rope_long,
                          const Tensor& rope_short) {
    const ModelConfig& p = p_;
    L.device = &device;
    auto stream = device.create_stream({n_threads});
    if (!stream) return stream.status();
    L.stream = std::move(stream.value());
    // One buffer for all activations; offsets are laid out once here. The logits have their
    // own buffer, sized for the rows that are sampled.
    const int64_t B = max_batch_;
    const int64_t F = p.ffn_width(), X = std::max<int64_t>(1, p.n_expert);
    const int64_t K = std::max<int64_t>(1, p.n_expert_used);
    const int64_t moe_out = p.n_expert > 0 ? p.n_embd * K : 1;
    const int64_t widths[] = {
        p.n_embd, p.n_embd, p.q_width(), p.kv_width(), p.kv_width(), p.q_width(), p.n_embd, F, F,
        X,        K,        K,           moe_out};
    Tensor* slots[] = {&L.x,    &L.xn, &L.q,      &L.k,       &L.v,         &L.att,    &L.tmp,
                       &L.gate, &L.up, &L.router, &L.route_w, &L.route_ids, &L.moe_out};
    size_t total = 0;
    for (int64_t wd : widths) total += static_cast<size_t>(wd * B) * sizeof(float);
    auto act = device.allocate(total);
    if (!act) return act.status();
    L.act = std::move(act.value());
    size_t off = 0;
    for (size_t i = 0; i < std::size(widths); ++i) {
        const DType t = slots[i] == &L.route_ids ? DType::I32 : DType::F32;
        *slots[i] = Tensor::dense(L.act.get(), off, t, {widths[i], B});
        off += static_cast<size_t>(widths[i] * B) * sizeof(float);
    }
    // LongRoPE: the long factors once the context exceeds the original training context.
    L.rope_factors = rope_freqs;
    if (p.longrope()) L.rope_factors = n_ctx > p.rope_orig_ctx ? rope_long : rope_short;
    const int64_t n_inputs = 2 * B + n_blocks_;
    auto inputs = device.allocate(static_cast<size_t>(n_inputs) * sizeof(int32_t));
    if (!inputs) return inputs.status();
    L.inputs = std::move(inputs.value());
    L.ids = Tensor::dense(L.inputs.get(), 0, DType::I32, {B});
    L.pos = Tensor::dense(L.inputs.get(), static_cast<size_t>(B) * 4, DType::I32, {B});
    L.table =
        Tensor::dense(L.inputs.get(), static_cast<size_t>(2 * B) * 4, DType::I32, {n_blocks_, 1});
    return Status::ok();
}

Status Forward::ensure_logits_rows(int64_t rows) {
    Lane& L = lanes_[output_lane_];
    if (L.logits_rows >= rows) return Status::ok();
    auto buf = L.device->allocate(static_cast<size_t>(rows * p_.n_vocab) * sizeof(float));
    if (!buf) return buf.status();
    L.logits_buf = std::move(buf.value());
    L.logits_rows = rows;
    ++buffers_epoch_;
    L.logits = Tensor::dense(L.logits_buf.get(), 0, DType::F32, {p_.n_vocab, rows});
    return Status::ok();
}

size_t Forward::logits_bytes() const {
    const Lane& L = lanes_[output_lane_];
    return L.logits_buf ? L.logits_buf->size() : 0;
}

Result<std::unique_ptr<Forward>> Forward::create(backend::Device& device, const ModelConfig& p,
                                                 const ModelWeights& w, int64_t n_ctx,
                                                 int64_t max_batch, int n_threads) {
    using R = Result<std::unique_ptr<Forward>>;
    if (max_batch <= 0 || n_ctx <= 0) return R::error("batch size and context must be > 0");
    std::unique_ptr<Forward> f(new Forward(p, w));
    f->max_batch_ = max_batch;
    f->n_blocks_ = (n_ctx + KvCache::kBlockSize - 1) / KvCache::kBlockSize;
    const Placement& pl = w.placement;
    backend::Device& main = pl.main ? *pl.main : device;
    const bool split = pl.accel && (pl.n_accel > 0 || pl.output_on_accel);
    f->lanes_.resize(split ? 2 : 1);
    if (Status s = f->make_lane(f->lanes_[0], main, n_ctx, n_threads, w.rope_freqs, w.rope_long,
                                w.rope_short);
        !s)
        return s;
    if (split) {
        const bool copies = pl.n_accel > 0;  // the accelerator has its own rope factors
        if (Status s = f->make_lane(
                f->lanes_[1], *pl.accel, n_ctx, n_threads, copies ? w.accel_rope_freqs : Tensor{},
                copies ? w.accel_rope_long : Tensor{}, copies ? w.accel_rope_short : Tensor{});
            !s)
            return s;
    }
    // Segments: the embedding on main; layers [0, n) on the accelerator; the rest on main.
    const int64_t n = split ? std::clamp<int64_t>(pl.n_accel, 0, p.n_layer) : 0;
    const bool head_on_accel = split && pl.output_on_accel && n == p.n_layer;
    auto add = [&](size_t lane, bool embed, int64_t first, int64_t end, bool output) {
        Segment seg;
        seg.lane = lane;
        seg.embed = embed;
        seg.first = first;
        seg.end = end;
        seg.output = output;
        f->segments_.push_back(std::move(seg));
    };
    if (!split) {
        add(0, true, 0, p.n_layer, true);
    } else {
        add(0, true, 0, 0, false);
        add(1, false, 0, n, head_on_accel);
        if (!head_on_accel) add(0, false, n, p.n_layer, true);
    }
    f->output_lane_ = head_on_accel ? 1 : 0;
    if (Status s = f->ensure_logits_rows(1); !s) return s;
    {
        Lane& out = f->lanes_[f->output_lane_];
        auto ids = out.device->allocate(static_cast<size_t>(max_batch) * sizeof(int32_t));
        if (!ids) return ids.status();
        out.argmax_buf = std::move(ids.value());
        out.argmax = Tensor::dense(out.argmax_buf.get(), 0, DType::I32, {1, max_batch});
    }
    f->host_inputs_.resize(static_cast<size_t>(2 * max_batch + f->n_blocks_));
    return f;
}

namespace {

bool same_tensor(const Tensor& a, const Tensor& b) {
    return a.buffer == b.buffer && a.offset == b.offset && a.type == b.type &&
           std::equal(std::begin(a.ne), std::end(a.ne), std::begin(b.ne)) &&
           std::equal(std::begin(a.nb), std::end(a.nb), std::begin(b.nb));
}

bool same_tensors(std::span<const Tensor> a, std::span<const Tensor> b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), same_tensor);
}

}  // namespace

bool Forward::recorded_as(const Segment& seg, int64_t T, const KvView& kv, Out out) const {
    const Segment::Recorded& r = seg.recorded;
    return r.n_tokens == T && r.out == static_cast<int>(out) && r.block_size == kv.block_size &&
           r.epoch == buffers_epoch_ && same_tensors(r.k, kv.k) && same_tensors(r.v, kv.v);
}

void Forward::record(Segment& seg, int64_t T, const KvView& kv, Out out) {
    const ModelConfig& p = p_;
    const Lane& lane = lanes_[seg.lane];
    backend::Graph& g = seg.graph;
    g.clear();
    Segment::Recorded& r = seg.recorded;
    r.n_tokens = T;
    r.out = static_cast<int>(out);
    r.block_size = kv.block_size;
    r.epoch = buffers_epoch_;
    r.k.assign(kv.k.begin(), kv.k.end());
    r.v.assign(kv.v.begin(), kv.v.end());
    Tensor ids = lane.ids;
    ids.ne[0] = T;
    Tensor pos = lane.pos;
    pos.ne[0] = T;
    record_layers(g, lane, T, ids, backend::KvIndex{pos, lane.table, Tensor{}}, kv.k, kv.v,
                  kv.block_size, seg.embed, seg.first, seg.end);
    if (!seg.output || out == Out::None) return;
    // Only the rows whose logits are wanted go through the output head.
    const Tensor x = lane.x.rows(0, T), xn = lane.xn.rows(0, T);
    const int64_t first = out == Out::All ? 0 : T - 1;
    const int64_t n_out = T - first;
    const Tensor logits = lane.logits.rows(0, n_out);
    g.rms_norm(xn.rows(first, n_out), x.rows(first, n_out), w_.output_norm, p.rms_eps,
               "output_norm");
    g.mat_mul(logits, w_.output, xn.rows(first, n_out), "output");
    if (p.final_softcap > 0.f) g.softcap(logits, logits, p.final_softcap, "final_softcap");
    if (out == Out::ArgMax) g.argmax(lane.argmax.rows(0, 1), logits, "greedy");
}

void Forward::record_layers(backend::Graph& g, const Lane& lane, int64_t T, const Tensor& ids,
                            const backend::KvIndex& kvi, std::span<const Tensor> kcache,
                            std::span<const Tensor> vcache, int32_t block_size, bool embed,
                            int64_t first, int64_t end) {
    const ModelConfig& p = p_;
    const Tensor& pos = kvi.positions;
    backend::KvParams kvp{block_size, p.attention_scale(), p.attn_softcap, 0};
    const Tensor x = lane.x.rows(0, T), xn = lane.xn.rows(0, T), tmp = lane.tmp.rows(0, T);
    const Tensor q = lane.q.rows(0, T), k = lane.k.rows(0, T), v = lane.v.rows(0, T);
    const Tensor att = lane.att.rows(0, T), gate = lane.gate.rows(0, T), up = lane.up.rows(0, T);
    const Tensor& rope_factors_ = lane.rope_factors;
    const Tensor q3 = q.reshaped({p.head_dim, p.n_head, T});
    const Tensor k3 = k.reshaped({p.head_dim, p.n_head_kv, T});
    const Tensor att3 = att.reshaped({p.head_dim, p.n_head, T});
    // Per-head views for the Q/K norms: one row per (head, token).
    const Tensor q_heads = q.reshaped({p.head_dim, p.n_head * T});
    const Tensor k_heads = k.reshaped({p.head_dim, p.n_head_kv * T});

    if (embed) {
        g.get_rows(x, w_.tok_embd, ids, "token_embd");
        if (p.embd_scale > 0.f) g.scale(x, x, p.embd_scale, "embd_scale");
    }
    for (int64_t l = first; l < end; ++l) {
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
            const Tensor router = lane.router.rows(0, T), rw = lane.route_w.rows(0, T);
            const Tensor rid = lane.route_ids.rows(0, T);
            const Tensor g3 = gate.reshaped({FE, K, T}), u3 = up.reshaped({FE, K, T});
            const Tensor out3 = lane.moe_out.rows(0, T).reshaped({p.n_embd, K, T});
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

Status Forward::move_hidden(size_t i, int64_t T) {
    if (i == 0 || segments_[i - 1].lane == segments_[i].lane) return Status::ok();
    const Lane& from = lanes_[segments_[i - 1].lane];
    const Lane& to = lanes_[segments_[i].lane];
    host_hidden_.resize(static_cast<size_t>(T * p_.n_embd) * sizeof(float));
    if (Status s = from.act->read(from.x.offset, host_hidden_); !s) return s;
    return to.act->write(to.x.offset, host_hidden_);
}

Status Forward::run_chunk(std::span<const int32_t> tokens, const KvView& kv, int64_t n_past,
                          Out mode, float* logits_out, int32_t* token_out) {
    const int64_t T = static_cast<int64_t>(tokens.size());
    // Every row's logits (speculative verification, k + 1 tokens): the buffer grows to this
    // step's rows rounded up to kLogitsRowStep, not to max_batch at once (a 152k vocabulary's
    // 256 rows are 156 MB, where a verification of up to 15 drafts needs 16 rows, 9.7 MB).
    constexpr int64_t kLogitsRowStep = 16;
    if (mode == Out::All)
        if (Status s = ensure_logits_rows(
                std::min(max_batch_, (T + kLogitsRowStep - 1) / kLogitsRowStep * kLogitsRowStep));
            !s)
            return s;
    // Inputs: ids, positions and the block table prefix in use, in one write per device.
    const size_t B = static_cast<size_t>(max_batch_);
    std::memcpy(host_inputs_.data(), tokens.data(), tokens.size() * sizeof(int32_t));
    for (int64_t i = 0; i < T; ++i) host_inputs_[B + size_t(i)] = static_cast<int32_t>(n_past + i);
    const auto table = kv.block_table;
    std::memcpy(host_inputs_.data() + 2 * B, table.data(),
                std::min<size_t>(table.size(), static_cast<size_t>(n_blocks_)) * sizeof(int32_t));
    for (Lane& L : lanes_)
        if (Status s = L.inputs->write(0, std::as_bytes(std::span(host_inputs_))); !s) return s;

    for (size_t i = 0; i < segments_.size(); ++i) {
        Segment& seg = segments_[i];
        // The hidden state of the batch moves to the next device.
        if (Status s = move_hidden(i, T); !s) return s;
        if (!recorded_as(seg, T, kv, mode)) record(seg, T, kv, mode);
        if (seg.graph.nodes().empty()) continue;
        if (Status s = lanes_[seg.lane].stream->compute(seg.graph); !s) return s;
    }
    tokens_computed_ += static_cast<uint64_t>(T);

    const Lane& out = lanes_[output_lane_];
    if (mode == Out::None) return Status::ok();
    if (mode == Out::ArgMax) {
        ++read_back_.token_ids;
        return out.argmax_buf->read(0, std::as_writable_bytes(std::span(token_out, 1)));
    }
    const int64_t n_out = mode == Out::All ? T : 1;
    read_back_.logits_rows += static_cast<uint64_t>(n_out);
    const size_t bytes = static_cast<size_t>(n_out * p_.n_vocab) * sizeof(float);
    return out.logits_buf->read(0, std::span(reinterpret_cast<std::byte*>(logits_out), bytes));
}

Status Forward::check_sequence(std::span<const int32_t> tokens, std::span<const int32_t> table,
                               int64_t n_past, int64_t n_ctx, int32_t block_size,
                               int64_t cache_blocks) const {
    for (int32_t t : tokens)
        if (t < 0 || t >= p_.n_vocab)
            return Status::error("token id " + std::to_string(t) +
                                 " is outside the vocabulary (0.." +
                                 std::to_string(p_.n_vocab - 1) + ")");
    const int64_t n = static_cast<int64_t>(tokens.size());
    if (n_past < 0 || n_past + n > n_ctx)
        return Status::error("context is full: " + std::to_string(n_past) + " + " +
                             std::to_string(n) + " tokens exceed the context length of " +
                             std::to_string(n_ctx));
    // The block table must cover every position written and fit the index tensor.
    const int64_t blocks_needed = (n_past + n + block_size - 1) / block_size;
    if (static_cast<int64_t>(table.size()) < blocks_needed || blocks_needed > n_blocks_)
        return Status::error("KV block table does not cover the positions to compute");
    // Every block the step touches must be a block of the cache: the engine checks the table
    // here, so a device never has to validate indices on the host.
    for (int64_t b = 0; b < blocks_needed; ++b) {
        const int32_t id = table[static_cast<size_t>(b)];
        if (id < 0 || id >= cache_blocks)
            return Status::error("KV block table entry " + std::to_string(id) +
                                 " is outside the cache of " + std::to_string(cache_blocks) +
                                 " blocks");
    }
    return Status::ok();
}

Result<std::span<const float>> Forward::step(std::span<const int32_t> tokens, KvCache& kv,
                                             bool all_logits) {
    kv.prepare(kv.n_past() + static_cast<int64_t>(tokens.size()));
    const std::span<const backend::Tensor> ks = kv.k_all(), vs = kv.v_all();
    const KvView view{ks, vs, kv.block_table(), KvCache::kBlockSize, kv.n_past(), kv.n_ctx()};
    auto out = step(tokens, view, all_logits);
    if (out) kv.set_n_past(kv.n_past() + static_cast<int64_t>(tokens.size()));
    return out;
}

Status Forward::check_step(std::span<const int32_t> tokens, const KvView& kv) const {
    if (tokens.empty()) return Status::error("no tokens to evaluate");
    if (static_cast<int64_t>(kv.k.size()) != p_.n_layer ||
        static_cast<int64_t>(kv.v.size()) != p_.n_layer)
        return Status::error("KV cache has the wrong number of layers");
    const int64_t cache_blocks = kv.k.empty() ? 0 : kv.k[0].ne[1] / kv.block_size;
    return check_sequence(tokens, kv.block_table, kv.n_past, kv.n_ctx, kv.block_size, cache_blocks);
}

Result<int32_t> Forward::step_argmax(std::span<const int32_t> tokens, KvCache& kv) {
    kv.prepare(kv.n_past() + static_cast<int64_t>(tokens.size()));
    const std::span<const backend::Tensor> ks = kv.k_all(), vs = kv.v_all();
    const KvView view{ks, vs, kv.block_table(), KvCache::kBlockSize, kv.n_past(), kv.n_ctx()};
    auto out = step_argmax(tokens, view);
    if (out) kv.set_n_past(kv.n_past() + static_cast<int64_t>(tokens.size()));
    return out;
}

Result<int32_t> Forward::step_argmax(std::span<const int32_t> tokens, const KvView& kv) {
    if (Status s = check_step(tokens, kv); !s) return s;
    const int64_t n = static_cast<int64_t>(tokens.size());
    int32_t token = 0;
    for (int64_t done = 0; done < n;) {
        const int64_t T = std::min(max_batch_, n - done);
        // Only the last chunk's last token is sampled; earlier chunks skip the head.
        const Out mode = done + T == n ? Out::ArgMax : Out::None;
        if (Status s = run_chunk(tokens.subspan(static_cast<size_t>(done), static_cast<size_t>(T)),
                                 kv, kv.n_past + done, mode, nullptr, &token);
            !s)
            return s;
        done += T;
    }
    if (token < 0 || token >= p_.n_vocab)
        return Result<int32_t>::error("the device's argmax gave token " + std::to_string(token) +
                                      ", outside the vocabulary");
    return token;
}

Result<std::span<const float>> Forward::step(std::span<const int32_t> tokens, const KvView& kv,
                                             bool all_logits) {
    if (Status s = check_step(tokens, kv); !s) return s;
    const int64_t n = static_cast<int64_t>(tokens.size());
    const size_t V = static_cast<size_t>(p_.n_vocab);
    const size_t want = all_logits ? static_cast<size_t>(n) * V : V;
    if (host_logits_.size() < want) host_logits_.resize(want);
    for (int64_t done = 0; done < n;) {
        const int64_t T = std::min(max_batch_, n - done);
        // Without all_logits only the final chunk's last row matters.
        float* out =
            all_logits ? host_logits_.data() + static_cast<size_t>(done) * V : host_logits_.data();
        if (Status s =
                run_chunk(tokens.subspan(static_cast<size_t>(done), static_cast<size_t>(T)), kv,
                          kv.n_past + done, all_logits ? Out::All : Out::Last, out, nullptr);
            !s)
            return s;
        done += T;
    }
    return std::span<const float>(host_logits_.data(), want);
}

}  // namespace hearth::runtime
