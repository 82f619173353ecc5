// Chained prefix hashes: a block's hash covers its parent's hash and its own tokens, so equal
// hashes mean (up to a 64-bit collision, which BlockPool::lookup rules out by comparing the
// tokens and parent) the same whole token history. The root mixes in the model identity and
// the KV type, so a cache never hands out blocks computed by another model or format.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace hearth::kv {

uint64_t root_hash(std::string_view model_identity, uint32_t kv_type);
uint64_t block_hash(uint64_t parent_hash, std::span<const int32_t> tokens);
// FNV-1a over bytes, continuing from h (file checksums, identities).
uint64_t fnv1a(std::span<const std::byte> bytes, uint64_t h = 0xcbf29ce484222325ull);

}  // namespace hearth::kv
