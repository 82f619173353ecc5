// Saving and restoring one sequence of a paged KV cache: the model identity, KV type and
// layout, the token ids and the K/V bytes of every block, with a checksum over the whole file.
// A file for another model, another KV type or layout, or a damaged file is refused with a
// message and leaves the sequence empty, so the caller recomputes instead.
//
// Format (little-endian): "HKVS" u32 version=1 | u32 len, identity bytes | u32 kv type |
// u32 block size | u64 n_layer | u64 kv_width | u64 n_tokens, i32 tokens[n] | u64 n_blocks,
// block bytes[n_blocks] (KvMemory::read_block order) | u64 FNV-1a of everything before.
#pragma once

#include <cstdint>
#include <filesystem>

#include "hearth/result.h"
#include "kv/paged_kv_cache.h"

namespace hearth::kv {

Status save_sequence(const std::filesystem::path& path, PagedKvCache& cache,
                     PagedKvCache::SeqId seq);
// The sequence must be empty. Returns the number of tokens restored. A file with more tokens
// than max_tokens (> 0) or than the whole cache holds is refused before anything is allocated.
Result<int64_t> restore_sequence(const std::filesystem::path& path, PagedKvCache& cache,
                                 PagedKvCache::SeqId seq, int64_t max_tokens = 0);

}  // namespace hearth::kv
