// Addressing tensor elements in host memory, for host backends.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hearth/backend/buffer.h"
#include "hearth/backend/tensor.h"

namespace hearth::backend {

inline std::byte* row_ptr(const Tensor& t, int64_t i1, int64_t i2 = 0, int64_t i3 = 0) {
    return t.buffer->host_data() + t.offset + static_cast<size_t>(i1) * t.nb[1] +
           static_cast<size_t>(i2) * t.nb[2] + static_cast<size_t>(i3) * t.nb[3];
}
inline float* f32_row(const Tensor& t, int64_t i1, int64_t i2 = 0, int64_t i3 = 0) {
    return reinterpret_cast<float*>(row_ptr(t, i1, i2, i3));
}
inline const int32_t* i32_data(const Tensor& t) {
    return reinterpret_cast<const int32_t*>(t.buffer->host_data() + t.offset);
}
// Whether every tensor of a node lives in host memory.
bool node_on_host(const struct Node& n);

}  // namespace hearth::backend
