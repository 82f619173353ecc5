// libFuzzer target: KV cache files (engine/kv/kv_file) restored into a small paged cache. Each
// input is tried twice: as given, and with its trailing FNV-1a checksum recomputed so that
// mutations reach the header and block parsing behind the checksum. Nothing may crash, and a
// refused file must leave the sequence empty and the block pool consistent.
//
// HEARTH_KV_FUZZ_WRITE_SEEDS=DIR writes valid files of 0, 1, 5 and 40 tokens to DIR and exits
// (how tests/fuzz/kv_file/seeds was made).
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kv/kv_file.h"
#include "kv/paged_kv_cache.h"
#include "kv/prefix_hash.h"
#include "ref/ref_device.h"

namespace {

using hearth::kv::KvLayout;
using hearth::kv::PagedKvCache;

struct State {
    std::unique_ptr<hearth::backend::Device> device = hearth::backend::make_ref_device();
    std::unique_ptr<PagedKvCache> cache;
    int fd = -1;
    std::string path;
};

State& state() {
    static State* s = [] {
        auto* st = new State();
        const KvLayout layout{2, 32, hearth::backend::DType::F16, 4};
        auto c = PagedKvCache::create(*st->device, layout, layout.block_bytes() * 16, 8,
                                      "gguf:1234:00112233aabbccdd");
        if (!c) {
            std::fprintf(stderr, "fuzz setup: %s\n", c.error_message().c_str());
            std::abort();
        }
        st->cache = std::move(c.value());
        st->fd = ::memfd_create("hearth-kv-fuzz", 0);
        if (st->fd < 0) std::abort();
        st->path = "/proc/self/fd/" + std::to_string(st->fd);
        return st;
    }();
    return *s;
}

void restore_once(const uint8_t* data, size_t size) {
    State& s = state();
    if (::ftruncate(s.fd, 0) != 0 || ::pwrite(s.fd, data, size, 0) != ssize_t(size)) std::abort();
    const auto seq = s.cache->open();
    auto r = s.cache->tokens(seq).empty() ? hearth::kv::restore_sequence(s.path, *s.cache, seq, 64)
                                          : hearth::Result<int64_t>::error("setup");
    if (r) {
        if (*r < 0 || uint64_t(*r) != s.cache->tokens(seq).size()) __builtin_trap();
    } else if (!s.cache->tokens(seq).empty()) {
        __builtin_trap();  // a refused file leaves the sequence empty
    }
    s.cache->close(seq);
    if (!s.cache->check()) __builtin_trap();
}

void write_seeds(const char* dir) {
    State& s = state();
    for (int n : {0, 1, 5, 40}) {
        const auto seq = s.cache->open();
        std::vector<int32_t> toks;
        for (int i = 0; i < n; ++i) toks.push_back(100 + i * 7);
        if (!s.cache->reserve(seq, n)) std::abort();
        s.cache->commit(seq, toks);
        const std::string p = std::string(dir) + "/seed" + std::to_string(n) + ".hkv";
        if (!hearth::kv::save_sequence(p, *s.cache, seq)) std::abort();
        s.cache->close(seq);
    }
    std::exit(0);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    if (const char* dir = std::getenv("HEARTH_KV_FUZZ_WRITE_SEEDS")) write_seeds(dir);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    restore_once(data, size);
    if (size >= 8) {
        std::vector<uint8_t> fixed(data, data + size);
        const uint64_t h = hearth::kv::fnv1a(
            std::span(reinterpret_cast<const std::byte*>(fixed.data()), size - 8));
        std::memcpy(fixed.data() + size - 8, &h, 8);
        restore_once(fixed.data(), fixed.size());
    }
    return 0;
}
