// Faults around the files the engine writes and reads (stories260K):
//  - SIGKILL at random moments of a child process converting to INT4 through the conversion
//    cache, and of one saving a KV file over and over: the cache entry and the KV file are each
//    either complete (they load / restore) or absent, never half-written;
//  - the model file changing underneath a loaded model: deleted (keeps working: the mapping
//    holds the inode), truncated (an error before the next step, not SIGBUS), replaced by
//    another file at the same path (the INT4 cache key and the KV identity change, so neither
//    cache is reused).
// The children are this executable re-run with --gtest_filter on a case that only acts when
// HEARTH_FAULT_CHILD is set (a fresh process, not a fork of a threaded one).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gguf/gguf_file.h"
#include "hearth/engine.h"
#include "hearth/session.h"
#include "model/conversion_cache.h"
#include "test_data.h"

extern char** environ;

namespace hearth {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPrompt =
    "Once upon a time, there was a little girl named Lily. She loved to play outside in the "
    "park with her friends and her dog.";

GenerateOptions greedy(int32_t n) {
    GenerateOptions o;
    o.max_tokens = n;
    o.sampling.temperature = 0.f;
    o.stop_at_end_of_generation = false;
    return o;
}

// Starts this test binary as a child running only FileFaultsChild.Run with `mode`.
pid_t spawn_child(const std::string& mode) {
    const std::string self = fs::read_symlink("/proc/self/exe").string();
    std::string filter = "--gtest_filter=FileFaultsChild.Run";
    char* argv[] = {const_cast<char*>(self.c_str()), filter.data(), nullptr};
    std::vector<std::string> env_store;
    for (char** e = environ; *e; ++e) env_store.emplace_back(*e);
    env_store.push_back("HEARTH_FAULT_CHILD=" + mode);
    std::vector<char*> envp;
    for (auto& e : env_store) envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, self.c_str(), &fa, nullptr, argv, envp.data());
    posix_spawn_file_actions_destroy(&fa);
    return rc == 0 ? pid : -1;
}

void kill_after(pid_t pid, int ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
}

// The child: loops until killed. int4:<model>:<cache dir> (INT4 loads: the first converts) |
// kv:<model>:<file> (saves the same session over and over).
TEST(FileFaultsChild, Run) {
    const char* mode = std::getenv("HEARTH_FAULT_CHILD");
    if (!mode) GTEST_SKIP() << "runs only as the child of FileFaults tests";
    const std::string m(mode);
    const auto a = m.find(':'), b = m.rfind(':');
    const std::string kind = m.substr(0, a), model = m.substr(a + 1, b - a - 1),
                      target = m.substr(b + 1);
    if (kind == "int4") {
        clear_int4_cache(target);  // each child converts afresh, then loads from the cache
        for (;;) {
            LoadOptions opt;
            opt.int4_weights = true;
            opt.int4_cache_dir = target;
            opt.backend = "cpu";
            if (!Model::load(model, opt)) std::_Exit(3);
        }
    }
    auto loaded = Model::load(model);
    if (!loaded) std::_Exit(3);
    auto store = KvStore::create(*loaded, {.n_ctx = 256});
    if (!store) std::_Exit(3);
    auto session = Session::create(*store, {.n_threads = 1});
    if (!session) std::_Exit(3);
    auto toks = (*loaded)->tokenize(kPrompt, true, false);
    if (!toks || !(*session)->prefill(*toks)) std::_Exit(3);
    for (;;)
        if (!(*session)->save(target)) std::_Exit(3);
}

