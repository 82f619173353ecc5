// Dispatch from a Type to the per-format reference routines, and the size-checked wrappers.
#include "quant/quant_ref.h"

#include <bit>
#include <cassert>
#include <string>

#include "quant/quant_ref_impl.h"

namespace hearth::quant {

using namespace detail;

namespace {

// Float formats go element by element; fields are little-endian regardless of the host.
void dequantize_f32(const uint8_t* src, float* dst, size_t n) {
    for (size_t i = 0; i < n; ++i) dst[i] = std::bit_cast<float>(load_u32(src + 4 * i));
}
void quantize_f32(const float* src, uint8_t* dst, size_t n) {
    for (size_t i = 0; i < n; ++i) store_u32(dst + 4 * i, std::bit_cast<uint32_t>(src[i]));
}
void dequantize_f16(const uint8_t* src, float* dst, size_t n) {
    for (size_t i = 0; i < n; ++i) dst[i] = load_f16(src + 2 * i);
}
void quantize_f16(const float* src, uint8_t* dst, size_t n) {
    for (size_t i = 0; i < n; ++i) store_f16(dst + 2 * i, src[i]);
}
void dequantize_bf16(const uint8_t* src, float* dst, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        dst[i] = bf16_to_f32(static_cast<uint16_t>(src[2 * i] | (src[2 * i + 1] << 8)));
    }
}
void quantize_bf16(const float* src, uint8_t* dst, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        const uint16_t h = f32_to_bf16(src[i]);
        dst[2 * i] = static_cast<uint8_t>(h & 0xFF);
        dst[2 * i + 1] = static_cast<uint8_t>(h >> 8);
    }
}

using DequantizeFn = void (*)(const uint8_t*, float*, size_t);
using QuantizeFn = void (*)(const float*, uint8_t*, size_t);

// The routine for a type, or nullptr when unsupported. The argument is a count of blocks
// (elements for the float formats, whose block size is 1).
DequantizeFn dequantize_fn(Type type) {
    switch (type) {
        case Type::F32:
            return dequantize_f32;
        case Type::F16:
            return dequantize_f16;
        case Type::BF16:
            return dequantize_bf16;
        case Type::Q4_0:
            return dequantize_q4_0;
        case Type::Q4_1:
            return dequantize_q4_1;
        case Type::Q5_0:
            return dequantize_q5_0;
        case Type::Q5_1:
            return dequantize_q5_1;
        case Type::Q8_0:
            return dequantize_q8_0;
        case Type::Q2_K:
            return dequantize_q2_k;
        case Type::Q3_K:
            return dequantize_q3_k;
        case Type::Q4_K:
            return dequantize_q4_k;
        case Type::Q5_K:
            return dequantize_q5_k;
        case Type::Q6_K:
            return dequantize_q6_k;
        case Type::Q8_K:
            return dequantize_q8_k;
        case Type::IQ4_NL:
            return dequantize_iq4_nl;
        case Type::IQ4_XS:
            return dequantize_iq4_xs;
        case Type::Q8_1:  // an activation format: never dequantized here
        case Type::I32:   // indices, not numbers to decode
            return nullptr;
    }
    return nullptr;
}

QuantizeFn quantize_fn(Type type) {
    switch (type) {
        case Type::F32:
            return quantize_f32;
        case Type::F16:
            return quantize_f16;
        case Type::BF16:
            return quantize_bf16;
        case Type::Q4_0:
            return quantize_q4_0;
        case Type::Q4_1:
            return quantize_q4_1;
        case Type::Q5_0:
            return quantize_q5_0;
        case Type::Q5_1:
            return quantize_q5_1;
        case Type::Q8_0:
            return quantize_q8_0;
        case Type::Q2_K:
            return quantize_q2_k;
        case Type::Q3_K:
            return quantize_q3_k;
        case Type::Q4_K:
            return quantize_q4_k;
        case Type::Q5_K:
            return quantize_q5_k;
        case Type::Q6_K:
            return quantize_q6_k;
        case Type::Q8_K:
            return quantize_q8_k;
        case Type::IQ4_NL:
            return quantize_iq4_nl;
        case Type::IQ4_XS:
            return quantize_iq4_xs;
        default:
            return nullptr;
    }
}

// Checks that n elements of `type` form whole blocks; fills *blocks on success.
Status check_row(Type type, size_t n, const char* what, size_t& blocks) {
    const TypeTraits* tr = type_traits(static_cast<uint32_t>(type));
    if (tr == nullptr) {
        return Status::error(std::string(what) + ": unknown type id " +
                             std::to_string(static_cast<uint32_t>(type)));
    }
    if (n % tr->block_size != 0) {
        return Status::error(std::string(what) + " " + std::string(tr->name) + ": " +
                             std::to_string(n) + " elements is not a multiple of the block size " +
                             std::to_string(tr->block_size));
    }
    blocks = n / tr->block_size;
    return Status::ok();
}

}  // namespace

bool can_dequantize(Type type) {
    return dequantize_fn(type) != nullptr;
}
bool can_quantize(Type type) {
    return quantize_fn(type) != nullptr;
}

void dequantize_row(Type type, const void* src, float* dst, size_t n) {
    const DequantizeFn fn = dequantize_fn(type);
    assert(fn != nullptr && "dequantize_row: unsupported type");
    assert(n % traits(type).block_size == 0 && "dequantize_row: n must be whole blocks");
    if (fn == nullptr) return;
    fn(static_cast<const uint8_t*>(src), dst, n / traits(type).block_size);
}

void quantize_row(Type type, const float* src, void* dst, size_t n) {
    const QuantizeFn fn = quantize_fn(type);
    assert(fn != nullptr && "quantize_row: unsupported type");
    assert(n % traits(type).block_size == 0 && "quantize_row: n must be whole blocks");
    if (fn == nullptr) return;
    fn(src, static_cast<uint8_t*>(dst), n / traits(type).block_size);
}

Status dequantize(Type type, std::span<const std::byte> src, std::span<float> dst) {
    size_t blocks = 0;
    if (Status s = check_row(type, dst.size(), "dequantize", blocks); !s) return s;
    const DequantizeFn fn = dequantize_fn(type);
    const auto& tr = traits(type);
    if (fn == nullptr) {
        return Status::error("dequantize: type " + std::string(tr.name) + " is not supported");
    }
    if (src.size() != blocks * tr.type_size) {
        return Status::error("dequantize " + std::string(tr.name) + ": " +
                             std::to_string(dst.size()) + " elements need " +
                             std::to_string(blocks * tr.type_size) + " bytes, got " +
                             std::to_string(src.size()));
    }
    fn(reinterpret_cast<const uint8_t*>(src.data()), dst.data(), blocks);
    return Status::ok();
}

Status quantize(Type type, std::span<const float> src, std::span<std::byte> dst) {
    size_t blocks = 0;
    if (Status s = check_row(type, src.size(), "quantize", blocks); !s) return s;
    const QuantizeFn fn = quantize_fn(type);
    const auto& tr = traits(type);
    if (fn == nullptr) {
        return Status::error("quantize: type " + std::string(tr.name) +
                             " has no reference quantizer");
    }
    if (dst.size() != blocks * tr.type_size) {
        return Status::error("quantize " + std::string(tr.name) + ": " +
                             std::to_string(src.size()) + " elements need " +
                             std::to_string(blocks * tr.type_size) + " bytes, got " +
                             std::to_string(dst.size()));
    }
    fn(src.data(), reinterpret_cast<uint8_t*>(dst.data()), blocks);
    return Status::ok();
}

}  // namespace hearth::quant
