#include "kernels/bandwidth.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "kernels/packed.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HEARTH_BW_X86 1
#else
#define HEARTH_BW_X86 0
#endif

namespace hearth::cpu {

namespace {

// Each read pattern sums words [0, n) of p (n a multiple of 8 words = one 64-byte line) and
// returns the sum, so the loads cannot be optimised away. Different CPUs and kernels reach
// their peak with different patterns; the probe keeps the best, so it is an upper bound for
// what a kernel streaming weights can expect, not the speed of one particular loop.
using ReadFn = uint64_t (*)(const uint64_t* p, size_t n);

// Portable: eight independent scalar sums so the loop is bound by loads, not the add latency.
uint64_t sum_scalar(const uint64_t* p, size_t n) {
    uint64_t s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i + 8 <= n; i += 8)
        for (int l = 0; l < 8; ++l) s[l] += p[i + l];
    return s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];
}

#if HEARTH_BW_X86
// 256-bit loads, four lines per iteration into four accumulators.
__attribute__((target("avx2"))) uint64_t sum_avx2(const uint64_t* p, size_t n) {
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const auto* v = reinterpret_cast<const __m256i*>(p + i);
        a0 = _mm256_add_epi64(a0, _mm256_add_epi64(_mm256_load_si256(v), _mm256_load_si256(v + 1)));
        a1 = _mm256_add_epi64(a1,
                              _mm256_add_epi64(_mm256_load_si256(v + 2), _mm256_load_si256(v + 3)));
        a2 = _mm256_add_epi64(a2,
                              _mm256_add_epi64(_mm256_load_si256(v + 4), _mm256_load_si256(v + 5)));
        a3 = _mm256_add_epi64(a3,
                              _mm256_add_epi64(_mm256_load_si256(v + 6), _mm256_load_si256(v + 7)));
    }
    const __m256i a = _mm256_add_epi64(_mm256_add_epi64(a0, a1), _mm256_add_epi64(a2, a3));
    alignas(32) uint64_t out[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(out), a);
    return out[0] + out[1] + out[2] + out[3] + sum_scalar(p + i, n - i);
}

// The same with software prefetches far ahead (helps when the hardware prefetcher is shy,
// e.g. on some virtual machines), into L1 (Locality 3), into L2 (2) or into L1 as non-temporal
// lines (0), as the kernels ask (kernels_x86_common.inc, prefetch_stream).
template <int Locality>
__attribute__((target("avx2"))) uint64_t sum_avx2_prefetch(const uint64_t* p, size_t n) {
    __m256i a0 = _mm256_setzero_si256(), a1 = a0;
    size_t i = 0;
    constexpr size_t kAhead = 1024;  // words = 8 KiB
    for (; i + 32 <= n; i += 32) {
        __builtin_prefetch(p + i + kAhead, 0, Locality);
        __builtin_prefetch(p + i + kAhead + 8, 0, Locality);
        __builtin_prefetch(p + i + kAhead + 16, 0, Locality);
        __builtin_prefetch(p + i + kAhead + 24, 0, Locality);
        const auto* v = reinterpret_cast<const __m256i*>(p + i);
        a0 = _mm256_add_epi64(a0, _mm256_add_epi64(_mm256_load_si256(v), _mm256_load_si256(v + 1)));
        a1 = _mm256_add_epi64(a1,
                              _mm256_add_epi64(_mm256_load_si256(v + 2), _mm256_load_si256(v + 3)));
        a0 = _mm256_add_epi64(a0,
                              _mm256_add_epi64(_mm256_load_si256(v + 4), _mm256_load_si256(v + 5)));
        a1 = _mm256_add_epi64(a1,
                              _mm256_add_epi64(_mm256_load_si256(v + 6), _mm256_load_si256(v + 7)));
    }
    alignas(32) uint64_t out[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(out), _mm256_add_epi64(a0, a1));
    return out[0] + out[1] + out[2] + out[3] + sum_scalar(p + i, n - i);
}

// Non-temporal (streaming) loads: on ordinary write-back memory they behave like plain loads on
// most CPUs, but some fill buffers stream better this way.
__attribute__((target("avx2"))) uint64_t sum_avx2_stream(const uint64_t* p, size_t n) {
    __m256i a0 = _mm256_setzero_si256(), a1 = a0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        auto* v = const_cast<__m256i*>(reinterpret_cast<const __m256i*>(p + i));
        a0 = _mm256_add_epi64(
            a0, _mm256_add_epi64(_mm256_stream_load_si256(v), _mm256_stream_load_si256(v + 1)));
        a1 = _mm256_add_epi64(
            a1, _mm256_add_epi64(_mm256_stream_load_si256(v + 2), _mm256_stream_load_si256(v + 3)));
    }
    alignas(32) uint64_t out[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(out), _mm256_add_epi64(a0, a1));
    return out[0] + out[1] + out[2] + out[3] + sum_scalar(p + i, n - i);
}

