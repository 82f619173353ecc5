#include "core/kv_lookup.h"

#include <string>

#include "hearth/backend/buffer.h"

namespace hearth::backend {

Result<KvLookup> KvLookup::make(const KvIndex& kv, int32_t block_size, int64_t n_cells) {
    KvLookup l;
    if (!kv.positions.buffer->host_data() || !kv.block_table.buffer->host_data() ||
        (kv.seq_ids.valid() && !kv.seq_ids.buffer->host_data()))
        return Result<KvLookup>::error("KV index tensors are not in host memory");
    l.pos_ =
        reinterpret_cast<const int32_t*>(kv.positions.buffer->host_data() + kv.positions.offset);
    if (kv.seq_ids.valid())
        l.seq_ =
            reinterpret_cast<const int32_t*>(kv.seq_ids.buffer->host_data() + kv.seq_ids.offset);
    l.bt_ = kv.block_table.buffer->host_data() + kv.block_table.offset;
    l.bt_nb1_ = kv.block_table.nb[1];
    l.n_tokens_ = kv.positions.ne[0];
    l.bs_ = block_size;
    const int64_t n_blocks = kv.block_table.ne[0];
    const int64_t n_seq = kv.block_table.ne[1];
    const int64_t cells_per_block = block_size;
    for (int64_t t = 0; t < l.n_tokens_; ++t) {
        const int64_t s = l.seq(t);
        const int64_t p = l.pos_[t];
        if (s < 0 || s >= n_seq)
            return Result<KvLookup>::error("token " + std::to_string(t) + ": bad sequence id");
        if (p < 0 || p / block_size >= n_blocks)
            return Result<KvLookup>::error("token " + std::to_string(t) + ": position " +
                                           std::to_string(p) + " outside the block table");
        const auto* row =
            reinterpret_cast<const int32_t*>(l.bt_ + static_cast<size_t>(s) * l.bt_nb1_);
        for (int64_t j = 0; j <= p / block_size; ++j) {
            const int64_t b = row[j];
            if (b < 0 || (b + 1) * cells_per_block > n_cells)
                return Result<KvLookup>::error("block table entry " + std::to_string(j) +
                                               " outside the cache");
        }
    }
    return l;
}

}  // namespace hearth::backend
