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
    if (batch_inputs_) return Status::ok();
    // At most one sequence per token: B sequences, each with a table of n_blocks_ entries.
    const int64_t B = max_batch_;
    const int64_t n = 3 * B + n_blocks_ * B + B;
    auto buf = device_->allocate(static_cast<size_t>(n) * sizeof(int32_t));
    if (!buf) return buf.status();
    batch_inputs_ = std::move(buf.value());
    size_t off = 0;
    const auto take = [&](std::initializer_list<int64_t> ne) {
        Tensor t = Tensor::dense(batch_inputs_.get(), off, DType::I32, ne);
        int64_t count = 1;
        for (int64_t e : ne) count *= e;
        off += static_cast<size_t>(count) * sizeof(int32_t);
        return t;
    };
    b_ids_ = take({B});
    b_pos_ = take({B});
    b_seq_ = take({B});
    b_table_ = take({n_blocks_, B});
    b_out_ = take({B});
    host_batch_.assign(static_cast<size_t>(n), 0);
    return Status::ok();
}

Result<std::span<const float>> Forward::step_batch(std::span<const BatchSeq> seqs,
                                                   std::span<const Tensor> kc,
                                                   std::span<const Tensor> vc, int32_t block_size,
                                                   int64_t n_ctx) {
    using R = Result<std::span<const float>>;
    if (static_cast<int64_t>(kc.size()) != p_.n_layer ||
        static_cast<int64_t>(vc.size()) != p_.n_layer)
        return R::error("KV cache has the wrong number of layers");
    int64_t T = 0, n_out = 0;
    for (const BatchSeq& s : seqs) {
        if (s.tokens.empty()) return R::error("a sequence in the batch has no tokens");
        const int64_t n = static_cast<int64_t>(s.tokens.size());
        if (s.n_past < 0 || s.n_past + n > n_ctx)
            return R::error("context is full: " + std::to_string(s.n_past) + " + " +
                            std::to_string(n) + " tokens exceed the context length of " +
                            std::to_string(n_ctx));
        const int64_t blocks = (s.n_past + n + block_size - 1) / block_size;
        if (static_cast<int64_t>(s.block_table.size()) < blocks || blocks > n_blocks_)
            return R::error("KV block table does not cover the positions to compute");
        for (int32_t t : s.tokens)
            if (t < 0 || t >= p_.n_vocab)
                return R::error("token id " + std::to_string(t) +
                                " is outside the vocabulary (0.." + std::to_string(p_.n_vocab - 1) +
                                ")");
        T += n;
        n_out += s.want_logits ? 1 : 0;
    }
    if (T == 0) return R::error("no tokens to evaluate");
    if (T > max_batch_)
        return R::error("the batch holds " + std::to_string(T) + " tokens, more than " +
                        std::to_string(max_batch_));
    if (Status s = prepare_batch_inputs(); !s) return s;

    // Inputs in one write: ids, positions, sequence ids, tables, output rows.
    const size_t B = static_cast<size_t>(max_batch_);
    const size_t NB = static_cast<size_t>(n_blocks_);
    int32_t* ids = host_batch_.data();
    int32_t* pos = ids + B;
    int32_t* seq = pos + B;
    int32_t* table = seq + B;
    int32_t* out = table + NB * B;
    size_t t = 0, o = 0;
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
        if (s.want_logits) out[o++] = static_cast<int32_t>(t - 1);
    }
    if (Status s = batch_inputs_->write(0, std::as_bytes(std::span(host_batch_))); !s) return s;

    Tensor bids = b_ids_, bpos = b_pos_, bseq = b_seq_, btab = b_table_, bout = b_out_;
    bids.ne[0] = bpos.ne[0] = bseq.ne[0] = T;
    btab.ne[1] = static_cast<int64_t>(seqs.size());
    bout.ne[0] = n_out;
    graph_.clear();
    record_layers(T, bids, backend::KvIndex{bpos, btab, bseq}, kc, vc, block_size);
    if (n_out > 0) {
        // The last row of each sampling sequence, gathered, then the output head on those only.
        const Tensor rows = tmp_.rows(0, n_out), normed = xn_.rows(0, n_out);
        const Tensor logits = logits_.rows(0, n_out);
        graph_.get_rows(rows, x_.rows(0, T), bout, "gather_last");
        graph_.rms_norm(normed, rows, w_.output_norm, p_.rms_eps, "output_norm");
        graph_.mat_mul(logits, w_.output, normed, "output");
        if (p_.final_softcap > 0.f)
            graph_.softcap(logits, logits, p_.final_softcap, "final_softcap");
    }
    if (Status s = stream_->compute(graph_); !s) return s;
    tokens_computed_ += static_cast<uint64_t>(T);
    const size_t want = static_cast<size_t>(n_out * p_.n_vocab);
    if (host_logits_.size() < want) host_logits_.resize(want);
    if (want > 0)
        if (Status s = act_->read(logits_.offset,
                                  std::as_writable_bytes(std::span(host_logits_.data(), want)));
            !s)
            return s;
    return std::span<const float>(host_logits_.data(), want);
}

}  // namespace hearth::runtime
