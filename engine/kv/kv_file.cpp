#include "kv/kv_file.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <vector>

#include "kv/prefix_hash.h"

namespace hearth::kv {

namespace {

constexpr char kMagic[4] = {'H', 'K', 'V', 'S'};
constexpr uint32_t kVersion = 1;

class Writer {
public:
    explicit Writer(const std::filesystem::path& p) : out_(p, std::ios::binary | std::ios::trunc) {}
    bool ok() const { return bool(out_); }
    void bytes(std::span<const std::byte> b) {
        hash_ = fnv1a(b, hash_);
        out_.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
    }
    template <class T>
    void pod(const T& v) {
        bytes(std::as_bytes(std::span(&v, 1)));
    }
    void finish() {
        const uint64_t h = hash_;
        out_.write(reinterpret_cast<const char*>(&h), sizeof h);
        out_.flush();
    }

private:
    std::ofstream out_;
    uint64_t hash_ = 0xcbf29ce484222325ull;
};

class Reader {
public:
    explicit Reader(std::span<const std::byte> b) : b_(b) {}
    bool take(std::span<std::byte> out) {
        if (out.size() > b_.size() - at_) return false;
        std::memcpy(out.data(), b_.data() + at_, out.size());
        at_ += out.size();
        return true;
    }
    template <class T>
    bool pod(T& v) {
        return take(std::as_writable_bytes(std::span(&v, 1)));
    }
    std::span<const std::byte> view(size_t n) {
        if (n > b_.size() - at_) return {};
        auto s = b_.subspan(at_, n);
        at_ += n;
        return s;
    }
    size_t left() const { return b_.size() - at_; }

private:
    std::span<const std::byte> b_;
    size_t at_ = 0;
};

}  // namespace

namespace {

Status save_unguarded(const std::filesystem::path& path, PagedKvCache& cache,
                      PagedKvCache::SeqId seq) {
    const KvLayout& l = cache.layout();
    const auto toks = cache.tokens(seq);
    const auto table = cache.block_table(seq);
    const size_t n_blocks = (toks.size() + size_t(l.block_size) - 1) / size_t(l.block_size);
    const std::filesystem::path tmp = path.string() + ".part";
    {
        Writer w(tmp);
        if (!w.ok()) return Status::error("cannot write " + tmp.string());
        w.bytes(std::as_bytes(std::span(kMagic)));
        w.pod(kVersion);
        const std::string& id = cache.model_identity();
        w.pod(static_cast<uint32_t>(id.size()));
        w.bytes(std::as_bytes(std::span(id.data(), id.size())));
        w.pod(static_cast<uint32_t>(l.type));
        w.pod(static_cast<uint32_t>(l.block_size));
        w.pod(static_cast<uint64_t>(l.n_layer));
        w.pod(static_cast<uint64_t>(l.kv_width));
        w.pod(static_cast<uint64_t>(toks.size()));
        w.bytes(std::as_bytes(toks));
        w.pod(static_cast<uint64_t>(n_blocks));
        std::vector<std::byte> buf(l.block_bytes());
        for (size_t i = 0; i < n_blocks; ++i) {
            if (Status s = cache.memory().read_block(table[i], buf); !s) return s;
            w.bytes(buf);
        }
        w.finish();
        if (!w.ok()) return Status::error("writing " + tmp.string() + " failed");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);  // a crash mid-write never leaves a half file
    if (ec) return Status::error("cannot rename " + tmp.string() + ": " + ec.message());
    return Status::ok();
}

constexpr uint32_t kMaxIdentity = 4096;  // identities are ~40 bytes ("gguf:<size>:<hash>")

Result<int64_t> restore_unguarded(const std::filesystem::path& path, PagedKvCache& cache,
                                  PagedKvCache::SeqId seq, int64_t max_tokens) {
    using R = Result<int64_t>;
    if (!cache.tokens(seq).empty()) return R::error("restore needs an empty sequence");
    std::ifstream in(path, std::ios::binary);
    if (!in) return R::error("cannot open " + path.string());
    in.seekg(0, std::ios::end);
    const auto size = static_cast<std::streamoff>(in.tellg());
    if (size < 0) return R::error("cannot read " + path.string());
    in.seekg(0);
    // The largest file this cache could restore: anything bigger (a sparse 64 GiB file, a
    // header claiming billions of tokens) is refused from its size and header alone, before
    // anything is read or allocated.
    const KvLayout& l = cache.layout();
    const uint64_t bs = uint64_t(std::max(l.block_size, 1));
    const uint64_t capacity = uint64_t(cache.stats().n_blocks) * bs;
    const uint64_t limit = max_tokens > 0 ? std::min(capacity, uint64_t(max_tokens)) : capacity;
    const uint64_t header_bytes = 12 + uint64_t(cache.model_identity().size()) + 4 + 4 + 8 + 8 + 8;
    const uint64_t most =
        header_bytes + 4 * limit + 8 + (limit + bs - 1) / bs * l.block_bytes() + 8;
    if (uint64_t(size) > most) {
        // Say "too long" when the header says so (the file's own identity length locates it).
        std::array<std::byte, 12> head{};
        uint32_t id_len = 0;
        uint64_t n_tokens = 0;
        if (in.read(reinterpret_cast<char*>(head.data()), std::streamsize(head.size()))) {
            std::memcpy(&id_len, head.data() + 8, 4);
            in.seekg(std::streamoff(12 + uint64_t(id_len) + 24));
            if (id_len <= kMaxIdentity && in.read(reinterpret_cast<char*>(&n_tokens), 8) &&
                n_tokens > limit)
                return R::error("the saved chat (" + std::to_string(n_tokens) +
                                " tokens) is longer than this context (" + std::to_string(limit) +
                                " tokens)");
        }
        return R::error("KV file is damaged (" + std::to_string(size) +
                        " bytes, more than this cache can hold: " + std::to_string(most) + ")");
    }
    std::vector<std::byte> data(static_cast<size_t>(size));
    if (!in.read(reinterpret_cast<char*>(data.data()), size))
        return R::error("cannot read " + path.string());
    if (data.size() < 8 + sizeof(uint64_t)) return R::error("KV file is truncated");
    uint64_t stored = 0;
    std::memcpy(&stored, data.data() + data.size() - 8, 8);
    const auto body = std::span<const std::byte>(data).first(data.size() - 8);
    if (fnv1a(body) != stored) return R::error("KV file is damaged (checksum mismatch)");
    Reader r(body);
    char magic[4];
    uint32_t version = 0, id_len = 0, type = 0, block = 0;
    if (!r.take(std::as_writable_bytes(std::span(magic))) || std::memcmp(magic, kMagic, 4) != 0)
        return R::error("not a Hearth KV file");
    if (!r.pod(version) || version != kVersion) return R::error("unsupported KV file version");
    if (!r.pod(id_len) || id_len > r.left()) return R::error("KV file is damaged");
    const auto id = r.view(id_len);
    if (std::string_view(reinterpret_cast<const char*>(id.data()), id.size()) !=
        cache.model_identity())
        return R::error("the KV file was made with another model file");
    uint64_t n_layer = 0, width = 0, n_tokens = 0, n_blocks = 0;
    if (!r.pod(type) || !r.pod(block) || !r.pod(n_layer) || !r.pod(width))
        return R::error("KV file is damaged");
    if (type != static_cast<uint32_t>(l.type))
        return R::error("the KV file holds another KV cache type");
    if (block != uint32_t(l.block_size) || n_layer != uint64_t(l.n_layer) ||
        width != uint64_t(l.kv_width))
        return R::error("the KV file has another cache layout");
    if (!r.pod(n_tokens) || n_tokens > r.left() / 4) return R::error("KV file is damaged");
    if (n_tokens > limit)
        return R::error("the saved chat (" + std::to_string(n_tokens) +
                        " tokens) is longer than this context (" + std::to_string(limit) +
                        " tokens)");
    std::vector<int32_t> toks(n_tokens);
    r.take(std::as_writable_bytes(std::span(toks)));
    const uint64_t want_blocks = (n_tokens + bs - 1) / bs;
    if (!r.pod(n_blocks) || n_blocks != want_blocks || r.left() != n_blocks * l.block_bytes())
        return R::error("KV file is damaged (block count)");
    for (uint64_t i = 0; i < n_blocks; ++i) {
        Status s = cache.append_block(seq, r.view(l.block_bytes()));
        if (s) {
            const size_t first = size_t(i) * bs;
            const size_t n = std::min<size_t>(bs, toks.size() - first);
            cache.commit(seq, std::span(toks).subspan(first, n));
        } else {
            cache.truncate(seq, 0);
            return s;
        }
    }
    return static_cast<int64_t>(n_tokens);
}

}  // namespace

Result<int64_t> restore_sequence(const std::filesystem::path& path, PagedKvCache& cache,
                                 PagedKvCache::SeqId seq, int64_t max_tokens) {
    const bool was_empty = cache.tokens(seq).empty();
    auto r = guarded("KV file " + path.string(), [&]() -> Result<int64_t> {
        return restore_unguarded(path, cache, seq, max_tokens);
    });
    if (!r && was_empty) cache.truncate(seq, 0);
    return r;
}

Status save_sequence(const std::filesystem::path& path, PagedKvCache& cache,
                     PagedKvCache::SeqId seq) {
    return guarded("saving KV file " + path.string(),
                   [&]() -> Status { return save_unguarded(path, cache, seq); });
}

}  // namespace hearth::kv
