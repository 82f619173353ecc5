// The forward pass of the supported transformer families (llama, mistral, qwen2, qwen3,
// qwen3moe, gemma2, gemma3, phi3, llama with experts: RMS norm, RoPE, grouped-query
// attention, SwiGLU/GeGLU or experts; the family differences are switches of ModelConfig),
// written once against the backend interface. A step records one graph per device segment for
// a batch of tokens of one sequence (step) or of several sequences (step_batch, the
// scheduler's continuous batching): with a split placement (runtime/placement.h) the
// embedding lookup runs on the main device, layers [0, n_accel) on the accelerator, the rest
// on the main device, and only the hidden state of the batch crosses between them. Only the
// logits of the rows that are sampled come back; under greedy sampling the graph ends with
// ArgMax and only the chosen token's index does.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "hearth/backend/device.h"
#include "hearth/backend/graph.h"
#include "hearth/result.h"
#include "runtime/config_support.h"
#include "runtime/kv_cache.h"
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

// One sequence of a batched step (step_batch).
struct BatchSeq {
    std::span<const int32_t> tokens;
    std::span<const int32_t> block_table;
    int64_t n_past = 0;
    bool want_logits = false;  // the logits after its last token are returned
    // With want_logits (and n_logits 1): greedy sampling on the device. The graph ends with
    // ArgMax and only the index of the largest logit comes back (BatchOutput::tokens), not the
    // row.
    bool greedy = false;
    // With want_logits: the logits after each of its last n_logits tokens (speculative
    // verification judges every drafted token); 1 for a plain decode or prompt chunk.
    int32_t n_logits = 1;
};

// What step_batch returns, both in the order of the sequences given.
struct BatchOutput {
    std::span<const float> logits;    // [rows * n_vocab]: n_logits rows per non-greedy sequence
    std::span<const int32_t> tokens;  // one id per greedy sequence that wants logits
};

// What the steps have read back from the device that runs the output head (tests assert that
// a greedy decode step reads back one integer and no logits).
struct ReadBackCounts {
    uint64_t logits_rows = 0;  // rows of n_vocab floats
    uint64_t token_ids = 0;    // ArgMax results
};

