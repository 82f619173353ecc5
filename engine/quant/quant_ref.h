// Reference (plain, readable) conversion between float32 and every block format. These are the
// oracle that fast kernels are tested against; keep them simple rather than fast.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "hearth/result.h"
#include "quant/quant_type.h"

namespace hearth::quant {

// Half and bfloat16 conversions (round to nearest even, NaN kept).
float f16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f);
float bf16_to_f32(uint16_t h);
uint16_t f32_to_bf16(float f);

// Decodes n elements from src into dst.
// Preconditions (unchecked; use dequantize() below for untrusted sizes): can_dequantize(type),
// n is a multiple of the block size, src holds row_bytes(type, n) bytes, dst holds n floats.
// Every type in the type table is supported except Q8_1. Bit-exact with ggml's dequantizers.
void dequantize_row(Type type, const void* src, float* dst, size_t n);

// Whether dequantize_row supports the type (all table types but Q8_1).
bool can_dequantize(Type type);

// Whether quantize_row supports the type.
bool can_quantize(Type type);

// Encodes n elements (a multiple of the block size) into dst, which must hold
// row_bytes(type, n) bytes. Follows ggml's reference rounding unless documented otherwise.
// Preconditions as dequantize_row (unchecked); use quantize() below for untrusted sizes.
// Any float input (inf, NaN, huge) gives some valid block, never undefined behaviour.
void quantize_row(Type type, const float* src, void* dst, size_t n);

// Checked forms: the type must be supported, dst/src sizes must be whole blocks and match
// exactly (src.size() == row_bytes(type, dst.size()) and the reverse); otherwise an error
// naming the problem is returned and nothing is written.
Status dequantize(Type type, std::span<const std::byte> src, std::span<float> dst);
Status quantize(Type type, std::span<const float> src, std::span<std::byte> dst);

}  // namespace hearth::quant