TEST(FileFaults, KillsDuringInt4ConversionLeaveTheCacheCompleteOrAbsent) {
    HEARTH_REQUIRE_SHARED(model, "models/stories260K.gguf");
    test::TempDir dir;
    LoadOptions opt;
    opt.int4_weights = true;
    opt.int4_cache_dir = dir.path() / "timing";
    // One conversion here times the kills: spread over start-up, conversion and rename.
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_TRUE(Model::load(model, opt).is_ok());
    const int convert_ms = int(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
            .count());
    std::mt19937 rng(std::random_device{}());
    int complete = 0, partial_tmp = 0;
    for (int round = 0; round < 12; ++round) {
        const pid_t pid = spawn_child("int4:" + model.string() + ":" + dir.path().string());
        ASSERT_GT(pid, 0);
        kill_after(pid, std::uniform_int_distribution<int>(20, 2 * convert_ms + 100)(rng));
        const fs::path int4 = dir.path() / "int4";
        if (!fs::exists(int4)) continue;
        for (const auto& e : fs::directory_iterator(int4)) {
            if (e.path().extension() != ".gguf") {  // .gguf.tmpPID: never used as an entry
                ++partial_tmp;
                continue;
            }
            auto f = gguf::GgufFile::open(e.path());
            ASSERT_TRUE(f.is_ok()) << "a half-written cache entry: " << f.error_message();
            EXPECT_TRUE((*f)->get_u64("hearth.int4.converter_version").has_value());
            ++complete;
        }
    }
    // Whatever the kills left, loading with INT4 works (a hit or a fresh conversion).
    opt.int4_cache_dir = dir.path();
    auto m = Model::load(model, opt);
    ASSERT_TRUE(m.is_ok()) << m.error_message();
    EXPECT_TRUE((*m)->info().int4_converted);
    std::printf(
        "12 kills during INT4 conversion (%d ms each): %d complete entries, %d temporary files "
        "of killed conversions, no partial entry\n",
        convert_ms, complete, partial_tmp);
}

TEST(FileFaults, KillsDuringKvSaveLeaveTheFileCompleteOrAbsent) {
    HEARTH_REQUIRE_SHARED(model, "models/stories260K.gguf");
    test::TempDir dir;
    auto loaded = Model::load(model);
    ASSERT_TRUE(loaded.is_ok());
    const auto toks = (*loaded)->tokenize(kPrompt, true, false);
    ASSERT_TRUE(toks.is_ok());
    auto store = KvStore::create(*loaded, {.n_ctx = 256});
    ASSERT_TRUE(store.is_ok());
    std::mt19937 rng(std::random_device{}());
    int restored = 0, mid_write = 0;
    const fs::path file = dir.path() / "chat.hkv";
    for (int round = 0; round < 20; ++round) {
        const pid_t pid = spawn_child("kv:" + model.string() + ":" + file.string());
        ASSERT_GT(pid, 0);
        kill_after(pid, std::uniform_int_distribution<int>(20, 600)(rng));
        if (fs::exists(file.string() + ".part")) ++mid_write;
        if (!fs::exists(file)) continue;
        auto s = Session::create(*store, {.n_threads = 1});
        ASSERT_TRUE(s.is_ok());
        auto n = (*s)->restore(file);
        ASSERT_TRUE(n.is_ok()) << "a half-written KV file: " << n.error_message();
        EXPECT_EQ(*n, int64_t(toks->size()));
        ++restored;
    }
    std::printf(
        "20 kills during KV saves: %d complete files restored, %d kills left a .part file "
        "(killed mid-write), none partial\n",
        restored, mid_write);
}

// A private copy of the model the test can delete, truncate or replace.
fs::path copy_model(const fs::path& from, const test::TempDir& dir) {
    const fs::path to = dir.path() / "model.gguf";
    fs::copy_file(from, to, fs::copy_options::overwrite_existing);
    fs::permissions(to, fs::perms::owner_read | fs::perms::owner_write);
    return to;
}

std::vector<int32_t> reply(const std::shared_ptr<Model>& m, Status* error = nullptr) {
    auto ctx = Context::create(m, {.n_ctx = 128, .n_threads = 1});
    if (!ctx) return {};
    if (Status s = (*ctx)->feed_text(kPrompt); !s) {
        if (error) *error = s;
        return {};
    }
    auto g = (*ctx)->generate(greedy(16));
    if (!g && error) *error = g.status();
    return g ? g->tokens : std::vector<int32_t>{};
}

