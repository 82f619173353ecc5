// A contiguous KV cache for one sequence: per layer a K and a V tensor of [kv_width, cells] in
// one buffer per layer, on the device that runs the layer. Attention already addresses cells
// through a block table (here the identity), so the paged cache of engine/kv replaces this class
// without touching the ops.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "hearth/backend/device.h"
#include "hearth/result.h"
#include "runtime/config_support.h"

namespace hearth::runtime {

class KvCache {
public:
    static constexpr int32_t kBlockSize = 16;

    // n_ctx positions of any KV type (F32, F16, Q8_0, Q4_0).
    static Result<std::unique_ptr<KvCache>> create(
        backend::Device& device, const ModelConfig& params, int64_t n_ctx, backend::DType type,
        std::span<backend::Device* const> layer_devices = {});

    int64_t n_ctx() const { return n_ctx_; }
    backend::DType type() const { return type_; }
    const backend::Tensor& k(int64_t layer) const { return k_[static_cast<size_t>(layer)]; }
    const backend::Tensor& v(int64_t layer) const { return v_[static_cast<size_t>(layer)]; }
    std::span<const backend::Tensor> k_all() const { return k_; }
    std::span<const backend::Tensor> v_all() const { return v_; }
    std::span<const int32_t> block_table() const { return block_table_; }
    uint64_t bytes() const {
        uint64_t n = 0;
        for (const auto& b : buffers_) n += b->size();
        return n;
    }

    // Commits the memory of the cells up to `end` (and up to kPrepareCells further) before a
    // step writes them: Buffer::prepare_write, once per cell.
    void prepare(int64_t end);
    static constexpr int64_t kPrepareCells = 128;

    // Positions 0..n_past-1 hold valid entries.
    int64_t n_past() const { return n_past_; }
    void set_n_past(int64_t n) { n_past_ = n; }

private:
    KvCache() = default;
    std::vector<std::unique_ptr<backend::Buffer>> buffers_;  // one per layer
    std::vector<backend::Tensor> k_, v_;
    std::vector<int32_t> block_table_;
    int64_t n_ctx_ = 0;
    int64_t n_past_ = 0;
    int64_t prepared_ = 0;  // cells [0, prepared_) committed
    backend::DType type_ = backend::DType::F16;
};

}  // namespace hearth::runtime
