#include "hearth/engine.h"

#include <string>

namespace hearth {

Result<KvType> parse_kv_type(std::string_view name) {
    if (auto t = quant::kv_type_from_name(name)) return *t;
    return Result<KvType>::error("unknown KV cache type '" + std::string(name) +
                                 "' (f16, q8_0, q4_0, f32)");
}

}  // namespace hearth
