// hearth::KvStore: the paged KV cache of one model, shared by sessions.
#include "runtime/kv_store_impl.h"

#include "hearth/engine.h"

namespace hearth {

KvStore::KvStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
KvStore::~KvStore() = default;

Result<std::shared_ptr<KvStore>> KvStore::create(std::shared_ptr<const Model> model,
                                                 const KvStoreOptions& opt) try {
    using R = Result<std::shared_ptr<KvStore>>;
    if (!model) return R::error("no model");
    const Model::Impl& m = *model->impl_;
    // 0: the model's training context; longer: clamped to it unless the model allows more.
    const int64_t n_ctx =
        resolve_context_length(opt.n_ctx, m.params.n_ctx_train, m.info.ctx_beyond_training).n_ctx;
    if (n_ctx > (int64_t(1) << 20)) return R::error("context length too large");
    kv::KvLayout layout;
    layout.n_layer = m.params.n_layer;
    layout.kv_width = m.params.kv_width();
    layout.type = quant::element_type(opt.kv_type);
    layout.block_size = Impl::kBlockSize;
    const uint64_t budget =
        opt.budget_bytes > 0 ? opt.budget_bytes
                             : layout.block_bytes() *
                                   uint64_t((n_ctx + Impl::kBlockSize - 1) / Impl::kBlockSize) * 2;
    auto cache =
        kv::PagedKvCache::create(*m.device, layout, budget, n_ctx, m.identity, m.layer_devices);
    if (!cache) return cache.status();
    auto impl = std::make_unique<Impl>();
    impl->model = std::move(model);
    impl->cache = std::move(cache.value());
    impl->n_ctx = n_ctx;
    impl->kv_type = opt.kv_type;
    return std::shared_ptr<KvStore>(new KvStore(std::move(impl)));
} catch (...) {
    return exception_status("creating the KV cache");
}

int64_t KvStore::n_ctx() const {
    return impl_->n_ctx;
}
KvType KvStore::kv_type() const {
    return impl_->kv_type;
}
Status KvStore::check() const {
    return impl_->cache->check();
}

const std::string& KvStore::model_identity() const {
    return impl_->cache->model_identity();
}

KvStoreStats KvStore::stats() const {
    const kv::KvCacheStats s = impl_->cache->stats();
    KvStoreStats out;
    out.n_blocks = s.n_blocks;
    out.n_free = s.n_free;
    out.n_cached = s.n_cached;
    out.evictions = s.evictions;
    out.prefix_hit_blocks = s.prefix_hit_blocks;
    out.cow_copies = s.cow_copies;
    out.partial_hits = s.partial_hits;
    out.bytes = impl_->cache->memory().bytes();
    out.block_bytes = impl_->cache->layout().block_bytes();
    return out;
}

}  // namespace hearth
