// The forward pass of the supported transformer families (llama, mistral, qwen2, qwen3,
// qwen3moe, gemma2, gemma3, phi3, llama with experts: RMS norm, RoPE, grouped-query
// attention, SwiGLU/GeGLU or experts; the family differences are switches of ModelParams),
// written once against the backend interface. A step records one graph for
// a batch of tokens of one sequence (step) or of several sequences (step_batch, the
// scheduler's continuous batching) and runs it on the device; only the logits come back.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "hearth/backend/device.h"
#include "hearth/backend/graph.h"
#include "hearth/result.h"
#include "runtime/kv_cache.h"
#include "runtime/model_params.h"
#include "runtime/model_weights.h"

namespace hearth::runtime {

// What a step needs from a KV cache, contiguous or paged: per layer K and V tensors, this
// sequence's block table, and how many positions it already holds.
struct KvView {
    std::span<const backend::Tensor> k, v;
    std::span<const int32_t> block_table;
    int32_t block_size = 16;
    int64_t n_past = 0;
    int64_t n_ctx = 0;  // most positions the sequence may reach
};

// One sequence's share of a batched step: its tokens run at positions n_past onwards through
// its own block table (which the caller has extended to cover them).
struct BatchSeq {
    std::span<const int32_t> tokens;
    std::span<const int32_t> block_table;
    int64_t n_past = 0;
    bool want_logits = false;  // the logits after its last token are returned
};

class Forward {
public:
    // max_batch: most tokens per graph (longer inputs run in several graphs).
    static Result<std::unique_ptr<Forward>> create(backend::Device& device,
                                                   const ModelParams& params,
                                                   const ModelWeights& weights, int64_t n_ctx,
                                                   int64_t max_batch, int n_threads);

    // Runs tokens at positions kv.n_past() onwards and appends them to the cache. Returns the
    // logits of the last token ([n_vocab]) or, with all_logits, of every token
    // ([n_tokens * n_vocab], token-major). Valid until the next call.
    Result<std::span<const float>> step(std::span<const int32_t> tokens, KvCache& kv,
                                        bool all_logits = false);
    // The same over any cache: the caller has made room for the tokens in the block table
    // and advances its own position count afterwards.
    Result<std::span<const float>> step(std::span<const int32_t> tokens, const KvView& kv,
                                        bool all_logits = false);

    // Several sequences in one graph (at most max_batch tokens in all): the weights are read
    // once for every token of the batch. Returns one logits row per sequence that wants them,
    // in the order given ([n_wanted * n_vocab]). Valid until the next call.
    Result<std::span<const float>> step_batch(std::span<const BatchSeq> seqs,
                                              std::span<const backend::Tensor> k,
                                              std::span<const backend::Tensor> v,
                                              int32_t block_size, int64_t n_ctx);

    uint64_t tokens_computed() const { return tokens_computed_; }
    int64_t max_batch() const { return max_batch_; }

private:
    Forward(const ModelParams& p, const ModelWeights& w) : p_(p), w_(w) {}
    Status run_chunk(std::span<const int32_t> tokens, const KvView& kv, int64_t n_past,
                     bool all_logits, float* logits_out);
    void record(int64_t n_tokens, const KvView& kv, bool all_logits);
    // The embedding and every layer for T tokens (ids, positions and block tables in kvi).
    void record_layers(int64_t T, const backend::Tensor& ids, const backend::KvIndex& kvi,
                       std::span<const backend::Tensor> k, std::span<const backend::Tensor> v,
                       int32_t block_size);
    Status prepare_batch_inputs();

    const ModelParams& p_;
    const ModelWeights& w_;
    std::unique_ptr<backend::Stream> stream_;
    std::unique_ptr<backend::Buffer> act_;     // activations for max_batch tokens
    std::unique_ptr<backend::Buffer> inputs_;  // ids, positions, block table (I32)
    backend::Graph graph_;
    int64_t max_batch_ = 0;
    int64_t n_blocks_ = 0;
    // Dense activation tensors for max_batch tokens; a step uses their first rows.
    backend::Tensor x_, xn_, q_, k_, v_, att_, tmp_, gate_, up_, logits_;
    // Mixture of experts: router logits, chosen weights and ids, expert outputs [n_embd, k, T].
    backend::Tensor router_, route_w_, route_ids_, moe_out_;
    backend::Tensor ids_, pos_, table_;
    backend::Tensor rope_factors_;  // Llama 3.1 rope_freqs, or LongRoPE's set for this context
    // step_batch: ids, positions, sequence of each token, block tables [n_blocks, n_seq] and the
    // rows whose logits are wanted, in their own buffer (made on the first batched step).
    std::unique_ptr<backend::Buffer> batch_inputs_;
    backend::Tensor b_ids_, b_pos_, b_seq_, b_table_, b_out_;
    std::vector<int32_t> host_batch_;
    backend::Device* device_ = nullptr;
    std::vector<int32_t> host_inputs_;
    std::vector<float> host_logits_;
    uint64_t tokens_computed_ = 0;
};

}  // namespace hearth::runtime
