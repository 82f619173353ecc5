// Host-side view of a KvIndex for host backends: resolves (sequence, position) to a cache
// cell after checking every index a graph will touch, so the kernels can trust them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hearth/backend/graph.h"
#include "hearth/result.h"

namespace hearth::backend {

class KvLookup {
public:
    // Checks that every token's sequence, position and the blocks 0..position/block_size of
    // its sequence are valid for a cache of n_cells cells.
    static Result<KvLookup> make(const KvIndex& kv, int32_t block_size, int64_t n_cells);

    int64_t n_tokens() const { return n_tokens_; }
    int32_t position(int64_t t) const { return pos_[t]; }
    int64_t seq(int64_t t) const { return seq_ ? seq_[t] : 0; }
    int64_t cell(int64_t s, int64_t p) const {
        const auto* row = reinterpret_cast<const int32_t*>(bt_ + static_cast<size_t>(s) * bt_nb1_);
        return static_cast<int64_t>(row[p / bs_]) * bs_ + p % bs_;
    }
    // cell(s, p), and in run how many positions from p on (p's own included) stay in p's
    // block: their cells follow p's one by one, so a walk over cells looks up (and divides)
    // once per block.
    int64_t cell_run(int64_t s, int64_t p, int64_t& run) const {
        const auto* row = reinterpret_cast<const int32_t*>(bt_ + static_cast<size_t>(s) * bt_nb1_);
        const int64_t off = p % bs_;
        run = bs_ - off;
        return static_cast<int64_t>(row[p / bs_]) * bs_ + off;
    }

private:
    const int32_t* pos_ = nullptr;
    const int32_t* seq_ = nullptr;
    const std::byte* bt_ = nullptr;
    size_t bt_nb1_ = 0;
    int64_t n_tokens_ = 0;
    int32_t bs_ = 1;
};

}  // namespace hearth::backend
