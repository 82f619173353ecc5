#include "runtime/kv_cache.h"

#include <algorithm>
#include <string>

namespace hearth::runtime {

Result<std::unique_ptr<KvCache>> KvCache::create(backend::Device& device, const ModelConfig& p,
                                                 int64_t n_ctx, backend::DType type,
                                                 std::span<backend::Device* const> layer_devices) {
    using R = Result<std::unique_ptr<KvCache>>;
    if (!backend::is_kv_dtype(type))
        return R::error("KV cache type must be f32, f16, q8_0 or q4_0");
    if (p.kv_width() % static_cast<int64_t>(backend::dtype_block_size(type)) != 0)
        return R::error("this model's KV width is not a multiple of the KV type's block size");
    if (n_ctx <= 0 || n_ctx > (int64_t(1) << 24)) return R::error("bad context length");
    std::unique_ptr<KvCache> c(new KvCache());
    c->n_ctx_ = n_ctx;
    c->type_ = type;
    const int64_t n_blocks = (n_ctx + kBlockSize - 1) / kBlockSize;
    const int64_t cells = n_blocks * kBlockSize;
    const size_t per = backend::dtype_row_bytes(type, static_cast<size_t>(p.kv_width())) *
                       static_cast<size_t>(cells);
    if (!layer_devices.empty() && static_cast<int64_t>(layer_devices.size()) != p.n_layer)
        return R::error("a device for each layer is needed");
    for (int64_t l = 0; l < p.n_layer; ++l) {
        backend::Device* d = layer_devices.empty() ? &device : layer_devices[size_t(l)];
        if (!d) d = &device;
        auto buf = d->allocate(per * 2);
        if (!buf)
            return R::error("cannot allocate the KV cache (" +
                            std::to_string(per * 2 * static_cast<size_t>(p.n_layer) >> 20) +
                            " MiB) on " + d->name() + ": " + buf.error_message());
        c->buffers_.push_back(std::move(buf.value()));
        backend::Buffer* b = c->buffers_.back().get();
        c->k_.push_back(backend::Tensor::dense(b, 0, type, {p.kv_width(), cells}));
        c->v_.push_back(backend::Tensor::dense(b, per, type, {p.kv_width(), cells}));
    }
    c->block_table_.resize(static_cast<size_t>(n_blocks));
    for (int64_t i = 0; i < n_blocks; ++i)
        c->block_table_[static_cast<size_t>(i)] = static_cast<int32_t>(i);
    return c;
}

void KvCache::prepare(int64_t end) {
    if (end <= prepared_ || k_.empty()) return;
    const int64_t cells = k_[0].ne[1];
    const int64_t to = std::min(cells, (end + kPrepareCells - 1) / kPrepareCells * kPrepareCells);
    if (to <= prepared_) return;
    for (size_t l = 0; l < k_.size(); ++l)
        for (const backend::Tensor* t : {&k_[l], &v_[l]})
            t->buffer->prepare_write(t->offset + static_cast<size_t>(prepared_) * t->nb[1],
                                     static_cast<size_t>(to - prepared_) * t->nb[1]);
    prepared_ = to;
}

}  // namespace hearth::runtime
