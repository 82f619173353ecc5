#include "kv/paged_kv_cache.h"

#include <algorithm>

#include "kv/prefix_hash.h"

namespace hearth::kv {

Result<std::unique_ptr<PagedKvCache>> PagedKvCache::create(
    backend::Device& device, const KvLayout& layout, uint64_t budget_bytes, int64_t min_tokens,
    std::string model_identity, std::span<backend::Device* const> layer_devices) {
    using R = Result<std::unique_ptr<PagedKvCache>>;
    if (layout.block_size <= 0 || min_tokens <= 0) return R::error("bad KV cache size");
    const uint64_t per_block = layout.block_bytes();
    if (per_block == 0) return R::error("bad KV cache layout");
    // One extra block: a sequence may hold a partial block being copied on write.
    const int64_t need = (min_tokens + layout.block_size - 1) / layout.block_size + 1;
    const int64_t n = std::max<int64_t>(need, static_cast<int64_t>(budget_bytes / per_block));
    if (n > (int64_t(1) << 30) / layout.block_size) return R::error("KV budget too large");
    std::unique_ptr<PagedKvCache> c(new PagedKvCache(static_cast<int32_t>(n), layout.block_size));
    auto mem = KvMemory::create(device, layout, static_cast<int32_t>(n), layer_devices);
    if (!mem) return mem.status();
    c->mem_ = std::move(mem.value());
    c->identity_ = std::move(model_identity);
    c->root_ = root_hash(c->identity_, static_cast<uint32_t>(layout.type));
    return c;
}

KvCacheStats PagedKvCache::stats() const {
    return {pool_.n_blocks(), pool_.n_free(), pool_.n_cached(), pool_.evictions(), hits_, cows_,
            partial_hits_};
}

PagedKvCache::SeqId PagedKvCache::open() {
    const SeqId id = next_id_++;
    seqs_[id] = Seq{};
    return id;
}

Result<PagedKvCache::SeqId> PagedKvCache::fork(SeqId src, int64_t n) {
    const Seq& s = seq(src);
    if (n < 0 || n > static_cast<int64_t>(s.tokens.size()))
        return Result<SeqId>::error("fork: position outside the sequence");
    const SeqId id = open();
    Seq& d = seq(id);
    d = s;
    for (int32_t b : d.blocks) pool_.ref(b);
    truncate(id, n);
    return id;
}

void PagedKvCache::close(SeqId id) {
    auto it = seqs_.find(id);
    if (it == seqs_.end()) return;
    for (int32_t b : it->second.blocks) pool_.unref(b);
    seqs_.erase(it);
}

std::span<const int32_t> PagedKvCache::tokens(SeqId id) const {
    return seq(id).tokens;
}
std::span<const int32_t> PagedKvCache::block_table(SeqId id) const {
    return seq(id).blocks;
}

uint64_t PagedKvCache::parent_hash(const Seq& s, size_t block) const {
    return block == 0 ? root_ : s.hashes[block - 1];
}

void PagedKvCache::truncate(SeqId id, int64_t n) {
    Seq& s = seq(id);
    // n == size still releases blocks reserved past the tokens (a failed step leaves them).
    if (n < 0 || n > static_cast<int64_t>(s.tokens.size())) return;
    const int32_t bs = pool_.block_size();
    s.tokens.resize(static_cast<size_t>(n));
    const size_t keep = static_cast<size_t>((n + bs - 1) / bs);
    for (size_t i = keep; i < s.blocks.size(); ++i) pool_.unref(s.blocks[i]);
    s.blocks.resize(std::min(keep, s.blocks.size()));
    s.hashes.resize(std::min(s.hashes.size(), static_cast<size_t>(n / bs)));
}

int64_t PagedKvCache::match(SeqId id, std::span<const int32_t> want) {
    Seq& s = seq(id);
    const int32_t bs = pool_.block_size();
    size_t c = 0;
    while (c < s.tokens.size() && c < want.size() && s.tokens[c] == want[c]) ++c;
    truncate(id, static_cast<int64_t>(c));
    // Extend with cached full blocks of the same history; the block at c/bs may replace a
    // partial block of our own.
    for (size_t i = c / size_t(bs); (i + 1) * size_t(bs) <= want.size(); ++i) {
        const auto toks = want.subspan(i * size_t(bs), size_t(bs));
        const uint64_t parent = parent_hash(s, i);
        const uint64_t h = block_hash(parent, toks);
        const auto found = pool_.lookup(h, parent, toks);
        if (!found) break;
        pool_.ref(*found);
        if (i < s.blocks.size()) {
            pool_.unref(s.blocks[i]);
            s.blocks[i] = *found;
        } else {
            s.blocks.push_back(*found);
        }
        s.hashes.resize(i);
        s.hashes.push_back(h);
        s.tokens.resize(i * size_t(bs));
        s.tokens.insert(s.tokens.end(), toks.begin(), toks.end());
        ++hits_;
    }
    adopt_partial(id, want);
    return static_cast<int64_t>(s.tokens.size());
}

void PagedKvCache::adopt_partial(SeqId id, std::span<const int32_t> want) {
    // After the whole blocks: a cached block with the same history that starts like the rest
    // of `want` (a system prompt that ends inside a block) lends its first cells by copy.
    Seq& s = seq(id);
    const size_t bs = static_cast<size_t>(pool_.block_size());
    const size_t at = s.tokens.size();
    if (at % bs != 0 || at >= want.size()) return;
    const auto rest = want.subspan(at, std::min(bs, want.size() - at));
    int32_t best = -1;
    size_t best_n = 0;
    for (int32_t b : pool_.children(parent_hash(s, at / bs))) {
        const auto bt = pool_.block_tokens(b);
        size_t n = 0;
        while (n < rest.size() && bt[n] == rest[n]) ++n;
        if (n > best_n) {
            best = b;
            best_n = n;
        }
    }
    if (best < 0 || best_n == bs) return;
    pool_.ref(best);  // keeps it from being the block allocate() evicts
    auto fresh = fresh_block();
    if (fresh && mem_->copy_cells(best, *fresh, static_cast<int32_t>(best_n))) {
        for (size_t i = at / bs; i < s.blocks.size(); ++i) pool_.unref(s.blocks[i]);
        s.blocks.resize(at / bs);
        s.blocks.push_back(*fresh);
        s.tokens.insert(s.tokens.end(), rest.begin(), rest.begin() + long(best_n));
        ++partial_hits_;
    } else if (fresh) {
        pool_.unref(*fresh);
    }
    pool_.unref(best);
}

Result<int32_t> PagedKvCache::fresh_block() {
    auto id = pool_.allocate();
    if (id) mem_->prepare(*id);
    return id;
}

Status PagedKvCache::reserve(SeqId id, int64_t count) {
    Seq& s = seq(id);
    const int32_t bs = pool_.block_size();
    const int64_t n = static_cast<int64_t>(s.tokens.size());
    if (count <= 0) return Status::ok();
    const size_t partial = static_cast<size_t>(n / bs);
    if (n % bs != 0) {
        // Writing into a block others can see (shared, or published as a full block whose
        // tail this sequence dropped) would change their history: copy it first.
        const int32_t b = s.blocks[partial];
        if (pool_.ref_count(b) > 1 || pool_.is_published(b)) {
            auto fresh = fresh_block();
            if (!fresh) return fresh.status();
            if (Status st = mem_->copy_cells(b, *fresh, static_cast<int32_t>(n % bs)); !st) {
                pool_.unref(*fresh);
                return st;
            }
            pool_.unref(b);
            s.blocks[partial] = *fresh;
            ++cows_;
        }
    }
    const size_t need = static_cast<size_t>((n + count + bs - 1) / bs);
    while (s.blocks.size() < need) {
        auto fresh = fresh_block();
        if (!fresh) return fresh.status();
        s.blocks.push_back(*fresh);
    }
    return Status::ok();
}

void PagedKvCache::publish_full(Seq& s, size_t from_block) {
    const size_t bs = static_cast<size_t>(pool_.block_size());
    s.hashes.resize(std::min(s.hashes.size(), from_block));
    for (size_t i = s.hashes.size(); (i + 1) * bs <= s.tokens.size(); ++i) {
        const auto toks = std::span<const int32_t>(s.tokens).subspan(i * bs, bs);
        const uint64_t parent = parent_hash(s, i);
        const uint64_t h = block_hash(parent, toks);
        s.hashes.push_back(h);
        pool_.publish(s.blocks[i], h, parent, toks);
    }
}

void PagedKvCache::commit(SeqId id, std::span<const int32_t> toks) {
    Seq& s = seq(id);
    const size_t first = s.tokens.size() / static_cast<size_t>(pool_.block_size());
    s.tokens.insert(s.tokens.end(), toks.begin(), toks.end());
    publish_full(s, first);
}

Status PagedKvCache::append_block(SeqId id, std::span<const std::byte> bytes) {
    Seq& s = seq(id);
    if (s.tokens.size() != s.blocks.size() * static_cast<size_t>(pool_.block_size()))
        return Status::error("append_block: the sequence ends inside a block");
    auto fresh = fresh_block();
    if (!fresh) return fresh.status();
    if (Status st = mem_->write_block(*fresh, bytes); !st) {
        pool_.unref(*fresh);
        return st;
    }
    s.blocks.push_back(*fresh);
    return Status::ok();
}

}  // namespace hearth::kv
