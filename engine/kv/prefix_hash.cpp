#include "kv/prefix_hash.h"

namespace hearth::kv {

namespace {
// splitmix64's finaliser: a cheap, well-mixed step per 64-bit word.
uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
}  // namespace

uint64_t fnv1a(std::span<const std::byte> bytes, uint64_t h) {
    // A plain indexed loop: instrumented builds (ASan, fuzzing) did not inline the span
    // iterator's comparison, which made hashing a model's first MiB a third of a fuzz run.
    const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
    for (size_t i = 0, n = bytes.size(); i < n; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

uint64_t root_hash(std::string_view model_identity, uint32_t kv_type) {
    const uint64_t h =
        fnv1a(std::as_bytes(std::span(model_identity.data(), model_identity.size())));
    return mix(h ^ mix(kv_type));
}

uint64_t block_hash(uint64_t parent_hash, std::span<const int32_t> tokens) {
    uint64_t h = mix(parent_hash);
    for (int32_t t : tokens) h = mix(h ^ static_cast<uint32_t>(t));
    return h;
}

}  // namespace hearth::kv
