// PagedKvCache on the reference device: prefix matching across sequences, forks with
// copy-on-write, truncation, and the KV file (round trip and refusals) at the cache level.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "resident_pages.h"

#include "kv/kv_file.h"
#include "kv/paged_kv_cache.h"
#include "ref/ref_device.h"

namespace hearth::kv {
namespace {

KvLayout layout(backend::DType t = backend::DType::F16) {
    return {2, 32, t, 4};  // 2 layers, width 32, blocks of 4
}

std::unique_ptr<PagedKvCache> make(backend::Device& d, int32_t blocks,
                                   backend::DType t = backend::DType::F16,
                                   const std::string& id = "model-a") {
    auto c = PagedKvCache::create(d, layout(t), layout(t).block_bytes() * blocks, 8, id);
    EXPECT_TRUE(c.is_ok());
    return std::move(c.value());
}

// Writes a recognisable pattern into the cells [from, to) of a sequence: byte = token.
void fill(PagedKvCache& c, PagedKvCache::SeqId s, std::span<const int32_t> toks) {
    const int64_t start = static_cast<int64_t>(c.tokens(s).size());
    ASSERT_TRUE(c.reserve(s, static_cast<int64_t>(toks.size())).is_ok());
    const auto table = c.block_table(s);
    std::vector<std::byte> block(c.layout().block_bytes());
    const size_t row = c.layout().row_bytes(), bs = size_t(c.layout().block_size);
    for (size_t i = 0; i < toks.size(); ++i) {
        const size_t pos = size_t(start) + i;
        const int32_t b = table[pos / bs];
        ASSERT_TRUE(c.memory().read_block(b, block).is_ok());
        for (size_t plane = 0; plane < 4; ++plane)  // K, V of 2 layers
            std::fill_n(block.begin() + long(plane * bs * row + (pos % bs) * row), row,
                        std::byte(toks[i] & 0xff));
        ASSERT_TRUE(c.memory().write_block(b, block).is_ok());
    }
    c.commit(s, toks);
}

int cell_byte(PagedKvCache& c, PagedKvCache::SeqId s, size_t pos) {
    std::vector<std::byte> block(c.layout().block_bytes());
    const size_t bs = size_t(c.layout().block_size);
    EXPECT_TRUE(c.memory().read_block(c.block_table(s)[pos / bs], block).is_ok());
    return int(block[(pos % bs) * c.layout().row_bytes()]);
}

TEST(PagedKvCache, ReusesFullBlocksAcrossSequences) {
    auto dev = backend::make_ref_device();
    auto c = make(*dev, 8);
    const std::vector<int32_t> a = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    auto s1 = c->open();
    EXPECT_EQ(c->match(s1, a), 0);
    fill(*c, s1, a);
    auto s2 = c->open();
    std::vector<int32_t> b = {1, 2, 3, 4, 5, 6, 7, 8, 11};
    EXPECT_EQ(c->match(s2, b), 8);  // two full blocks, shared
    EXPECT_EQ(c->block_table(s2)[0], c->block_table(s1)[0]);
    EXPECT_EQ(c->stats().prefix_hit_blocks, 2u);
    std::vector<int32_t> other = {1, 2, 3, 9};
    auto s3 = c->open();
    EXPECT_EQ(c->match(s3, other), 3);  // the first block's first 3 cells, copied
    EXPECT_NE(c->block_table(s3)[0], c->block_table(s1)[0]);
    EXPECT_TRUE(c->check().is_ok());
}

TEST(PagedKvCache, CopiesTheLeadingCellsOfAPartlyMatchingBlock) {
    auto dev = backend::make_ref_device();
    auto c = make(*dev, 8);
    auto s1 = c->open();
    fill(*c, s1, std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8});
    c->close(s1);  // both blocks stay cached
    auto s2 = c->open();
    EXPECT_EQ(c->match(s2, std::vector<int32_t>{1, 2, 3, 4, 5, 6, 60, 61}), 6);
    EXPECT_EQ(c->stats().partial_hits, 1u);
    EXPECT_EQ(cell_byte(*c, s2, 5), 6);
    fill(*c, s2, std::vector<int32_t>{60});
    auto s3 = c->open();  // the original block is intact
    EXPECT_EQ(c->match(s3, std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8}), 8);
    EXPECT_EQ(cell_byte(*c, s3, 6), 7);
    EXPECT_EQ(cell_byte(*c, s2, 6), 60);
    EXPECT_TRUE(c->check().is_ok());
}

