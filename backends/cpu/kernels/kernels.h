// Matrix kernels of the CPU backend: the weights stay in their file format; activations are
// quantized on the fly into whatever the weight type's dot product wants (e.g. 8-bit blocks for
// integer dot products). One implementation per ISA, picked at start from CPU features.
// Threading is the caller's: each call works on a slice of weight rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "quant/quant_type.h"

namespace hearth::cpu {

enum class Isa { Scalar, Avx2, Avx512, Neon };
std::string_view isa_name(Isa isa);

// The best ISA this CPU supports, unless the environment variable HEARTH_CPU_ISA
// (scalar | avx2 | avx512 | neon) forces a lower one. Decided once per process.
Isa active_isa();
// Tests: whether an ISA can run here, and forcing one (returns false if it can't run).
bool isa_supported(Isa isa);
bool force_isa(Isa isa);

// Whether gemv/gemm support a weight type (all GGUF weight types of the type table do).
bool supports_weight_type(quant::Type wtype);

// Bytes needed for one activation row of length k prepared for weight type wtype.
size_t activation_row_bytes(quant::Type wtype, size_t k);
// Prepares activation x[0..k) for dot products with rows of type wtype.
void quantize_activation(quant::Type wtype, const float* x, size_t k, void* out);
// The values a prepared activation row stands for (tests compare against them).
void dequantize_activation(quant::Type wtype, const void* xq, size_t k, float* out);

// out[i] = dot(W row (row_begin + i), x) for i in [0, row_end - row_begin).
// W points at row 0; rows are row_bytes(wtype, k) apart. xq comes from quantize_activation.
void gemv(quant::Type wtype, const void* w, size_t k, size_t row_begin, size_t row_end,
          const void* xq, float* out);

// Prefill: Y[j * y_stride + i] = dot(W row i, X_j) for i in [row_begin, row_end), j in [0, n).
// Xq holds n prepared activation rows, xq_stride bytes apart.
void gemm(quant::Type wtype, const void* w, size_t k, size_t row_begin, size_t row_end,
          const void* xq, size_t xq_stride, size_t n, float* y, size_t y_stride);

}  // namespace hearth::cpu
