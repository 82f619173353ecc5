#include "runtime/kv_types.h"

#include <string>

namespace hearth {

const char* kv_type_name(KvType t) {
    switch (t) {
        case KvType::F32:
            return "f32";
        case KvType::F16:
            return "f16";
        case KvType::Q8_0:
            return "q8_0";
        case KvType::Q4_0:
            return "q4_0";
    }
    return "?";
}

Result<KvType> parse_kv_type(std::string_view name) {
    for (KvType t : {KvType::F32, KvType::F16, KvType::Q8_0, KvType::Q4_0})
        if (name == kv_type_name(t)) return t;
    return Result<KvType>::error("unknown KV cache type '" + std::string(name) +
                                 "' (f16, q8_0, q4_0, f32)");
}

}  // namespace hearth
