#include "kv/block_pool.h"

#include <algorithm>
#include <string>

namespace hearth::kv {

BlockPool::BlockPool(int32_t n_blocks, int32_t block_size) : block_size_(block_size) {
    blocks_.resize(static_cast<size_t>(std::max(0, n_blocks)));
    tokens_.resize(blocks_.size() * static_cast<size_t>(block_size));
    for (int32_t i = 0; i < n_blocks; ++i) push_back(i);
}

void BlockPool::push_back(int32_t id) {
    Block& b = blocks_[size_t(id)];
    b.prev = tail_;
    b.next = -1;
    if (tail_ >= 0)
        blocks_[size_t(tail_)].next = id;
    else
        head_ = id;
    tail_ = id;
    b.on_free_list = true;
    ++n_free_;
}

void BlockPool::push_front(int32_t id) {
    Block& b = blocks_[size_t(id)];
    b.prev = -1;
    b.next = head_;
    if (head_ >= 0)
        blocks_[size_t(head_)].prev = id;
    else
        tail_ = id;
    head_ = id;
    b.on_free_list = true;
    ++n_free_;
}

void BlockPool::unlink(int32_t id) {
    Block& b = blocks_[size_t(id)];
    if (b.prev >= 0)
        blocks_[size_t(b.prev)].next = b.next;
    else
        head_ = b.next;
    if (b.next >= 0)
        blocks_[size_t(b.next)].prev = b.prev;
    else
        tail_ = b.prev;
    b.prev = b.next = -1;
    b.on_free_list = false;
    --n_free_;
}

void BlockPool::forget_hash(int32_t id) {
    Block& b = blocks_[size_t(id)];
    if (!b.hashed) return;
    by_hash_.erase(b.hash);
    for (auto [it, end] = by_parent_.equal_range(b.parent); it != end; ++it)
        if (it->second == id) {
            by_parent_.erase(it);
            break;
        }
    b.hashed = false;
}

Result<int32_t> BlockPool::allocate() {
    if (head_ < 0) return Result<int32_t>::error("the KV cache budget is exhausted");
    const int32_t id = head_;
    unlink(id);
    Block& b = blocks_[size_t(id)];
    if (b.hashed) {
        ++evictions_;
        forget_hash(id);
    }
    b.ref = 1;
    b.parent = 0;
    return id;
}

void BlockPool::ref(int32_t id) {
    Block& b = blocks_[size_t(id)];
    if (b.ref == 0) {
        unlink(id);  // a prefix hit revives a cached block: O(1) from the middle of the list
        if (b.hashed) ++n_cached_in_use_;
    }
    ++b.ref;
}

void BlockPool::unref(int32_t id) {
    Block& b = blocks_[size_t(id)];
    if (b.ref <= 0) return;
    if (--b.ref > 0) return;
    if (b.hashed) {
        --n_cached_in_use_;
        push_back(id);  // kept findable; evicted last
    } else {
        push_front(id);  // nothing worth keeping: reuse first
    }
}

std::optional<int32_t> BlockPool::lookup(uint64_t hash, uint64_t parent,
                                         std::span<const int32_t> tokens) const {
    const auto it = by_hash_.find(hash);
    if (it == by_hash_.end()) return std::nullopt;
    const Block& b = blocks_[size_t(it->second)];
    if (b.parent != parent || tokens.size() != size_t(block_size_)) return std::nullopt;
    const int32_t* stored = tokens_.data() + size_t(it->second) * size_t(block_size_);
    if (!std::equal(tokens.begin(), tokens.end(), stored)) return std::nullopt;
    return it->second;
}

void BlockPool::publish(int32_t id, uint64_t hash, uint64_t parent,
                        std::span<const int32_t> tokens) {
    Block& b = blocks_[size_t(id)];
    if (b.hashed || by_hash_.count(hash) || tokens.size() != size_t(block_size_)) return;
    b.hashed = true;
    b.hash = hash;
    b.parent = parent;
    by_hash_.emplace(hash, id);
    by_parent_.emplace(parent, id);
    std::copy(tokens.begin(), tokens.end(), tokens_.begin() + long(id) * block_size_);
    if (b.ref > 0) ++n_cached_in_use_;
}

std::vector<int32_t> BlockPool::children(uint64_t parent) const {
    std::vector<int32_t> out;
    for (auto [it, end] = by_parent_.equal_range(parent); it != end; ++it)
        out.push_back(it->second);
    return out;
}

Status BlockPool::check() const {
    int32_t count = 0;
    for (int32_t i = head_, prev = -1; i >= 0; prev = i, i = blocks_[size_t(i)].next) {
        const Block& b = blocks_[size_t(i)];
        if (b.prev != prev || b.ref != 0 || !b.on_free_list)
            return Status::error("free list broken at block " + std::to_string(i));
        if (++count > n_blocks()) return Status::error("free list has a cycle");
    }
    if (count != n_free_) return Status::error("free count is wrong");
    int32_t in_use_hashed = 0;
    for (const Block& b : blocks_) {
        if ((b.ref == 0) != b.on_free_list) return Status::error("ref count vs free list");
        if (b.hashed && b.ref > 0) ++in_use_hashed;
    }
    if (in_use_hashed != n_cached_in_use_) return Status::error("cached-in-use count is wrong");
    return Status::ok();
}

}  // namespace hearth::kv
