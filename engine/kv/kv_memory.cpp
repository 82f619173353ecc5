#include "kv/kv_memory.h"

#include <algorithm>
#include <string>

namespace hearth::kv {

size_t KvLayout::row_bytes() const {
    return backend::dtype_row_bytes(type, static_cast<size_t>(kv_width));
}

size_t KvLayout::block_bytes() const {
    return row_bytes() * static_cast<size_t>(block_size) * 2 * static_cast<size_t>(n_layer);
}

Result<std::unique_ptr<KvMemory>> KvMemory::create(
    backend::Device& device, const KvLayout& l, int32_t n_blocks,
    std::span<backend::Device* const> layer_devices) {
    using R = Result<std::unique_ptr<KvMemory>>;
    if (!backend::is_kv_dtype(l.type)) return R::error("unsupported KV cache type");
    if (l.kv_width <= 0 || l.n_layer <= 0 || l.block_size <= 0 || n_blocks <= 0)
        return R::error("bad KV cache layout");
    if (l.kv_width % static_cast<int64_t>(backend::dtype_block_size(l.type)) != 0)
        return R::error(std::string("a ") + backend::dtype_name(l.type) +
                        " KV cache needs a KV width that is a multiple of " +
                        std::to_string(backend::dtype_block_size(l.type)) + " (this model has " +
                        std::to_string(l.kv_width) + ")");
    std::unique_ptr<KvMemory> m(new KvMemory());
    m->layout_ = l;
    m->n_blocks_ = n_blocks;
    m->prepared_.assign(static_cast<size_t>((n_blocks + kPrepareBlocks - 1) / kPrepareBlocks),
                        false);
    if (!layer_devices.empty() && static_cast<int64_t>(layer_devices.size()) != l.n_layer)
        return R::error("bad KV cache layout: a device for each layer is needed");
    const size_t per_layer =
        l.block_bytes() / static_cast<size_t>(l.n_layer) * static_cast<size_t>(n_blocks);
    const int64_t cells = int64_t(n_blocks) * l.block_size;
    for (int64_t layer = 0; layer < l.n_layer; ++layer) {
        backend::Device* d = layer_devices.empty() ? &device : layer_devices[size_t(layer)];
        if (!d) d = &device;
        auto buf = d->allocate(per_layer);
        if (!buf)
            return R::error("cannot allocate the KV cache (" +
                            std::to_string(per_layer * size_t(l.n_layer) >> 20) + " MiB) on " +
                            d->name() + ": " + buf.error_message());
        m->buffers_.push_back(std::move(buf.value()));
        backend::Buffer* b = m->buffers_.back().get();
        m->k_.push_back(
            backend::Tensor::dense(b, m->offset(false, 0), l.type, {l.kv_width, cells}));
        m->v_.push_back(backend::Tensor::dense(b, m->offset(true, 0), l.type, {l.kv_width, cells}));
    }
    return m;
}

void KvMemory::prepare(int32_t block) {
    if (block < 0 || block >= n_blocks_) return;
    const auto run = static_cast<size_t>(block / kPrepareBlocks);
    if (prepared_[run]) return;
    prepared_[run] = true;
    const int32_t b0 = static_cast<int32_t>(run) * kPrepareBlocks;
    const int32_t b1 = std::min(n_blocks_, b0 + kPrepareBlocks);
    const size_t bytes = static_cast<size_t>(b1 - b0) * static_cast<size_t>(layout_.block_size) *
                         layout_.row_bytes();
    for (const auto& b : buffers_) {
        b->prepare_write(offset(false, b0), bytes);
        b->prepare_write(offset(true, b0), bytes);
    }
}

uint64_t KvMemory::bytes() const {
    uint64_t n = 0;
    for (const auto& b : buffers_) n += b->size();
    return n;
}

// Layout of a layer's buffer: K of all cells, then V of all cells.
size_t KvMemory::offset(bool is_v, int32_t block) const {
    const size_t plane = layout_.row_bytes() * static_cast<size_t>(n_blocks_) *
                         static_cast<size_t>(layout_.block_size);
    const size_t cell = static_cast<size_t>(block) * static_cast<size_t>(layout_.block_size);
    return plane * (is_v ? 1 : 0) + cell * layout_.row_bytes();
}

Status KvMemory::copy_cells(int32_t src, int32_t dst, int32_t n_cells) {
    if (src < 0 || dst < 0 || src >= n_blocks_ || dst >= n_blocks_ || n_cells < 0 ||
        n_cells > layout_.block_size)
        return Status::error("copy_cells: bad block");
    const size_t n = layout_.row_bytes() * static_cast<size_t>(n_cells);
    for (int64_t layer = 0; layer < layout_.n_layer; ++layer)
        for (bool is_v : {false, true}) {
            backend::Buffer& b = *buffers_[size_t(layer)];
            if (Status s = b.copy_from(offset(is_v, dst), b, offset(is_v, src), n); !s) return s;
        }
    return Status::ok();
}

Status KvMemory::read_block(int32_t block, std::span<std::byte> out) const {
    if (block < 0 || block >= n_blocks_ || out.size() != layout_.block_bytes())
        return Status::error("read_block: bad block or size");
    const size_t n = layout_.row_bytes() * static_cast<size_t>(layout_.block_size);
    size_t at = 0;
    for (int64_t layer = 0; layer < layout_.n_layer; ++layer)
        for (bool is_v : {false, true}) {
            if (Status s = buffers_[size_t(layer)]->read(offset(is_v, block), out.subspan(at, n));
                !s)
                return s;
            at += n;
        }
    return Status::ok();
}

Status KvMemory::write_block(int32_t block, std::span<const std::byte> in) {
    if (block < 0 || block >= n_blocks_ || in.size() != layout_.block_bytes())
        return Status::error("write_block: bad block or size");
    const size_t n = layout_.row_bytes() * static_cast<size_t>(layout_.block_size);
    size_t at = 0;
    for (int64_t layer = 0; layer < layout_.n_layer; ++layer)
        for (bool is_v : {false, true}) {
            if (Status s = buffers_[size_t(layer)]->write(offset(is_v, block), in.subspan(at, n));
                !s)
                return s;
            at += n;
        }
    return Status::ok();
}

}  // namespace hearth::kv
