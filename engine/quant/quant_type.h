// The ggml tensor types Hearth knows: ids as stored in GGUF, block sizes and bytes per block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace hearth::quant {

// Ids are the ggml type ids written in GGUF tensor infos. This is the one element-type enum of
// the project: the backends name it backend::DType (an alias), the KV cache uses a subset
// (KvType below). I32 is for index tensors (token ids, positions, block tables), not weights.
enum class Type : uint32_t {
    F32 = 0,
    F16 = 1,
    Q4_0 = 2,
    Q4_1 = 3,
    Q5_0 = 6,
    Q5_1 = 7,
    Q8_0 = 8,
    Q8_1 = 9,
    Q2_K = 10,
    Q3_K = 11,
    Q4_K = 12,
    Q5_K = 13,
    Q6_K = 14,
    Q8_K = 15,
    IQ4_NL = 20,
    IQ4_XS = 23,
    I32 = 26,
    BF16 = 30,
};

struct TypeTraits {
    Type type;
    std::string_view name;   // "Q4_K", as llama.cpp spells it
    uint32_t block_size;     // elements per block (1 for F32/F16/BF16)
    uint32_t type_size;      // bytes per block
    bool is_quantized;       // block formats (not F32/F16/BF16)
};

// The traits of a known type id, or nullptr for an unknown / unsupported id.
const TypeTraits* type_traits(uint32_t id);
inline const TypeTraits& traits(Type t) { return *type_traits(static_cast<uint32_t>(t)); }

// Looks a type up by name ("q4_k" and "Q4_K" both work).
std::optional<Type> type_from_name(std::string_view name);

// Bytes of one row of n elements; n must be a multiple of the block size.
inline size_t row_bytes(Type t, size_t n) {
    const auto& tr = traits(t);
    return n / tr.block_size * tr.type_size;
}

}  // namespace hearth::quant
