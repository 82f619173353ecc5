// Bookkeeping of the KV blocks (no memory here): reference counts, the prefix-cache map and an
// intrusive doubly linked free list in LRU order. A block with no reference sits on the free
// list; if it carries a prefix hash it stays findable until allocate() reuses it (eviction of
// the least recently freed block first). Unhashed free blocks are taken before hashed ones.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "hearth/result.h"

namespace hearth::kv {

class BlockPool {
public:
    BlockPool(int32_t n_blocks, int32_t block_size);

    int32_t n_blocks() const { return static_cast<int32_t>(blocks_.size()); }
    int32_t block_size() const { return block_size_; }
    // Blocks without a reference (free or cached-but-evictable).
    int32_t n_free() const { return n_free_; }
    // Free blocks that still hold a findable prefix.
    int32_t n_cached() const { return static_cast<int32_t>(by_hash_.size()) - n_cached_in_use_; }
    uint64_t evictions() const { return evictions_; }

    // Takes a free block (reference count 1), evicting the least recently used cached block
    // when no empty one is left. Fails when every block is referenced.
    Result<int32_t> allocate();
    void ref(int32_t id);
    void unref(int32_t id);
    int32_t ref_count(int32_t id) const { return blocks_[size_t(id)].ref; }

    // The cached block holding exactly `tokens` after the prefix whose hash is `parent`, under
    // `hash`. The stored tokens and parent hash are compared too, so a collision of one hash
    // alone cannot hand out wrong content. Does not take a reference.
    std::optional<int32_t> lookup(uint64_t hash, uint64_t parent,
                                  std::span<const int32_t> tokens) const;
    // Makes a full block findable. Ignored when another block already holds that hash.
    void publish(int32_t id, uint64_t hash, uint64_t parent, std::span<const int32_t> tokens);
    bool is_published(int32_t id) const { return blocks_[size_t(id)].hashed; }
    // Published blocks that follow the prefix whose hash is `parent`, and a block's tokens:
    // a new sequence can copy the first cells of such a block when only a part matches.
    std::vector<int32_t> children(uint64_t parent) const;
    std::span<const int32_t> block_tokens(int32_t id) const {
        return std::span<const int32_t>(tokens_).subspan(size_t(id) * size_t(block_size_),
                                                         size_t(block_size_));
    }

    // Checks the invariants (free list length and links, counts); for tests and debug builds.
    Status check() const;

private:
    struct Block {
        int32_t ref = 0;
        bool hashed = false;
        uint64_t hash = 0;
        uint64_t parent = 0;           // hash of the block before
        int32_t prev = -1, next = -1;  // free-list links
        bool on_free_list = false;
    };
    void push_back(int32_t id);  // most recently freed end
    void push_front(int32_t id);
    void unlink(int32_t id);
    void forget_hash(int32_t id);

    std::vector<Block> blocks_;
    std::vector<int32_t> tokens_;  // block_size tokens per block, for published blocks
    std::unordered_map<uint64_t, int32_t> by_hash_;
    std::unordered_multimap<uint64_t, int32_t> by_parent_;
    int32_t head_ = -1, tail_ = -1;  // head: next to be reused
    int32_t n_free_ = 0;
    int32_t n_cached_in_use_ = 0;
    int32_t block_size_ = 16;
    uint64_t evictions_ = 0;
};

}  // namespace hearth::kv
