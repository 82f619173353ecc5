// The device memory of a paged KV cache: per layer a K and a V tensor of [kv_width, cells]
// (cells = n_blocks * block_size) in one buffer per layer, on the device that runs the layer.
// Block b holds cells [b*bs, (b+1)*bs) of every layer. Quantized types store whole rows of
// 32-element blocks. Copy-on-write copies on the device (Buffer::copy_from).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "hearth/backend/device.h"
#include "hearth/result.h"

namespace hearth::kv {

struct KvLayout {
    int64_t n_layer = 0;
    int64_t kv_width = 0;  // n_head_kv * head_dim
    backend::DType type = backend::DType::F16;
    int32_t block_size = 16;

    size_t row_bytes() const;
    // K and V of every layer for one block.
    size_t block_bytes() const;
};

class KvMemory {
public:
    // layer_devices: the device of each layer (n_layer entries; empty: all on `device`).
    static Result<std::unique_ptr<KvMemory>> create(
        backend::Device& device, const KvLayout& layout, int32_t n_blocks,
        std::span<backend::Device* const> layer_devices = {});

    const KvLayout& layout() const { return layout_; }
    int32_t n_blocks() const { return n_blocks_; }
    std::span<const backend::Tensor> k() const { return k_; }
    std::span<const backend::Tensor> v() const { return v_; }
    uint64_t bytes() const;

    // Commits the memory of a block about to be written for the first time, and of the blocks
    // next to it (kPrepareBlocks at a time, each once): Buffer::prepare_write.
    void prepare(int32_t block);
    static constexpr int32_t kPrepareBlocks = 8;

    // Copies the first n_cells cells of block src into block dst, every layer (copy-on-write).
    Status copy_cells(int32_t src, int32_t dst, int32_t n_cells);
    // A block's K/V bytes of every layer, in layer order (K then V): block_bytes() bytes.
    Status read_block(int32_t block, std::span<std::byte> out) const;
    Status write_block(int32_t block, std::span<const std::byte> in);

private:
    KvMemory() = default;
    // Offset inside the layer's buffer.
    size_t offset(bool is_v, int32_t block) const;

    KvLayout layout_;
    int32_t n_blocks_ = 0;
    std::vector<std::unique_ptr<backend::Buffer>> buffers_;  // one per layer
    std::vector<backend::Tensor> k_, v_;
    std::vector<bool> prepared_;  // per run of kPrepareBlocks blocks
};

}  // namespace hearth::kv
