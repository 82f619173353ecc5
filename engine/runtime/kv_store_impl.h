// What a KvStore holds (internal to the engine).
#pragma once

#include <memory>

#include "hearth/session.h"
#include "kv/paged_kv_cache.h"
#include "model_impl.h"

namespace hearth {

struct KvStore::Impl {
    static constexpr int32_t kBlockSize = 16;
    std::shared_ptr<const Model> model;
    std::unique_ptr<kv::PagedKvCache> cache;
    int64_t n_ctx = 0;
    KvType kv_type = KvType::F16;
};

}  // namespace hearth
