// How Attention over a Q8_0 or Q4_0 KV cache rounds the query, on every backend: the
// pre-scaled query (q * scale) of a head whose size is a multiple of 32, 32 elements at a
// time, as 8-bit codes with one float scale d = max|x| / 127 (round half to even, clamped to
// +-127). A score is then the exact integer dot product of those codes with the cache's codes,
// times both scales, block by block (s = sum_0 * (d_0 * dk_0), then fma(sum_b, d_b * dk_b, s)):
// what the CPU computes with integer instructions (cpu/kernels/kernels.h attn_begin) and the
// other backends reproduce, so they agree to float rounding (llama.cpp's CPU path rounds the
// query for a quantized K in the same way). A NaN or infinite element makes the block's scale
// NaN (codes 0): the scores become NaN, as float products would.
#pragma once

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>

#if defined(__SSE__) || defined(_M_X64)
#include <immintrin.h>
#endif

#include "quant/quant_type.h"

namespace hearth::quant {

constexpr size_t kAttnQueryBlock = 32;

// Whether Attention over a cache of this type and head size rounds the query (above).
constexpr bool attention_int_scores(Type kv, int64_t head_dim) {
    return (kv == Type::Q8_0 || kv == Type::Q4_0) && head_dim % 32 == 0;
}

// x rounded to the nearest integer, ties to even (the default rounding mode), for |x| < 2^31:
// std::nearbyint's value. On x86 one SSE conversion instead of nearbyint's library call (the
// baseline x86-64 has no rounding instruction; the call took ~20% of a decode step's attention
// over a short Q8_0 cache). Not the add-and-subtract-2^23 trick: with FMA contraction (GCC's
// default) the product before it could be fused into the add, rounding once instead of twice.
inline int32_t round_half_even(float x) {
#if defined(__SSE__) || defined(_M_X64)
    return _mm_cvtss_si32(_mm_set_ss(x));
#else
    return static_cast<int32_t>(std::nearbyint(x));
#endif
}

// A block of 32 query elements q times scale (one float product each: the pre-scaled query) as
// codes; returns the block's scale d (0 when all are 0; codes all 0 when d is subnormal).
inline float attention_query_block(const float* q, float scale, int8_t* codes) {
    float x[kAttnQueryBlock];
    float amax = 0.0f;
    int non_finite = 0;
    for (size_t i = 0; i < kAttnQueryBlock; ++i) {
        x[i] = q[i] * scale;
        amax = std::max(amax, std::fabs(x[i]));
        non_finite |= !std::isfinite(x[i]);  // (max skips a NaN)
    }
    const bool finite = non_finite == 0;
    const float d = finite ? amax / 127.0f : NAN;
    // A subnormal d (max|x| below ~1.5e-36) would make 1 / d infinite: such a block is
    // treated as zeros (every backend flushes it the same way).
    const float id = finite && d >= FLT_MIN ? 1.0f / d : 0.0f;
    for (size_t i = 0; i < kAttnQueryBlock; ++i) {
        // |x * id| <= 127 up to rounding: the clamp only catches that rounding.
        const float v = x[i] * id;
        codes[i] = finite ? static_cast<int8_t>(std::clamp(round_half_even(v), -127, 127)) : 0;
    }
    return d;
}

}  // namespace hearth::quant
