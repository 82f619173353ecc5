// Files that claim more than memory can hold: sparse GGUF files of 8 and 64 GiB whose headers
// ask for as many metadata keys, tensors or vocabulary strings as the file could hold, and KV
// files of 64 GiB. Each must give one clear error (library, Model::load, `hearth-cli inspect`)
// rather than std::bad_alloc and abort. Sparse files cost no disk; the test skips where the
// file system refuses them.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"
#include "hearth/engine.h"
#include "hearth/session.h"
#include "test_data.h"
#include "tokenizer/tokenizer.h"

namespace hearth {
namespace {

constexpr uint64_t kGiB = uint64_t(1) << 30;

void put_u32(std::vector<char>& b, uint32_t v) {
    b.insert(b.end(), reinterpret_cast<char*>(&v), reinterpret_cast<char*>(&v) + 4);
}
void put_u64(std::vector<char>& b, uint64_t v) {
    b.insert(b.end(), reinterpret_cast<char*>(&v), reinterpret_cast<char*>(&v) + 8);
}
void put_str(std::vector<char>& b, const std::string& s) {
    put_u64(b, s.size());
    b.insert(b.end(), s.begin(), s.end());
}
std::vector<char> gguf_header(uint64_t n_tensors, uint64_t n_kv) {
    std::vector<char> b;
    put_u32(b, 0x46554747);
    put_u32(b, 3);
    put_u64(b, n_tensors);
    put_u64(b, n_kv);
    return b;
}

// Writes `head` and extends the file to `size` bytes with a hole. False when the file system
// refuses (no sparse files, or a file-size limit).
bool make_sparse(const std::filesystem::path& p, const std::vector<char>& head, uint64_t size) {
    const int fd = ::open(p.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    bool ok = ::write(fd, head.data(), head.size()) == ssize_t(head.size()) &&
              ::ftruncate(fd, off_t(size)) == 0;
    ok = ::close(fd) == 0 && ok;
    return ok;
}

#define SPARSE_OR_SKIP(path, head, size)                                                  \
    if (!make_sparse(path, head, size))                                                   \
        GTEST_SKIP() << "this file system cannot hold a sparse file of " << (size) / kGiB \
                     << " GiB: " << std::strerror(errno);

struct Cases {
    test::TempDir dir;
    std::filesystem::path keys8 = dir.path() / "keys-8g.gguf";
    std::filesystem::path keys64 = dir.path() / "keys-64g.gguf";
};

TEST(BadInput, SparseGgufClaimingAsManyKeysAsTheFileCouldHold) {
    Cases c;
    const uint64_t size = 8 * kGiB;
    SPARSE_OR_SKIP(c.keys8, gguf_header(0, (size - 24) / 14), size);
    auto f = gguf::GgufFile::open(c.keys8);
    ASSERT_FALSE(f.is_ok());
    EXPECT_NE(f.error_message().find("metadata count"), std::string::npos) << f.error_message();
    EXPECT_NE(f.error_message().find("implausibly large"), std::string::npos);

    auto m = Model::load(c.keys8);
    ASSERT_FALSE(m.is_ok());
    EXPECT_NE(m.error_message().find("metadata count"), std::string::npos) << m.error_message();
}

TEST(BadInput, Sparse64GiBGgufClaiming2To31Keys) {
    Cases c;
    SPARSE_OR_SKIP(c.keys64, gguf_header(0, uint64_t(1) << 31), 64 * kGiB);
    auto m = Model::load(c.keys64);
    ASSERT_FALSE(m.is_ok());
    EXPECT_NE(m.error_message().find("metadata count 2147483648"), std::string::npos)
        << m.error_message();
}

TEST(BadInput, SparseGgufClaimingHugeTensorCount) {
    Cases c;
    const uint64_t size = 8 * kGiB;
    SPARSE_OR_SKIP(c.keys8, gguf_header((size - 24) / 25, 0), size);
    auto f = gguf::GgufFile::open(c.keys8);
    ASSERT_FALSE(f.is_ok());
    EXPECT_NE(f.error_message().find("tensor count"), std::string::npos) << f.error_message();
}

TEST(BadInput, SparseGgufWithAVocabularyAsLongAsTheFile) {
    Cases c;
    const uint64_t size = 8 * kGiB;
    auto head = gguf_header(0, 1);
    put_str(head, "tokenizer.ggml.tokens");
    put_u32(head, 9);                             // array
    put_u32(head, 8);                             // of strings
    put_u64(head, (size - head.size() - 8) / 8);  // each an empty string in the hole
    SPARSE_OR_SKIP(c.keys8, head, size);
    auto f = gguf::GgufFile::open(c.keys8);
    ASSERT_FALSE(f.is_ok());
    EXPECT_NE(f.error_message().find("is too long"), std::string::npos) << f.error_message();
}

// The vocabulary cap in the tokenizer: a file whose string array is within the reader's limit
// but far beyond any real vocabulary is refused before the tokenizer builds it.
TEST(BadInput, SparseGgufWithSixteenMillionTokensIsRefusedByTheTokenizer) {
    Cases c;
    auto head = gguf_header(0, 2);
    put_str(head, "tokenizer.ggml.model");
    put_u32(head, 8);
    put_str(head, "llama");
    put_str(head, "tokenizer.ggml.tokens");
    put_u32(head, 9);
    put_u32(head, 8);
    const uint64_t n = uint64_t(1) << 24;
    put_u64(head, n);
    SPARSE_OR_SKIP(c.keys8, head, head.size() + n * 8 + 4096);
    auto f = gguf::GgufFile::open(c.keys8);
    ASSERT_TRUE(f.is_ok()) << f.error_message();
    auto t = tokenizer::Tokenizer::from_gguf(**f);
    ASSERT_FALSE(t.is_ok());
    EXPECT_NE(t.error_message().find("16777216 entries"), std::string::npos) << t.error_message();
}

#ifdef HEARTH_CLI
// What a person sees: one line naming the problem and exit status 1 (not 134 from abort).
TEST(BadInput, CliInspectPrintsOneLineForTheSparseFiles) {
    Cases c;
    SPARSE_OR_SKIP(c.keys8, gguf_header(0, (8 * kGiB - 24) / 14), 8 * kGiB);
    SPARSE_OR_SKIP(c.keys64, gguf_header(0, uint64_t(1) << 31), 64 * kGiB);
    for (const auto& p : {c.keys8, c.keys64}) {
        const std::string cmd = std::string(HEARTH_CLI) + " inspect '" + p.string() + "' 2>&1";
        FILE* pipe = ::popen(cmd.c_str(), "r");
        ASSERT_NE(pipe, nullptr);
        std::string out;
        std::array<char, 512> buf{};
        while (size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
        const int status = ::pclose(pipe);
        ASSERT_TRUE(WIFEXITED(status)) << out;
        EXPECT_EQ(WEXITSTATUS(status), 1) << out;
        EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
        EXPECT_NE(out.find("metadata count"), std::string::npos) << out;
    }
}
#endif

TEST(BadInput, ResultFromASuccessStatusIsAnErrorInEveryBuild) {
    Result<int> r{Status::ok()};
    EXPECT_FALSE(r.is_ok());
    EXPECT_NE(r.error_message().find("internal error"), std::string::npos);
}

TEST(BadInput, GuardedTurnsExceptionsIntoErrors) {
    auto oom = guarded("loading", []() -> Result<int> { throw std::bad_alloc(); });
    ASSERT_FALSE(oom.is_ok());
    EXPECT_EQ(oom.error_message(), "loading: out of memory");
    auto len = guarded("x", []() -> Status { return Status::error(std::string().substr(1)); });
    EXPECT_NE(len.message().find("x: internal error"), std::string::npos) << len.message();
    auto fine = guarded("x", []() -> Result<int> { return 7; });
    ASSERT_TRUE(fine.is_ok());
    EXPECT_EQ(*fine, 7);
}

// A KV file of 64 GiB (a hole after a real header): refused from its header, before anything
// is read or allocated, whether it claims too many tokens or a size that does not match.
TEST(BadInput, SparseKvFilesAreRefusedFromTheirHeader) {
    HEARTH_REQUIRE_SHARED(model_path, "models/stories260K.gguf");
    auto model = Model::load(model_path);
    ASSERT_TRUE(model.is_ok());
    auto store = KvStore::create(*model, {.n_ctx = 256});
    ASSERT_TRUE(store.is_ok()) << store.error_message();
    auto session = Session::create(*store, {.n_threads = 1});
    ASSERT_TRUE(session.is_ok());
    test::TempDir dir;
    const auto good = dir.path() / "good.hkv";
    auto toks = (*model)->tokenize("Once upon a time", true, false);
    ASSERT_TRUE(toks.is_ok());
    ASSERT_TRUE((*session)->prefill(*toks).is_ok());
    ASSERT_TRUE((*session)->save(good).is_ok());
    const std::string bytes = test::read_file(good);
    // The header: magic, version, identity, type, block size, n_layer, width, n_tokens.
    uint32_t id_len = 0;
    std::memcpy(&id_len, bytes.data() + 8, 4);
    const size_t n_tokens_at = 12 + id_len + 4 + 4 + 8 + 8;
    auto with_tokens = [&](uint64_t n) {
        std::vector<char> head(bytes.begin(), bytes.begin() + long(n_tokens_at) + 8);
        std::memcpy(head.data() + n_tokens_at, &n, 8);
        return head;
    };
    const auto huge = dir.path() / "huge.hkv";
    SPARSE_OR_SKIP(huge, with_tokens(uint64_t(1) << 33), 64 * kGiB);
    auto r = (*session)->restore(huge);
    ASSERT_FALSE(r.is_ok());
    EXPECT_NE(r.error_message().find("longer than this context"), std::string::npos)
        << r.error_message();
    SPARSE_OR_SKIP(huge, with_tokens(100), 64 * kGiB);
    r = (*session)->restore(huge);
    ASSERT_FALSE(r.is_ok());
    EXPECT_NE(r.error_message().find("damaged"), std::string::npos) << r.error_message();
    // The good file still restores.
    r = (*session)->restore(good);
    ASSERT_TRUE(r.is_ok()) << r.error_message();
    EXPECT_EQ(*r, int64_t(toks->size()));
}

}  // namespace
}  // namespace hearth