TEST(PagedKvCache, ForkCopiesASharedPartialBlockBeforeWriting) {
    auto dev = backend::make_ref_device();
    auto c = make(*dev, 8);
    auto s1 = c->open();
    fill(*c, s1, std::vector<int32_t>{1, 2, 3, 4, 5, 6});
    auto s2 = c->fork(s1, 5);
    ASSERT_TRUE(s2.is_ok());
    EXPECT_EQ(c->block_table(*s2)[1], c->block_table(s1)[1]);
    fill(*c, *s2, std::vector<int32_t>{50, 51});
    EXPECT_NE(c->block_table(*s2)[1], c->block_table(s1)[1]);
    EXPECT_EQ(c->stats().cow_copies, 1u);
    EXPECT_EQ(cell_byte(*c, s1, 5), 6);   // s1 untouched
    EXPECT_EQ(cell_byte(*c, *s2, 4), 5);  // copied prefix
    EXPECT_EQ(cell_byte(*c, *s2, 5), 50);
    c->close(s1);
    c->close(*s2);
    EXPECT_EQ(c->stats().n_free, c->stats().n_blocks);
    EXPECT_TRUE(c->check().is_ok());
}

TEST(PagedKvCache, WritingIntoAPublishedBlockCopiesIt) {
    auto dev = backend::make_ref_device();
    auto c = make(*dev, 8);
    auto s1 = c->open();
    fill(*c, s1, std::vector<int32_t>{1, 2, 3, 4});
    c->truncate(s1, 2);  // the full block is still cached for others
    fill(*c, s1, std::vector<int32_t>{9});
    auto s2 = c->open();
    EXPECT_EQ(c->match(s2, std::vector<int32_t>{1, 2, 3, 4, 5}), 4);
    EXPECT_EQ(cell_byte(*c, s2, 2), 3);
    EXPECT_EQ(cell_byte(*c, s1, 2), 9);
}

TEST(PagedKvCache, BudgetExhaustionIsAnError) {
    auto dev = backend::make_ref_device();
    auto c = make(*dev, 3);  // 3 blocks (the minimum for 8 tokens)
    auto s = c->open();
    EXPECT_TRUE(c->reserve(s, 12).is_ok());
    EXPECT_FALSE(c->reserve(s, 13).is_ok());
    EXPECT_TRUE(c->check().is_ok());
}

