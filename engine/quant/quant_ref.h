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

// Decodes n elements (a multiple of the block size) from src into dst.
// Every type in the type table is supported except Q8_1.
void dequantize_row(Type type, const void* src, float* dst, size_t n);

// Whether quantize_row supports the type.
bool can_quantize(Type type);

// Encodes n elements (a multiple of the block size) into dst, which must hold
// row_bytes(type, n) bytes. Follows ggml's reference rounding unless documented otherwise.
void quantize_row(Type type, const float* src, void* dst, size_t n);

}  // namespace hearth::quant
