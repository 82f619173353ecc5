// A tensor is a view: a buffer, a byte offset, an element type and up to four dimensions with
// byte strides (ggml's ne/nb convention: ne[0] is the row length, rows are contiguous).
// Tensors own nothing; buffers own memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "quant/quant_type.h"

namespace hearth::backend {

class Buffer;

// Element types are quant::Type (engine/quant, the leaf library both the engine and the
// backends use): every weight format with its GGUF id, plus I32 for index tensors.
using DType = quant::Type;

const char* dtype_name(DType t);
// Elements per block and bytes per block (1 and 4 for I32).
size_t dtype_block_size(DType t);
size_t dtype_block_bytes(DType t);
// Bytes of a row of n elements (n a multiple of the block size).
inline size_t dtype_row_bytes(DType t, size_t n) {
    return n / dtype_block_size(t) * dtype_block_bytes(t);
}
// Whether a type id names a known weight type (a quant table entry the backends handle).
bool is_weight_dtype(DType t);

struct Tensor {
    Buffer* buffer = nullptr;
    size_t offset = 0;  // bytes from the start of the buffer
    DType type = DType::F32;
    int64_t ne[4] = {1, 1, 1, 1};  // elements per dimension; ne[0] is the row length
    size_t nb[4] = {0, 0, 0, 0};   // byte strides; nb[1] = bytes between rows

    // A dense tensor at `offset` of `buffer`.
    static Tensor dense(Buffer* buffer, size_t offset, DType type,
                        std::initializer_list<int64_t> dims);

    bool valid() const { return buffer != nullptr; }
    int64_t n_elements() const { return ne[0] * ne[1] * ne[2] * ne[3]; }
    int64_t n_rows() const { return ne[1] * ne[2] * ne[3]; }
    size_t row_bytes() const { return dtype_row_bytes(type, static_cast<size_t>(ne[0])); }
    // Bytes spanned from the first to one past the last byte.
    size_t span_bytes() const;
    // Whether all rows follow each other with no gaps (dense).
    bool is_dense() const;

    // A view of rows [first, first + count) of dimension 1 (the other dims keep their size).
    Tensor rows(int64_t first, int64_t count) const;
    // The same bytes seen with new dims (only for dense tensors with an equal element count).
    Tensor reshaped(std::initializer_list<int64_t> dims) const;
};

}  // namespace hearth::backend