TEST(FileFaults, ADeletedModelFileKeepsWorking) {
    HEARTH_REQUIRE_SHARED(model, "models/stories260K.gguf");
    test::TempDir dir;
    const fs::path path = copy_model(model, dir);
    auto m = Model::load(path);
    ASSERT_TRUE(m.is_ok());
    const auto before = reply(*m);
    ASSERT_EQ(before.size(), 16u);
    fs::remove(path);
    EXPECT_EQ(reply(*m), before);
}

TEST(FileFaults, ATruncatedModelFileIsAnErrorNotSigbus) {
    HEARTH_REQUIRE_SHARED(model, "models/stories260K.gguf");
    test::TempDir dir;
    const fs::path path = copy_model(model, dir);
    auto m = Model::load(path);
    ASSERT_TRUE(m.is_ok());
    ASSERT_EQ(reply(*m).size(), 16u);
    fs::resize_file(path, fs::file_size(path) / 2);
    Status error;
    EXPECT_TRUE(reply(*m, &error).empty());
    EXPECT_NE(error.message().find("truncated on disk"), std::string::npos) << error.message();
    // Sessions check too.
    auto store = KvStore::create(*m, {.n_ctx = 128});
    ASSERT_TRUE(store.is_ok());
    auto s = Session::create(*store, {.n_threads = 1});
    ASSERT_TRUE(s.is_ok());
    auto p = (*s)->prefill(std::vector<int32_t>{1, 2, 3});
    ASSERT_FALSE(p.is_ok());
    EXPECT_NE(p.error_message().find("truncated on disk"), std::string::npos);
}

TEST(FileFaults, AReplacedModelFileInvalidatesTheInt4AndKvCaches) {
    HEARTH_REQUIRE_SHARED(model, "models/stories260K.gguf");
    test::TempDir dir;
    const fs::path path = copy_model(model, dir);
    const auto key_before = model::ConversionCache::key_for(path, {});
    ASSERT_TRUE(key_before.is_ok());
    auto m = Model::load(path);
    ASSERT_TRUE(m.is_ok());
    auto store = KvStore::create(*m, {.n_ctx = 128});
    ASSERT_TRUE(store.is_ok());
    auto s = Session::create(*store, {.n_threads = 1});
    ASSERT_TRUE(s.is_ok());
    auto toks = (*m)->tokenize(kPrompt, true, false);
    ASSERT_TRUE(toks.is_ok());
    ASSERT_TRUE((*s)->prefill(*toks).is_ok());
    const fs::path kv = dir.path() / "chat.hkv";
    ASSERT_TRUE((*s)->save(kv).is_ok());

    // Another file of the same size and modification time at the same path (one weight
    // changed in the middle), put there by a rename as a download or copy tool would.
    const auto mtime = fs::last_write_time(path);
    std::string bytes = test::read_file(path);
    bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 0x01);
    const fs::path next = dir.path() / "model.gguf.new";
    std::ofstream(next, std::ios::binary) << bytes;
    fs::last_write_time(next, mtime);
    fs::rename(next, path);

    const auto key_after = model::ConversionCache::key_for(path, {});
    ASSERT_TRUE(key_after.is_ok());
    EXPECT_NE(*key_before, *key_after) << "the INT4 cache would reuse the old conversion";
    auto m2 = Model::load(path);
    ASSERT_TRUE(m2.is_ok());
    auto store2 = KvStore::create(*m2, {.n_ctx = 128});
    ASSERT_TRUE(store2.is_ok());
    auto s2 = Session::create(*store2, {.n_threads = 1});
    ASSERT_TRUE(s2.is_ok());
    auto r = (*s2)->restore(kv);
    ASSERT_FALSE(r.is_ok());
    EXPECT_NE(r.error_message().find("another model file"), std::string::npos) << r.error_message();
    // The model loaded before the replacement still works on the old inode.
    EXPECT_EQ(reply(*m).size(), 16u);
}

}  // namespace
}  // namespace hearth
