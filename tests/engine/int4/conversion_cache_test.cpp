// The INT4 conversion cache through the engine API and directly: reuse on a second load (no
// conversion), invalidation when the source changes, LRU eviction past the size limit, clear(),
// a corrupt entry rebuilt, and cancellation leaving nothing behind.
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "gguf/gguf_file.h"
#include "int4_test_util.h"
#include "model/conversion_cache.h"
#include "test_data.h"

namespace hearth {
namespace {

namespace fs = std::filesystem;

size_t count_files(const fs::path& dir) {
    size_t n = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) n += e.is_regular_file();
    return n;
}

LoadOptions int4_options(const fs::path& cache) {
    LoadOptions lo;
    lo.int4_weights = true;
    lo.int4_cache_dir = cache;
    return lo;
}

TEST(Int4Cache, ReusedThenInvalidatedBySourceChange) {
    HEARTH_REQUIRE_SHARED(model_path, "models/stories260K.gguf");
    test::TempDir dir;
    const auto src = dir.path() / "model.gguf";
    fs::copy_file(model_path, src);
    const auto cache = dir.path() / "cache";
    std::vector<std::string> phases;
    auto lo = int4_options(cache);
    lo.on_progress = [&](const LoadProgress& p) {
        if (phases.empty() || phases.back() != p.phase) phases.push_back(p.phase);
    };
    auto first = Model::load(src, lo);
    ASSERT_TRUE(first.is_ok()) << first.error_message();
    EXPECT_TRUE((*first)->info().int4_converted);
    EXPECT_FALSE((*first)->info().int4_cache_hit);
    EXPECT_EQ((*first)->info().source_path, src.string());
    EXPECT_EQ((*first)->info().name, (*Model::load(src))->info().name);
    EXPECT_EQ(phases, (std::vector<std::string>{"converting", "loading", "preparing"}));
    EXPECT_EQ(count_files(cache / "int4"), 1u);

    phases.clear();
    auto second = Model::load(src, lo);
    ASSERT_TRUE(second.is_ok());
    EXPECT_TRUE((*second)->info().int4_converted);
    EXPECT_TRUE((*second)->info().int4_cache_hit);
    EXPECT_EQ(phases, (std::vector<std::string>{"loading", "preparing"}));
    EXPECT_EQ((*second)->info().path, (*first)->info().path);

    // Rewrite the source with one weight byte changed (same size) and a new mtime.
    auto bytes = test::read_file(src);
    bytes[bytes.size() - 100] ^= 1;
    fs::remove(src);
    {
        std::ofstream out(src, std::ios::binary);
        out.write(bytes.data(), std::streamsize(bytes.size()));
    }
    fs::last_write_time(src, fs::last_write_time(src) + std::chrono::seconds(5));
    auto third = Model::load(src, lo);
    ASSERT_TRUE(third.is_ok());
    EXPECT_FALSE((*third)->info().int4_cache_hit);
    EXPECT_NE((*third)->info().path, (*first)->info().path);

    // Settings are part of the key too.
    model::Int4Settings rtn;
    rtn.method = model::Int4Method::Rtn;
    EXPECT_NE(*model::ConversionCache::key_for(src, rtn),
              *model::ConversionCache::key_for(src, model::Int4Settings{}));
}

TEST(Int4Cache, CorruptEntryIsRebuilt) {
    HEARTH_REQUIRE_SHARED(src, "models/stories260K.gguf");
    test::TempDir dir;
    const auto lo = int4_options(dir.path());
    auto first = Model::load(src, lo);
    ASSERT_TRUE(first.is_ok());
    const fs::path entry = (*first)->info().path;
    first->reset();
    const auto size = fs::file_size(entry);
    fs::resize_file(entry, size / 2);  // truncated: does not open
    auto second = Model::load(src, lo);
    ASSERT_TRUE(second.is_ok()) << second.error_message();
    EXPECT_FALSE((*second)->info().int4_cache_hit);
    EXPECT_EQ(fs::file_size(entry), size);
    {
        std::ofstream out(entry, std::ios::binary | std::ios::trunc);
        out << "not a gguf at all";
    }
    auto third = Model::load(src, lo);
    ASSERT_TRUE(third.is_ok());
    EXPECT_FALSE((*third)->info().int4_cache_hit);
    EXPECT_EQ(fs::file_size(entry), size);
}

TEST(Int4Cache, EvictionAndClear) {
    HEARTH_REQUIRE_SHARED(model_path, "models/stories260K.gguf");
    test::TempDir dir;
    const fs::path a = dir.path() / "a.gguf", b = dir.path() / "b.gguf";
    fs::copy_file(model_path, a);
    fs::copy_file(model_path, b);
    auto fa = gguf::GgufFile::open(a);
    auto fb = gguf::GgufFile::open(b);
    ASSERT_TRUE(fa.is_ok() && fb.is_ok());
    const auto calib = test::calibration_tokens(**fa);
    model::Int4Settings s;
    s.method = model::Int4Method::Rtn;  // fast; the cache does not care
    s.n_threads = 2;
    // Limit: room for one entry only.
    model::ConversionCache cache(dir.path() / "c", 600 << 10);
    auto ea = cache.get_or_convert(a, **fa, s, calib, {}, nullptr);
    ASSERT_TRUE(ea.is_ok());
    EXPECT_TRUE(ea->converted);
    EXPECT_TRUE(fs::exists(ea->path));
    auto eb = cache.get_or_convert(b, **fb, s, calib, {}, nullptr);
    ASSERT_TRUE(eb.is_ok());
    EXPECT_NE(ea->path, eb->path);       // different source paths
    EXPECT_FALSE(fs::exists(ea->path));  // least recently used, evicted
    EXPECT_TRUE(fs::exists(eb->path));
    // A roomier cache keeps both; using a refreshes it (LRU) so b goes first.
    model::ConversionCache roomy(dir.path() / "c", 900 << 10);
    ASSERT_TRUE(roomy.get_or_convert(a, **fa, s, calib, {}, nullptr).is_ok());
    EXPECT_EQ(count_files(roomy.dir()), 2u);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    auto again = roomy.get_or_convert(b, **fb, s, calib, {}, nullptr);
    ASSERT_TRUE(again.is_ok());
    EXPECT_FALSE(again->converted);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_TRUE(roomy.get_or_convert(a, **fa, s, calib, {}, nullptr).is_ok());
    model::ConversionCache tight(dir.path() / "c", 500 << 10);
    tight.evict();
    EXPECT_TRUE(fs::exists(ea->path));
    EXPECT_FALSE(fs::exists(eb->path));

    EXPECT_GT(tight.size_bytes(), 0u);
    EXPECT_GT(tight.clear(), 0u);
    EXPECT_EQ(tight.size_bytes(), 0u);
    EXPECT_EQ(count_files(tight.dir()), 0u);
    // The engine-level action.
    ASSERT_TRUE(Model::load(a, int4_options(dir.path() / "c")).is_ok());
    EXPECT_GT(clear_int4_cache(dir.path() / "c"), 0u);
    EXPECT_EQ(count_files(tight.dir()), 0u);
}

TEST(Int4Cache, CancellationLeavesNoFile) {
    HEARTH_REQUIRE_SHARED(src, "models/stories260K.gguf");
    test::TempDir dir;
    std::atomic<bool> cancel{false};
    auto lo = int4_options(dir.path());
    lo.cancel = &cancel;
    int calls = 0;
    lo.on_progress = [&](const LoadProgress& p) {
        if (p.phase == "converting" && ++calls == 2) cancel = true;  // mid-conversion
    };
    auto m = Model::load(src, lo);
    ASSERT_FALSE(m.is_ok());
    EXPECT_NE(m.error_message().find("cancelled"), std::string::npos);
    EXPECT_EQ(calls, 2);
    EXPECT_EQ(count_files(dir.path() / "int4"), 0u);
    // The next load converts from scratch and succeeds.
    cancel = false;
    calls = -1000;
    auto ok = Model::load(src, lo);
    ASSERT_TRUE(ok.is_ok());
    EXPECT_FALSE((*ok)->info().int4_cache_hit);
}

}  // namespace
}  // namespace hearth
