// Portable kernels: each weight row is decoded to floats once, then dotted with one or more
// prepared activation rows. Slow but simple; every SIMD path is tested against the same math.
#include <vector>

#include "kernels/kernels_internal.h"

namespace hearth::cpu::detail {

namespace {

float dot_f32(const float* w, const float* x, size_t k) {
    float acc[4] = {0, 0, 0, 0};
    size_t i = 0;
    for (; i + 4 <= k; i += 4)
        for (size_t l = 0; l < 4; ++l) acc[l] += w[i + l] * x[i + l];
    for (; i < k; ++i) acc[0] += w[i] * x[i];
    return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

// Dot of decoded weights with int8 codes that share one scale per `block` elements.
float dot_q8(const float* w, const int8_t* qs, const float* d, size_t block, size_t k) {
    float total = 0.0f;
    for (size_t b = 0; b < k / block; ++b) {
        float acc = 0.0f;
        for (size_t i = 0; i < block; ++i)
            acc += w[b * block + i] * static_cast<float>(qs[b * block + i]);
        total += d[b] * acc;
    }
    return total;
}

float dot_row(quant::Type wtype, const float* w, const void* xq, size_t k) {
    switch (act_kind(wtype)) {
        case ActKind::F32:
            return dot_f32(w, static_cast<const float*>(xq), k);
        case ActKind::Q8x32: {
            const auto a = q8x32_row(xq, k);
            return dot_q8(w, a.qs, a.d, 32, k);
        }
        case ActKind::Q8x256: {
            const auto a = q8x256_row(xq, k);
            return dot_q8(w, a.qs, a.d, 256, k);
        }
    }
    return 0.0f;
}

std::vector<float>& row_buffer(size_t k) {
    thread_local std::vector<float> buf;
    if (buf.size() < k) buf.resize(k);
    return buf;
}

}  // namespace

void gemv_scalar(quant::Type wtype, const uint8_t* w, size_t k, size_t r0, size_t r1,
                 const void* xq, float* out) {
    const size_t rb = quant::row_bytes(wtype, k);
    float* wrow = row_buffer(k).data();
    for (size_t r = r0; r < r1; ++r) {
        decode_row(wtype, w + r * rb, k, wrow);
        out[r - r0] = dot_row(wtype, wrow, xq, k);
    }
}

void gemm_scalar(quant::Type wtype, const uint8_t* w, size_t k, size_t r0, size_t r1,
                 const uint8_t* xq, size_t xq_stride, size_t n, float* y, size_t y_stride) {
    const size_t rb = quant::row_bytes(wtype, k);
    float* wrow = row_buffer(k).data();
    for (size_t r = r0; r < r1; ++r) {
        decode_row(wtype, w + r * rb, k, wrow);
        for (size_t j = 0; j < n; ++j)
            y[j * y_stride + r] = dot_row(wtype, wrow, xq + j * xq_stride, k);
    }
}

}  // namespace hearth::cpu::detail