class Forward {
public:
    // max_batch: most tokens per graph (longer inputs run in several graphs).
    static Result<std::unique_ptr<Forward>> create(backend::Device& device,
                                                   const ModelConfig& params,
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

    // Greedy sampling on the device: runs tokens as step() does, then ArgMax over the logits
    // after the last token; only that index is read back (no logits row).
    Result<int32_t> step_argmax(std::span<const int32_t> tokens, KvCache& kv);
    Result<int32_t> step_argmax(std::span<const int32_t> tokens, const KvView& kv);

    // Several sequences in one graph (at most max_batch tokens in all): the weights are read
    // once for every token of the batch. Returns the logits rows of the sequences that want
    // them (n_logits rows each, token order; greedy ones: one token id instead), in the order
    // given. Valid until the next call.
    Result<BatchOutput> step_batch(std::span<const BatchSeq> seqs,
                                   std::span<const backend::Tensor> k,
                                   std::span<const backend::Tensor> v, int32_t block_size,
                                   int64_t n_ctx);

    uint64_t tokens_computed() const { return tokens_computed_; }
    int64_t max_batch() const { return max_batch_; }
    // Device memory of the logits: one row per sampled row (one for a decode step), grown to
    // the batch only when every row's logits are asked for.
    size_t logits_bytes() const;
    const ReadBackCounts& read_back() const { return read_back_; }

private:
    // The buffers of one device: activations for max_batch tokens, inputs, and the logits on
    // the device that runs the output head.
    struct Lane {
        backend::Device* device = nullptr;
        std::unique_ptr<backend::Stream> stream;
        std::unique_ptr<backend::Buffer> act;     // activations for max_batch tokens
        std::unique_ptr<backend::Buffer> inputs;  // ids, positions, block table (I32)
        std::unique_ptr<backend::Buffer> logits_buf;
        int64_t logits_rows = 0;
        std::unique_ptr<backend::Buffer> argmax_buf;  // I32 [1, max_batch]: ArgMax's ids
        backend::Tensor argmax;
        // Dense activation tensors for max_batch tokens; a step uses their first rows.
        backend::Tensor x, xn, q, k, v, att, tmp, gate, up, logits;
        // Mixture of experts: router logits, chosen weights and ids, outputs [n_embd, k, T].
        backend::Tensor router, route_w, route_ids, moe_out;
        backend::Tensor ids, pos, table;
        backend::Tensor rope_factors;  // Llama 3.1 rope_freqs, or LongRoPE's set for n_ctx
        // step_batch: ids, positions, sequence of each token, block tables [n_blocks, n_seq]
        // and the rows whose logits are wanted (made on the first batched step).
        std::unique_ptr<backend::Buffer> batch_inputs;
        backend::Tensor b_ids, b_pos, b_seq, b_table, b_out;
    };
    // One graph on one lane: optionally the embedding, layers [first, end), optionally the head.
    struct Segment {
        size_t lane = 0;
        bool embed = false, output = false;
        int64_t first = 0, end = 0;
        backend::Graph graph;
        // What `graph` was recorded for by record() (tokens, head mode, KV tensors, the lanes'
        // buffers): an unchanged step keeps the graph as it is, so its revision holds and a
        // stream replays what it prepared before. n_tokens -1: recorded by another path.
        struct Recorded {
            int64_t n_tokens = -1;
            int out = -1;
            int32_t block_size = 0;
            uint64_t epoch = 0;
            std::vector<backend::Tensor> k, v;
        } recorded;
    };

    // What the output head of a single-sequence step produces (None: no head, a chunk whose
    // output nobody reads).
    enum class Out { None, Last, All, ArgMax };

    Forward(const ModelConfig& p, const ModelWeights& w) : p_(p), w_(w) {}
    Status make_lane(Lane& lane, backend::Device& device, int64_t n_ctx, int n_threads,
                     const backend::Tensor& rope_freqs, const backend::Tensor& rope_long,
                     const backend::Tensor& rope_short);
    Status ensure_logits_rows(int64_t rows);
    // One sequence's tokens, context and block table (covering the step, entries inside the
    // cache of cache_blocks blocks), for step and step_batch alike.
    Status check_sequence(std::span<const int32_t> tokens, std::span<const int32_t> table,
                          int64_t n_past, int64_t n_ctx, int32_t block_size,
                          int64_t cache_blocks) const;
    // logits_out receives the logits (Out::Last, Out::All), token_out the id (Out::ArgMax).
    Status run_chunk(std::span<const int32_t> tokens, const KvView& kv, int64_t n_past, Out out,
                     float* logits_out, int32_t* token_out);
    Status check_step(std::span<const int32_t> tokens, const KvView& kv) const;
    void record(Segment& seg, int64_t n_tokens, const KvView& kv, Out out);
    // Whether seg.graph is already what record(seg, T, kv, out) would make.
    bool recorded_as(const Segment& seg, int64_t T, const KvView& kv, Out out) const;
    // The embedding (if asked) and layers [first, end) for T tokens on one lane.
    void record_layers(backend::Graph& g, const Lane& lane, int64_t T, const backend::Tensor& ids,
                       const backend::KvIndex& kvi, std::span<const backend::Tensor> k,
                       std::span<const backend::Tensor> v, int32_t block_size, bool embed,
                       int64_t first, int64_t end);
    // Copies the hidden state of T tokens when segment i runs on another lane than i - 1.
    Status move_hidden(size_t i, int64_t T);
    Status prepare_batch_inputs();

    const ModelConfig& p_;
    const ModelWeights& w_;
    // Bumped whenever a lane's buffers change (the logits growing): recordings before it are
    // stale.
    uint64_t buffers_epoch_ = 0;
    std::vector<Lane> lanes_;  // [0]: the main device; [1]: the accelerator, when it runs layers
    std::vector<Segment> segments_;
    size_t output_lane_ = 0;
    int64_t max_batch_ = 0;
    int64_t n_blocks_ = 0;
    std::vector<int32_t> host_inputs_;
    std::vector<int32_t> host_batch_;
    std::vector<std::byte> host_hidden_;  // the hidden state between devices
    std::vector<float> host_logits_;
    std::vector<int32_t> host_tokens_;
    ReadBackCounts read_back_;
    uint64_t tokens_computed_ = 0;
};

}  // namespace hearth::runtime
