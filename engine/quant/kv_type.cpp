#include "quant/kv_type.h"

#include <cctype>

namespace hearth::quant {

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

std::optional<KvType> kv_type_from_name(std::string_view name) {
    for (KvType t : {KvType::F32, KvType::F16, KvType::Q8_0, KvType::Q4_0}) {
        const std::string_view want = kv_type_name(t);
        if (want.size() != name.size()) continue;
        bool same = true;
        for (size_t i = 0; i < name.size() && same; ++i)
            same = std::tolower(static_cast<unsigned char>(name[i])) == want[i];
        if (same) return t;
    }
    return std::nullopt;
}

}  // namespace hearth::quant
