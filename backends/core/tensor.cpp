#include "hearth/backend/tensor.h"

#include <cassert>

namespace hearth::backend {

const char* dtype_name(DType t) {
    const auto* tr = quant::type_traits(static_cast<uint32_t>(t));
    return tr ? tr->name.data() : "?";
}

size_t dtype_block_size(DType t) {
    const auto* tr = quant::type_traits(static_cast<uint32_t>(t));
    return tr ? tr->block_size : 1;
}

size_t dtype_block_bytes(DType t) {
    const auto* tr = quant::type_traits(static_cast<uint32_t>(t));
    return tr ? tr->type_size : 0;
}

bool is_weight_dtype(DType t) {
    if (t == DType::I32) return false;
    const auto* tr = quant::type_traits(static_cast<uint32_t>(t));
    // Q8_1 and Q8_K are activation formats, never stored weights.
    return tr && tr->type != quant::Type::Q8_1 && tr->type != quant::Type::Q8_K;
}

Tensor Tensor::dense(Buffer* buffer, size_t offset, DType type,
                     std::initializer_list<int64_t> dims) {
    Tensor t;
    t.buffer = buffer;
    t.offset = offset;
    t.type = type;
    int i = 0;
    for (int64_t d : dims) {
        assert(i < 4);
        t.ne[i++] = d;
    }
    t.nb[0] = dtype_block_bytes(type);
    t.nb[1] = dtype_row_bytes(type, static_cast<size_t>(t.ne[0]));
    t.nb[2] = t.nb[1] * static_cast<size_t>(t.ne[1]);
    t.nb[3] = t.nb[2] * static_cast<size_t>(t.ne[2]);
    return t;
}

size_t Tensor::span_bytes() const {
    if (n_elements() == 0) return 0;
    size_t last = row_bytes();
    for (int d = 1; d < 4; ++d) last += static_cast<size_t>(ne[d] - 1) * nb[d];
    return last;
}

bool Tensor::is_dense() const {
    if (nb[0] != dtype_block_bytes(type)) return false;
    size_t expect = row_bytes();
    for (int d = 1; d < 4; ++d) {
        // The stride of a dimension of size 1 is never used.
        if (ne[d] > 1 && nb[d] != expect) return false;
        expect *= static_cast<size_t>(ne[d]);
    }
    return true;
}

Tensor Tensor::rows(int64_t first, int64_t count) const {
    assert(first >= 0 && count >= 0 && first + count <= ne[1]);
    Tensor t = *this;
    t.offset += static_cast<size_t>(first) * nb[1];
    t.ne[1] = count;
    return t;
}

Tensor Tensor::reshaped(std::initializer_list<int64_t> dims) const {
    assert(is_dense());
    Tensor t = dense(buffer, offset, type, dims);
    assert(t.n_elements() == n_elements());
    return t;
}

}  // namespace hearth::backend
