// ArgMax on the CPU: greedy sampling's index of the largest logit, so a decode step hands the
// host one integer instead of a vocabulary row. Two passes per column: the largest number
// (NaN skipped: x86's max returns its second operand when either is NaN), then the first index
// holding it. A 152k-entry row is 600 KB, so both passes stream it with 8 lanes (AVX2) where
// the CPU has them. Columns are split across threads; a single column stays on one thread
// (tens of microseconds: less than handing it to another).
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/host_access.h"
#include "cpu/cpu_ops.h"
#include "cpu/kernels/kernels.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define HEARTH_ARGMAX_X86 1
#endif

namespace hearth::backend::cpu_ops {

namespace {

int32_t argmax_scalar(const float* x, int64_t n) {
    float mx = -std::numeric_limits<float>::infinity();
    for (int64_t i = 0; i < n; ++i)
        if (x[i] > mx) mx = x[i];  // false for NaN
    for (int64_t i = 0; i < n; ++i)
        if (x[i] == mx) return static_cast<int32_t>(i);
    return 0;  // only NaN
}

#if defined(HEARTH_ARGMAX_X86) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx2"))) int32_t argmax_avx2(const float* x, int64_t n) {
    const float ninf = -std::numeric_limits<float>::infinity();
    __m256 m0 = _mm256_set1_ps(ninf), m1 = m0;
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        m0 = _mm256_max_ps(_mm256_loadu_ps(x + i), m0);  // NaN in x: keeps m0
        m1 = _mm256_max_ps(_mm256_loadu_ps(x + i + 8), m1);
    }
    m0 = _mm256_max_ps(m0, m1);
    __m128 h = _mm_max_ps(_mm256_castps256_ps128(m0), _mm256_extractf128_ps(m0, 1));
    h = _mm_max_ps(h, _mm_movehl_ps(h, h));
    h = _mm_max_ss(h, _mm_shuffle_ps(h, h, 1));
    float mx = _mm_cvtss_f32(h);
    for (; i < n; ++i)
        if (x[i] > mx) mx = x[i];
    const __m256 v = _mm256_set1_ps(mx);
    i = 0;
    for (; i + 8 <= n; i += 8) {
        const int mask = _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(x + i), v, _CMP_EQ_OQ));
        if (mask != 0) return static_cast<int32_t>(i + __builtin_ctz(static_cast<unsigned>(mask)));
    }
    for (; i < n; ++i)
        if (x[i] == mx) return static_cast<int32_t>(i);
    return 0;
}
#endif

int32_t argmax_row(const float* x, int64_t n, bool simd) {
#if defined(HEARTH_ARGMAX_X86) && (defined(__GNUC__) || defined(__clang__))
    if (simd) return argmax_avx2(x, n);
#endif
    (void)simd;
    return argmax_scalar(x, n);
}

}  // namespace

void argmax(const Node& n, cpu::ThreadPool& pool) {
    const Node* np = &n;
    // One pointer captured: std::function keeps it without a heap allocation per step.
    pool.parallel_for(static_cast<size_t>(n.src[0].ne[1]),
                      grain_for(static_cast<size_t>(n.src[0].ne[0])),
                      [np](size_t b, size_t e, int) {
                          const int64_t width = np->src[0].ne[0];
                          const cpu::Isa isa = cpu::active_isa();
                          const bool simd = isa == cpu::Isa::Avx2 || isa == cpu::Isa::Avx512;
                          for (size_t t = b; t < e; ++t) {
                              const auto col = static_cast<int64_t>(t);
                              auto* out = reinterpret_cast<int32_t*>(row_ptr(np->dst, col));
                              *out = argmax_row(f32_row(np->src[0], col), width, simd);
                          }
                      });
}

}  // namespace hearth::backend::cpu_ops