// 512-bit loads, two lines per iteration into two accumulators.
__attribute__((target("avx512f"))) uint64_t sum_avx512(const uint64_t* p, size_t n) {
    __m512i a0 = _mm512_setzero_si512(), a1 = a0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        a0 = _mm512_add_epi64(
            a0, _mm512_add_epi64(_mm512_load_si512(p + i), _mm512_load_si512(p + i + 8)));
        a1 = _mm512_add_epi64(
            a1, _mm512_add_epi64(_mm512_load_si512(p + i + 16), _mm512_load_si512(p + i + 24)));
    }
    // A store, not _mm512_reduce_add_epi64: GCC 12's version trips -Wuninitialized (bug 105593).
    alignas(64) uint64_t out[8];
    _mm512_store_si512(out, _mm512_add_epi64(a0, a1));
    return sum_scalar(out, 8) + sum_scalar(p + i, n - i);
}
#endif

std::vector<ReadFn> read_patterns() {
    std::vector<ReadFn> fns = {&sum_scalar};
#if HEARTH_BW_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) {
        fns.push_back(&sum_avx2);
        fns.push_back(&sum_avx2_prefetch<3>);
        fns.push_back(&sum_avx2_prefetch<2>);
        fns.push_back(&sum_avx2_prefetch<0>);
        fns.push_back(&sum_avx2_stream);
    }
    if (__builtin_cpu_supports("avx512f")) fns.push_back(&sum_avx512);
#endif
    return fns;
}

// One timed pass of `fn` over the buffer, split into contiguous pieces the pool's threads claim
// (or, with `interleaved`, in 256 KiB pieces handed round-robin to one share per thread, so the
// threads read neighbouring memory).
double timed_pass(ThreadPool& pool, const uint64_t* buf, size_t words, ReadFn fn, bool interleaved,
                  std::atomic<uint64_t>& sink) {
    const auto t0 = std::chrono::steady_clock::now();
    if (!interleaved) {
        pool.parallel_for(words / 8, 512, [&](size_t b, size_t e, int) {
            sink.fetch_add(fn(buf + 8 * b, 8 * (e - b)), std::memory_order_relaxed);
        });
    } else {
        constexpr size_t kPiece = (256 << 10) / sizeof(uint64_t);
        const size_t pieces = words / kPiece;
        const size_t threads = static_cast<size_t>(pool.size());
        pool.parallel_for(threads, 1, [&](size_t b, size_t e, int) {
            uint64_t s = 0;
            for (size_t t = b; t < e; ++t)
                for (size_t piece = t; piece < pieces; piece += threads)
                    s += fn(buf + piece * kPiece, kPiece);
            sink.fetch_add(s, std::memory_order_relaxed);
        });
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const size_t read = interleaved ? words / ((256 << 10) / 8) * ((256 << 10) / 8) : words / 8 * 8;
    return s > 0 ? static_cast<double>(read * sizeof(uint64_t)) / s / 1e9 : 0.0;
}

struct FreeBuffer {
    void operator()(uint64_t* p) const { std::free(p); }
};

}  // namespace

double measure_read_bandwidth_gbs(ThreadPool& pool, size_t bytes, int reps) {
    const size_t words = bytes / sizeof(uint64_t) / 64 * 64;
    if (words == 0) return 0.0;
    // The buffer on the pages the packed weights get (alloc_streamed: huge pages where granted):
    // on 4 KiB pages the probe read less than tinyllama Q8_0's decode did (its tg128 at
    // 105-108 % of the floor), so it was not the upper bound it must be.
    std::unique_ptr<uint64_t[], FreeBuffer> buf(
        reinterpret_cast<uint64_t*>(alloc_streamed(words * sizeof(uint64_t))));
    if (!buf) return 0.0;
    // Touch every page from the thread that will read it (first-touch placement).
    pool.parallel_for(words, 4096, [&](size_t b, size_t e, int) {
        for (size_t i = b; i < e; ++i) buf[i] = i;
    });
    std::atomic<uint64_t> sink{0};
    const auto fns = read_patterns();
    // Rounds interleave the patterns, so a burst of load on a shared machine hits all of them
    // alike; the best pass of any pattern in any round is the figure.
    double best = 0.0;
    for (int r = 0; r < std::max(1, reps); ++r)
        for (ReadFn fn : fns)
            for (bool interleaved : {false, true})
                best = std::max(best, timed_pass(pool, buf.get(), words, fn, interleaved, sink));
    // The sum is used, so the reads cannot be optimised away.
    if (sink.load() == 0x5eed) best += 0.0;
    return best;
}

}  // namespace hearth::cpu
