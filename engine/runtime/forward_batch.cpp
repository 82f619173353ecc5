// Forward::step_batch: several sequences in one graph for the scheduler. The layers are the
// same graph as a single-sequence step (record_layers); only the inputs differ: every token
// carries its sequence id, the block table has one column per sequence, and the output head
// runs on the gathered last rows of the sequences that sample.
#include <algorithm>
#include <cstring>
#include <string>

#include "runtime/forward.h"

namespace hearth::runtime {

using backend::DType;
using backend::Tensor;

Status Forward::prepare_batch_inputs() {
    // At most one sequence per token: B sequences, each with a table of n_blocks_ entries.
    const int64_t B = max_batch_;
    const int64_t n = 3 * B + n_blocks_ * B + B;
    for (Lane& L : lanes_) {
        if (L.batch_inputs) continue;
        auto buf = L.device->allocate(static_cast<size_t>(n) * sizeof(int32_t));
        if (!buf) return buf.status();
        L.batch_inputs = std::move(buf.value());
        size_t off = 0;
        const auto take = [&](std::initializer_list<int64_t> ne) {
            Tensor t = Tensor::dense(L.batch_inputs.get(), off, DType::I32, ne);
            int64_t count = 1;
            for (int64_t e : ne) count *= e;
            off += static_cast<size_t>(count) * sizeof(int32_t);
            return t;
        };
        L.b_ids = take({B});
        L.b_pos = take({B});
        L.b_seq = take({B});
        L.b_table = take({n_blocks_, B});
        L.b_out = take({B});
    }
    host_batch_.assign(static_cast<size_t>(n), 0);
    return Status::ok();
}

Result<BatchOutput> Forward::step_batch(std::span<const BatchSeq> seqs, std::span<const Tensor> kc,
                                        std::span<const Tensor> vc, int32_t block_size,
                                        int64_t n_ctx) {
    using R = Result<BatchOutput>;
    if (static_cast<int64_t>(kc.size()) != p_.n_layer ||
        static_cast<int64_t>(vc.size()) != p_.n_layer)
        return R::error("KV cache has the wrong number of layers");
    const int64_t cache_blocks = kc.empty() ? 0 : kc[0].ne[1] / block_size;
    int64_t T = 0, n_out = 0, n_greedy = 0;
    for (const BatchSeq& s : seqs) {
        if (s.tokens.empty()) return R::error("a sequence in the batch has no tokens");
        if (Status st =
                check_sequence(s.tokens, s.block_table, s.n_past, n_ctx, block_size, cache_blocks);
            !st)
            return st;
        const int64_t n = static_cast<int64_t>(s.tokens.size());
        if (s.want_logits && (s.n_logits < 1 || s.n_logits > n))
            return R::error("a sequence in the batch asks for the logits of " +
                            std::to_string(s.n_logits) + " of its " + std::to_string(n) +
                            " tokens");
        T += n;
        if (s.want_logits && s.greedy && s.n_logits != 1)
            return R::error("a greedy sequence in the batch asks for more than one row");
        n_out += s.want_logits ? s.n_logits : 0;
        n_greedy += s.want_logits && s.greedy ? 1 : 0;
    }
    const int64_t n_rows = n_out - n_greedy;  // logits rows read back
    if (T == 0) return R::error("no tokens to evaluate");
    if (T > max_batch_)
        return R::error("the batch holds " + std::to_string(T) + " tokens, more than " +
                        std::to_string(max_batch_));
    if (Status s = prepare_batch_inputs(); !s) return s;
    if (Status s = ensure_logits_rows(std::max<int64_t>(1, n_out)); !s) return s;

    // Inputs in one write per device: ids, positions, sequence ids, tables, output rows.
    const size_t B = static_cast<size_t>(max_batch_);
    const size_t NB = static_cast<size_t>(n_blocks_);
    int32_t* ids = host_batch_.data();
    int32_t* pos = ids + B;
    int32_t* seq = pos + B;
    int32_t* table = seq + B;
    int32_t* out = table + NB * B;
    // Output rows: the sequences that read logits back first, then the greedy ones (ArgMax
    // runs on that tail), each group in the order given.
    size_t t = 0, o = 0, og = static_cast<size_t>(n_rows);
    for (size_t si = 0; si < seqs.size(); ++si) {
        const BatchSeq& s = seqs[si];
        for (size_t i = 0; i < s.tokens.size(); ++i, ++t) {
            ids[t] = s.tokens[i];
            pos[t] = static_cast<int32_t>(s.n_past + static_cast<int64_t>(i));
            seq[t] = static_cast<int32_t>(si);
        }
        const size_t nb = std::min(s.block_table.size(), NB);
        std::memcpy(table + si * NB, s.block_table.data(), nb * sizeof(int32_t));
        std::fill(table + si * NB + nb, table + (si + 1) * NB, 0);
        if (s.want_logits && s.greedy)
            out[og++] = static_cast<int32_t>(t - 1);
        else if (s.want_logits)
            for (size_t r = t - static_cast<size_t>(s.n_logits); r < t; ++r)
                out[o++] = static_cast<int32_t>(r);
    }
    for (Lane& L : lanes_)
        if (Status s = L.batch_inputs->write(0, std::as_bytes(std::span(host_batch_))); !s)
            return s;

    for (size_t i = 0; i < segments_.size(); ++i) {
        Segment& seg = segments_[i];
        const Lane& lane = lanes_[seg.lane];
        if (Status s = move_hidden(i, T); !s) return s;
        Tensor bids = lane.b_ids, bpos = lane.b_pos, bseq = lane.b_seq, btab = lane.b_table;
        bids.ne[0] = bpos.ne[0] = bseq.ne[0] = T;
        btab.ne[1] = static_cast<int64_t>(seqs.size());
        backend::Graph& g = seg.graph;
        g.clear();
        seg.recorded.n_tokens = -1;
        record_layers(g, lane, T, bids, backend::KvIndex{bpos, btab, bseq}, kc, vc, block_size,
                      seg.embed, seg.first, seg.end);
        if (seg.output && n_out > 0) {
            // The rows whose logits are wanted (the last of each sampling sequence, or its last
            // n_logits), gathered, then the output head on those.
            Tensor bout = lane.b_out;
            bout.ne[0] = n_out;
            const Tensor rows = lane.tmp.rows(0, n_out), normed = lane.xn.rows(0, n_out);
            const Tensor logits = lane.logits.rows(0, n_out);
            g.get_rows(rows, lane.x.rows(0, T), bout, "gather_last");
            g.rms_norm(normed, rows, w_.output_norm, p_.rms_eps, "output_norm");
            g.mat_mul(logits, w_.output, normed, "output");
            if (p_.final_softcap > 0.f)
                g.softcap(logits, logits, p_.final_softcap, "final_softcap");
            if (n_greedy > 0)
                g.argmax(lane.argmax.rows(0, n_greedy), logits.rows(n_rows, n_greedy), "greedy");
        }
        if (g.nodes().empty()) continue;
        if (Status s = lane.stream->compute(g); !s) return s;
    }
    tokens_computed_ += static_cast<uint64_t>(T);
    const Lane& head = lanes_[output_lane_];
    const size_t want = static_cast<size_t>(n_rows * p_.n_vocab);
    if (host_logits_.size() < want) host_logits_.resize(want);
    if (want > 0)
        if (Status s = head.logits_buf->read(
                0, std::as_writable_bytes(std::span(host_logits_.data(), want)));
            !s)
            return s;
    const size_t ng = static_cast<size_t>(n_greedy);
    if (host_tokens_.size() < ng) host_tokens_.resize(ng);
    if (ng > 0) {
        if (Status s = head.argmax_buf->read(
                0, std::as_writable_bytes(std::span(host_tokens_.data(), ng)));
            !s)
            return s;
        for (size_t i = 0; i < ng; ++i)
            if (host_tokens_[i] < 0 || host_tokens_[i] >= p_.n_vocab)
                return R::error("the device's argmax gave token " +
                                std::to_string(host_tokens_[i]) + ", outside the vocabulary");
    }
    read_back_.logits_rows += static_cast<uint64_t>(n_rows);
    read_back_.token_ids += ng;
    return BatchOutput{std::span<const float>(host_logits_.data(), want),
                       std::span<const int32_t>(host_tokens_.data(), ng)};
}

}  // namespace hearth::runtime
