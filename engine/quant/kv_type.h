// The element types a KV cache may have: a subset of quant::Type with the same ids, so a cache
// tensor's type is element_type(kv) without a table.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "quant/quant_type.h"

namespace hearth::quant {

// F16 is the default; Q8_0 / Q4_0 take about 1/2 and 1/4 of its memory and need a KV width that
// is a multiple of 32; F32 is for tests and reference runs.
enum class KvType : uint32_t {
    F32 = static_cast<uint32_t>(Type::F32),
    F16 = static_cast<uint32_t>(Type::F16),
    Q8_0 = static_cast<uint32_t>(Type::Q8_0),
    Q4_0 = static_cast<uint32_t>(Type::Q4_0),
};

constexpr Type element_type(KvType t) {
    return static_cast<Type>(t);
}

// "f32", "f16", "q8_0", "q4_0": the spelling of --kv-type and the settings file.
const char* kv_type_name(KvType t);
// Any case ("Q8_0" and "q8_0"); nullopt for another name.
std::optional<KvType> kv_type_from_name(std::string_view name);

}  // namespace hearth::quant
