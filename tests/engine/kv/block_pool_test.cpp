// BlockPool bookkeeping: free list order (LRU), references, prefix lookup, eviction.
#include <gtest/gtest.h>

#include "kv/block_pool.h"
#include "kv/prefix_hash.h"

namespace hearth::kv {
namespace {

std::vector<int32_t> toks(int32_t first, int n = 4) {
    std::vector<int32_t> t;
    for (int i = 0; i < n; ++i) t.push_back(first + i);
    return t;
}

TEST(BlockPool, AllocatesEveryBlockThenFails) {
    BlockPool p(3, 4);
    std::vector<int32_t> got;
    for (int i = 0; i < 3; ++i) {
        auto b = p.allocate();
        ASSERT_TRUE(b.is_ok());
        got.push_back(*b);
    }
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, (std::vector<int32_t>{0, 1, 2}));
    EXPECT_FALSE(p.allocate().is_ok());
    EXPECT_EQ(p.n_free(), 0);
    p.unref(1);
    EXPECT_EQ(p.n_free(), 1);
    EXPECT_EQ(*p.allocate(), 1);
    EXPECT_TRUE(p.check().is_ok());
}

TEST(BlockPool, CachedBlocksAreFoundRevivedAndEvictedLeastRecentlyUsedFirst) {
    BlockPool p(3, 4);
    const uint64_t root = root_hash("model", 1);
    int32_t ids[3];
    uint64_t hs[3];
    for (int i = 0; i < 3; ++i) {
        ids[i] = *p.allocate();
        hs[i] = block_hash(root, toks(10 * i));
        p.publish(ids[i], hs[i], root, toks(10 * i));
    }
    // Freed in order 2, 0, 1: 2 is the least recently used.
    p.unref(ids[2]);
    p.unref(ids[0]);
    p.unref(ids[1]);
    EXPECT_EQ(p.n_cached(), 3);
    // A hit revives block 0 from the middle of the list.
    auto hit = p.lookup(hs[0], root, toks(0));
    ASSERT_TRUE(hit);
    EXPECT_EQ(*hit, ids[0]);
    p.ref(*hit);
    EXPECT_EQ(p.n_cached(), 2);
    // Wrong tokens or parent under the same hash: no hit (collision-safe).
    EXPECT_FALSE(p.lookup(hs[1], root, toks(99)));
    EXPECT_FALSE(p.lookup(hs[1], root + 1, toks(10)));
    // The next allocation evicts block 2 (LRU), which stops being findable.
    EXPECT_EQ(*p.allocate(), ids[2]);
    EXPECT_EQ(p.evictions(), 1u);
    EXPECT_FALSE(p.lookup(hs[2], root, toks(20)));
    EXPECT_TRUE(p.lookup(hs[1], root, toks(10)));
    EXPECT_TRUE(p.check().is_ok());
}

TEST(BlockPool, UnhashedFreeBlocksAreReusedBeforeCachedOnes) {
    BlockPool p(2, 4);
    const int32_t a = *p.allocate(), b = *p.allocate();
    p.publish(a, 42, 0, toks(0));
    p.unref(a);  // cached
    p.unref(b);  // plain
    EXPECT_EQ(*p.allocate(), b);
    EXPECT_EQ(p.evictions(), 0u);
    EXPECT_TRUE(p.check().is_ok());
}

TEST(PrefixHash, ChainsTheWholeHistory) {
    const uint64_t r = root_hash("m", 1);
    EXPECT_NE(r, root_hash("m", 8));  // another KV type
    EXPECT_NE(r, root_hash("n", 1));  // another model
    const uint64_t a = block_hash(r, toks(0)), b = block_hash(r, toks(1));
    EXPECT_NE(a, b);
    EXPECT_NE(block_hash(a, toks(5)), block_hash(b, toks(5)));  // same block, other history
    EXPECT_EQ(block_hash(a, toks(5)), block_hash(block_hash(r, toks(0)), toks(5)));
}

}  // namespace
}  // namespace hearth::kv
