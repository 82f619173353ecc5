// The facade in front of the paged KV cache: sequences are opaque ids with a block table and
// their token history. The caller (a session) asks for the longest reusable prefix of what it
// wants to compute (match), makes room for the new positions (reserve: allocation and
// copy-on-write of a shared partial block), runs the forward pass through block_table(), and
// then records what it computed (commit), which publishes the full blocks to the prefix cache.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kv/block_pool.h"
#include "kv/kv_memory.h"

namespace hearth::kv {

struct KvCacheStats {
    int32_t n_blocks = 0;
    int32_t n_free = 0;    // unreferenced (empty or cached)
    int32_t n_cached = 0;  // unreferenced but findable by prefix
    uint64_t evictions = 0;
    uint64_t prefix_hit_blocks = 0;  // blocks adopted from the prefix cache
    uint64_t cow_copies = 0;
    uint64_t partial_hits = 0;  // leading cells of a cached block copied into a new one
};

class PagedKvCache {
public:
    using SeqId = int32_t;

    // n_blocks from the byte budget (at least enough for one sequence of min_tokens).
    // model_identity and the KV type seed the prefix hashes.
    static Result<std::unique_ptr<PagedKvCache>> create(
        backend::Device& device, const KvLayout& layout, uint64_t budget_bytes, int64_t min_tokens,
        std::string model_identity, std::span<backend::Device* const> layer_devices = {});

    const KvLayout& layout() const { return mem_->layout(); }
    KvMemory& memory() { return *mem_; }
    const std::string& model_identity() const { return identity_; }
    KvCacheStats stats() const;
    Status check() const { return pool_.check(); }

    SeqId open();
    // A new sequence sharing the first n tokens of src (blocks are shared, copy-on-write).
    Result<SeqId> fork(SeqId src, int64_t n);
    void close(SeqId seq);

    std::span<const int32_t> tokens(SeqId seq) const;
    std::span<const int32_t> block_table(SeqId seq) const;

    // Keeps the longest prefix of `want` that is already computed, in this sequence or in any
    // cached block with the same history (whole blocks are shared; the leading cells of a
    // partly matching block are copied), and drops the rest. Returns the kept token count.
    int64_t match(SeqId seq, std::span<const int32_t> want);
    // Keeps only the first n tokens.
    void truncate(SeqId seq, int64_t n);
    // Makes positions [size, size + count) writable. Fails when the budget is exhausted.
    Status reserve(SeqId seq, int64_t count);
    // Records tokens just written at positions [size, size + tokens.size()).
    void commit(SeqId seq, std::span<const int32_t> tokens);

    // For restore: a fresh block written from bytes, appended to an empty-tailed sequence.
    Status append_block(SeqId seq, std::span<const std::byte> bytes);

private:
    struct Seq {
        std::vector<int32_t> tokens;
        std::vector<int32_t> blocks;
        std::vector<uint64_t> hashes;  // chained hash of each full block
    };
    PagedKvCache(int32_t n_blocks, int32_t block_size) : pool_(n_blocks, block_size) {}
    Seq& seq(SeqId id) { return seqs_.at(id); }
    const Seq& seq(SeqId id) const { return seqs_.at(id); }
    uint64_t parent_hash(const Seq& s, size_t block) const;
    void publish_full(Seq& s, size_t from_block);
    void adopt_partial(SeqId id, std::span<const int32_t> want);
    // A block from the pool, its memory committed before the forward pass writes it.
    Result<int32_t> fresh_block();

    std::unique_ptr<KvMemory> mem_;
    BlockPool pool_;
    std::map<SeqId, Seq> seqs_;
    SeqId next_id_ = 0;
    std::string identity_;
    uint64_t root_ = 0;
    uint64_t hits_ = 0, cows_ = 0, partial_hits_ = 0;
};

}  // namespace hearth::kv
