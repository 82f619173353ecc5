// ArgMax's order on the device: a number beats NaN, a larger number beats a smaller one, and
// of equal values (or two NaN) the lower index wins, so the result does not depend on how the
// threads split the column. Values travel as their bits so NaN payloads never matter.
// __host__ __device__: tests/backends/cuda runs the kernel's reduction on the host.
#pragma once

#include <cstdint>

#include "cuda_common.cuh"

namespace hearth::backend::cuda {

constexpr uint32_t kArgMaxNone = 0xFFFFFFFFu;  // no index yet (loses to every index)
constexpr int kArgMaxThreads = 256;

HD bool argmax_is_nan(uint32_t bits) {
    return (bits & 0x7FFFFFFFu) > 0x7F800000u;
}

HD uint32_t argmax_bits(float f) {
#ifdef __CUDA_ARCH__
    return __float_as_uint(f);
#else
    uint32_t v;
    std::memcpy(&v, &f, sizeof v);
    return v;
#endif
}

// Whether (value bits a, index ia) comes before (b, ib).
HD bool argmax_better(uint32_t a, uint32_t ia, uint32_t b, uint32_t ib) {
    const bool na = argmax_is_nan(a), nb = argmax_is_nan(b);
    if (na != nb) return nb;
    if (!na) {
        const float fa = bits_to_float(a), fb = bits_to_float(b);
        if (fa != fb) return fa > fb;
    }
    return ia < ib;
}

// One thread's share of a column: elements tid, tid + threads, ...
HD void argmax_scan(const float* x, int64_t n, int tid, int threads, uint32_t& bv, uint32_t& bi) {
    bv = 0x7FC00000u;  // NaN
    bi = kArgMaxNone;
    for (int64_t i = tid; i < n; i += threads) {
        const uint32_t v = argmax_bits(x[i]);
        if (argmax_better(v, uint32_t(i), bv, bi)) {
            bv = v;
            bi = uint32_t(i);
        }
    }
}

}  // namespace hearth::backend::cuda