TEST(KvFile, RoundTripAndRefusals) {
    auto dev = backend::make_ref_device();
    const auto dir = std::filesystem::temp_directory_path() / "hearth_kv_file_test";
    std::filesystem::create_directories(dir);
    auto c = make(*dev, 8);
    auto s = c->open();
    const std::vector<int32_t> t = {7, 8, 9, 10, 11, 12};
    fill(*c, s, t);
    ASSERT_TRUE(save_sequence(dir / "a.hkv", *c, s).is_ok());
    auto c2 = make(*dev, 8);
    auto s2 = c2->open();
    auto n = restore_sequence(dir / "a.hkv", *c2, s2);
    ASSERT_TRUE(n.is_ok()) << n.error_message();
    EXPECT_EQ(*n, 6);
    EXPECT_EQ(std::vector<int32_t>(c2->tokens(s2).begin(), c2->tokens(s2).end()), t);
    for (size_t i = 0; i < t.size(); ++i) EXPECT_EQ(cell_byte(*c2, s2, i), t[i]);

    auto refuse = [&](PagedKvCache& cache, const std::filesystem::path& p, const char* why) {
        auto sx = cache.open();
        auto r = restore_sequence(p, cache, sx);
        ASSERT_FALSE(r.is_ok());
        EXPECT_NE(r.error_message().find(why), std::string::npos) << r.error_message();
        EXPECT_TRUE(cache.tokens(sx).empty());
        cache.close(sx);
    };
    auto other_model = make(*dev, 8, backend::DType::F16, "model-b");
    refuse(*other_model, dir / "a.hkv", "another model");
    auto other_type = make(*dev, 8, backend::DType::Q8_0);
    refuse(*other_type, dir / "a.hkv", "another KV cache type");
    std::ifstream in(dir / "a.hkv", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (size_t at : {size_t(2), size_t(30), bytes.size() - 20, bytes.size() - 1}) {
        std::string bad = bytes;
        bad[at] = char(bad[at] ^ 1);
        std::ofstream(dir / "bad.hkv", std::ios::binary) << bad;
        refuse(*c2, dir / "bad.hkv", "damaged");
    }
    std::ofstream(dir / "short.hkv", std::ios::binary) << bytes.substr(0, 5);
    refuse(*c2, dir / "short.hkv", "truncated");
    EXPECT_TRUE(c2->check().is_ok());
    std::filesystem::remove_all(dir);
}

#if defined(__linux__)
// A block handed out has its K and V pages of every layer committed before the forward pass
// writes them (one bulk call instead of a fault a page), with the rest of its run of
// KvMemory::kPrepareBlocks blocks; blocks of other runs stay uncommitted.
TEST(PagedKvCache, CommitsABlocksMemoryWhenHandedOut) {
    if (!test::can_populate_write()) {
        GTEST_SKIP() << "no MADV_POPULATE_WRITE on this kernel (before Linux 5.14)";
    }
    auto dev = backend::make_ref_device();
    const KvLayout l{2, 1024, backend::DType::F32, 16};  // 64 KiB of K a layer and block
    const int32_t blocks = 4 * KvMemory::kPrepareBlocks;
    auto made = PagedKvCache::create(*dev, l, l.block_bytes() * size_t(blocks), 16, "m");
    ASSERT_TRUE(made.is_ok());
    PagedKvCache& c = *made.value();
    const size_t run = l.row_bytes() * size_t(l.block_size) * size_t(KvMemory::kPrepareBlocks);
    auto plane = [&](bool v, int64_t layer) {
        const backend::Tensor& t =
            v ? c.memory().v()[size_t(layer)] : c.memory().k()[size_t(layer)];
        return t.buffer->host_data() + t.offset;
    };
    for (int64_t layer = 0; layer < l.n_layer; ++layer)
        for (bool v : {false, true}) ASSERT_EQ(test::resident_pages(plane(v, layer), 4 * run), 0u);

    auto s = c.open();
    ASSERT_TRUE(c.reserve(s, 20).is_ok());  // two blocks
    for (int32_t b : c.block_table(s)) {
        const size_t first = size_t(b / KvMemory::kPrepareBlocks) * run;
        for (int64_t layer = 0; layer < l.n_layer; ++layer)
            for (bool v : {false, true}) {
                EXPECT_EQ(test::resident_pages(plane(v, layer) + first, run),
                          run / test::page_bytes())
                    << "block " << b;
            }
    }
    // Runs no block of the sequence is in stay as they were.
    std::vector<bool> used(4, false);
    for (int32_t b : c.block_table(s)) used[size_t(b / KvMemory::kPrepareBlocks)] = true;
    for (size_t r = 0; r < used.size(); ++r) {
        if (used[r]) continue;
        for (int64_t layer = 0; layer < l.n_layer; ++layer) {
            EXPECT_EQ(test::resident_pages(plane(false, layer) + r * run, run), 0u) << "run " << r;
        }
    }
}
#endif

}  // namespace
}  // namespace hearth::kv
