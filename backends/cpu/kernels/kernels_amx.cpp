// AMX-INT8 prefill over packed Q4_0 / Q5_0 / Q8_0 weights (packed.h), built with its own target
// flags. One tile product per 32-element block: A = 16 tokens x 32 signed activation codes (read
// in place from the prepared rows), B = the block group's 8 code pieces x 16 rows as the
// unsigned codes the VNNI kernel's vpdpbusd sees (Q4_0: the nibbles; Q5_0: the nibbles and
// fifth bits; Q8_0: codes + 128), C = 16 x 16 exact int32 sums, the VNNI kernel's own integers.
// The vector unit then applies the VNNI kernel's float step to each (token, 16 rows): acc +=
// d_w * (d_x * sum - K * s_x), block by block in order, so every output is bit-identical to the
// VNNI kernel's (batch invariance, kernels.h). Two sets of A, B and C tiles alternate: the tile
// unit multiplies block b + 1 while the vector unit scales block b. The last n % 16 tokens run
// as one shorter tile (fewer A and C rows). Below kAmxMinTokens tokens, and when AMX is absent
// or not permitted, the AVX-512 VNNI kernel runs instead.
// Like the other SIMD files, nothing here instantiates library templates (see
// kernels_x86_common.inc).
#include "kernels/kernels_internal.h"
#include "kernels/packed.h"

#if defined(__x86_64__) && defined(HEARTH_CPU_AMX)
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace hearth::cpu::detail {

namespace {

struct TileConfig {
    uint8_t palette = 1;
    uint8_t start_row = 0;
    uint8_t reserved[14] = {};
    uint16_t colsb[16] = {};
    uint8_t rows[16] = {};
};

// Tiles 0, 1: C (m tokens x 16 rows of int32); 2, 3: A (m tokens x 32 codes); 4, 5: B (8 x 64).
void configure_tiles(int m) {
    TileConfig c;
    for (int t = 0; t < 2; ++t) {
        c.colsb[t] = 64;
        c.rows[t] = static_cast<uint8_t>(m);
        c.colsb[2 + t] = 32;
        c.rows[2 + t] = static_cast<uint8_t>(m);
        c.colsb[4 + t] = 64;
        c.rows[4 + t] = 8;
    }
    // Clang does not count ldtilecfg as a reader of the whole configuration and drops the
    // stores above without this barrier (then the first tile load faults as unconfigured).
    __asm__ volatile("" : : "r"(&c) : "memory");
    _tile_loadconfig(&c);
}

// Per-thread buffers: a group's unsigned codes, and d_x and -K * s_x per token and block. On
// 64-byte boundaries: a tile row that straddles two cache lines loads about three times slower.
struct Buf {
    void* p = nullptr;
    size_t cap = 0;
    ~Buf() { std::free(p); }
    bool reserve(size_t bytes) {
        if (cap >= bytes) return true;
        void* q = nullptr;
        if (posix_memalign(&q, 64, bytes) != 0) return false;
        std::free(p);
        p = q;
        cap = bytes;
        return true;
    }
};

// The packed formats the tiles take: their codes and the K of the VNNI kernel's step
// (kernels_x86_packed.inc): Q4_0 nibbles, K = 8; Q5_0 nibbles with the fifth bit, K = 16; Q8_0
// codes + 128, K = 128.
enum class AmxFmt { Q4_0, Q5_0, Q8_0 };

// A group's blocks as B tiles of unsigned codes: per block, rows 0-3 = code pieces 0-3
// (Q4_0 / Q5_0: the low nibbles, elements 4j..4j+3), rows 4-7 = pieces 4-7 (the high nibbles,
// elements 16+4j..; Q8_0: the pieces as stored), Q5_0's fifth bits added from their masks
// (packed.cpp: mask 2j + h, bit i for byte i of the piece), Q8_0's codes moved to 0..255 (+128).
template <AmxFmt F>
void unpack_codes(const uint8_t* group, size_t nb, size_t bb, uint8_t* out) {
    const __m512i low4 = _mm512_set1_epi8(0x0F), flip = _mm512_set1_epi8(static_cast<char>(0x80));
    const __m512i bit5 = _mm512_set1_epi8(0x10);
    for (size_t b = 0; b < nb; ++b) {
        const uint8_t* codes = group + b * bb + 2 * kPackRows;
        uint8_t* o = out + b * 512;
        if constexpr (F == AmxFmt::Q8_0) {
            for (int j = 0; j < 8; ++j)
                _mm512_storeu_si512(o + 64 * j,
                                    _mm512_xor_si512(_mm512_loadu_si512(codes + 64 * j), flip));
        } else {
            for (int j = 0; j < 4; ++j) {
                const __m512i p = _mm512_loadu_si512(codes + 64 * j);
                __m512i lo = _mm512_and_si512(p, low4);
                __m512i hi = _mm512_and_si512(_mm512_srli_epi16(p, 4), low4);
                if constexpr (F == AmxFmt::Q5_0) {
                    const uint8_t* masks = codes + 16 * kPackRows;
                    uint64_t m0, m1;
                    std::memcpy(&m0, masks + 8 * (2 * j), 8);
                    std::memcpy(&m1, masks + 8 * (2 * j + 1), 8);
                    lo = _mm512_or_si512(lo, _mm512_maskz_mov_epi8(m0, bit5));
                    hi = _mm512_or_si512(hi, _mm512_maskz_mov_epi8(m1, bit5));
                }
                _mm512_storeu_si512(o + 64 * j, lo);
                _mm512_storeu_si512(o + 64 * (4 + j), hi);
            }
        }
    }
}

// acc[i] = d_w * (C[i] * d_x(token i, block b) + ms(token i, block b)) + acc[i] for i from I
// to M: the VNNI kernel's float step, operation for operation. dxms holds block b's d_x for 16
// tokens in a row, then their ms = -K * s_x. Unrolled by recursion, not a loop, so that every
// index into acc is a constant when the compiler decides where acc lives: with a loop (and a
// pointer per token for d_x and ms) it kept the accumulators on the stack, a load and a store
// around every multiply-add.
template <int I, int M>
[[gnu::always_inline]] inline void scale_add(const int32_t (*c)[16], __m512 dw, const float* dxms,
                                             __m512* acc) {
    if constexpr (I < M) {
        const __m512 v = _mm512_cvtepi32_ps(_mm512_load_si512(c[I]));
        acc[I] = _mm512_fmadd_ps(
            dw, _mm512_fmadd_ps(v, _mm512_set1_ps(dxms[I]), _mm512_set1_ps(dxms[16 + I])), acc[I]);
        scale_add<I + 1, M>(c, dw, dxms, acc);
    }
}

template <int I, int M>
[[gnu::always_inline]] inline void zero_acc(__m512* acc) {
    if constexpr (I < M) {
        acc[I] = _mm512_setzero_ps();
        zero_acc<I + 1, M>(acc);
    }
}

template <int I, int M>
[[gnu::always_inline]] inline void store_acc(const __m512* acc, float* y, size_t y_stride,
                                             __mmask16 m) {
    if constexpr (I < M) {
        _mm512_mask_storeu_ps(y + size_t(I) * y_stride, m, acc[I]);
        store_acc<I + 1, M>(acc, y, y_stride, m);
    }
}

inline __m512 scales_at(const uint8_t* blk) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk)));
}

// The product of block b into C tile tc from A tile ta and B tile tb (tile numbers must be
// literals: GCC spells them into the instruction).
#define HEARTH_AMX_BLOCK(tc, ta, tb, b)                              \
    do {                                                             \
        _tile_loadd(ta, a0 + 32 * (b), static_cast<long>(x_stride)); \
        _tile_loadd(tb, codes + (b)*512, 64);                        \
        _tile_zero(tc);                                              \
        _tile_dpbsud(tc, ta, tb);                                    \
    } while (0)

// M tokens from c0 (the tile configuration's row count) against group g; dxms holds, per
// block, d_x of the tokens from c0 (16 floats), then their -K * s_x (16 more).
template <int M>
void amx_tile(const PackedWeight& pw, size_t g, const uint8_t* codes, const uint8_t* x,
              size_t x_stride, size_t c0, const float* dxms, float* y, size_t y_stride, size_t r0,
              size_t r1) {
    const size_t nb = pw.nb, bb = pw.block_bytes;
    const uint8_t* group = pw.packed + g * nb * bb;
    const uint8_t* a0 = x + c0 * x_stride;
    __m512 acc[M];
    zero_acc<0, M>(acc);
    alignas(64) int32_t cbuf[2][16][16];
    HEARTH_AMX_BLOCK(0, 2, 4, 0);
    size_t b = 0;
    for (; b + 2 <= nb; b += 2) {
        HEARTH_AMX_BLOCK(1, 3, 5, b + 1);
        _tile_stored(0, cbuf[0], 64);
        if (b + 2 < nb) HEARTH_AMX_BLOCK(0, 2, 4, b + 2);
        scale_add<0, M>(cbuf[0], scales_at(group + b * bb), dxms + 32 * b, acc);
        _tile_stored(1, cbuf[1], 64);
        scale_add<0, M>(cbuf[1], scales_at(group + (b + 1) * bb), dxms + 32 * (b + 1), acc);
    }
    if (b < nb) {  // an odd block count: block nb - 1 is in tile 0
        _tile_stored(0, cbuf[0], 64);
        scale_add<0, M>(cbuf[0], scales_at(group + b * bb), dxms + 32 * b, acc);
    }
    const size_t row0 = g * kPackRows;
    const size_t lo = r0 > row0 ? r0 - row0 : 0;
    const size_t hi = r1 - row0 < kPackRows ? r1 - row0 : kPackRows;
    const auto m = static_cast<__mmask16>(((1u << hi) - 1u) & ~((1u << lo) - 1u));
    store_acc<0, M>(acc, y + c0 * y_stride + row0, y_stride, m);
}

// amx_tile with M = m, 1 <= m <= Max.
template <int Max>
void amx_tail(int m, const PackedWeight& pw, size_t g, const uint8_t* codes, const uint8_t* x,
              size_t x_stride, size_t c0, const float* dxms, float* y, size_t y_stride, size_t r0,
              size_t r1) {
    if constexpr (Max >= 1) {
        if (m == Max)
            return amx_tile<Max>(pw, g, codes, x, x_stride, c0, dxms, y, y_stride, r0, r1);
        amx_tail<Max - 1>(m, pw, g, codes, x, x_stride, c0, dxms, y, y_stride, r0, r1);
    }
}

template <AmxFmt F>
bool amx_run(const PackedWeight& pw, size_t r0, size_t r1, const uint8_t* x, size_t x_stride,
             size_t n, float* y, size_t y_stride) {
    // Tokens in chunks whose prepared rows stay in L2 while the groups pass by (256 rows of
    // 2,048 codes with their scales and sums: 640 KB). Each group's codes are unpacked once a
    // chunk, and in chunks of 64 tokens that (waiting on the codes from memory) was ~40% of the
    // time (perf; cpu_kernel_bench --packed, 2048 x 5632, 512 tokens over 2 threads: 64 tokens
    // a chunk 1,080-1,090 GFLOP/s, 128 1,100-1,170, 256 1,190-1,250, 512 1,140-1,190).
    constexpr size_t kChunk = 256;
    constexpr float kK = F == AmxFmt::Q4_0 ? 8.0f : F == AmxFmt::Q5_0 ? 16.0f : 128.0f;
    thread_local Buf codes_buf, dxms_buf;
    // Per tile of 16 tokens: per block, their d_x and their -K * s_x (amx_tile's dxms).
    const size_t tile_floats = 32 * pw.nb;
    if (!codes_buf.reserve(pw.nb * 512) ||
        !dxms_buf.reserve(kChunk / 16 * tile_floats * sizeof(float)))
        return false;
    auto* codes = static_cast<uint8_t*>(codes_buf.p);
    auto* dxms = static_cast<float*>(dxms_buf.p);
    const size_t g0 = r0 / kPackRows, g1 = (r1 + kPackRows - 1) / kPackRows;
    const size_t gs = pw.nb * pw.block_bytes;
    int configured = 0;
    for (size_t t0 = 0; t0 < n; t0 += kChunk) {
        const size_t t1 = t0 + kChunk < n ? t0 + kChunk : n;
        for (size_t t = t0; t < t1; ++t) {
            const Q8x32Row a = q8x32_row(x + t * x_stride, pw.k);
            float* tile = dxms + (t - t0) / 16 * tile_floats + (t - t0) % 16;
            for (size_t b = 0; b < pw.nb; ++b) {
                tile[32 * b] = a.d[b];
                tile[32 * b + 16] = -kK * a.s[b];
            }
        }
        for (size_t g = g0; g < g1; ++g) {
            unpack_codes<F>(pw.packed + g * gs, pw.nb, pw.block_bytes, codes);
            for (size_t c = t0; c < t1; c += 16) {
                const int m = static_cast<int>(t1 - c < 16 ? t1 - c : 16);
                if (m != configured) {
                    configure_tiles(m);
                    configured = m;
                }
                const float* tile = dxms + (c - t0) / 16 * tile_floats;
                if (m == 16)
                    amx_tile<16>(pw, g, codes, x, x_stride, c, tile, y, y_stride, r0, r1);
                else
                    amx_tail<15>(m, pw, g, codes, x, x_stride, c, tile, y, y_stride, r0, r1);
            }
        }
    }
    if (configured) _tile_release();
    return true;
}

bool amx_product_is_right() {
    configure_tiles(16);
    alignas(64) int8_t a[16][32];
    alignas(64) uint8_t bt[8][64];
    alignas(64) int32_t c[16][16];
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 32; ++j) a[i][j] = static_cast<int8_t>((i * 7 + j * 3) % 255 - 127);
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 64; ++j) bt[i][j] = static_cast<uint8_t>((i * 5 + j * 11) % 251 + 4);
    _tile_loadd(2, a, 32);
    _tile_loadd(4, bt, 64);
    _tile_zero(0);
    _tile_dpbsud(0, 2, 4);
    _tile_stored(0, c, 64);
    _tile_release();
    for (int m = 0; m < 16; ++m)
        for (int n = 0; n < 16; ++n) {
            int s = 0;
            for (int k = 0; k < 32; ++k) s += a[m][k] * bt[k / 4][n * 4 + k % 4];
            if (s != c[m][n]) return false;
        }
    return true;
}

}  // namespace

bool amx_gemm_packed(const PackedWeight& pw, size_t r0, size_t r1, const uint8_t* x,
                     size_t x_stride, size_t n, float* y, size_t y_stride) {
    if (n == 0) return false;
    if (pw.type == quant::Type::Q4_0)
        return amx_run<AmxFmt::Q4_0>(pw, r0, r1, x, x_stride, n, y, y_stride);
    if (pw.type == quant::Type::Q5_0)
        return amx_run<AmxFmt::Q5_0>(pw, r0, r1, x, x_stride, n, y, y_stride);
    if (pw.type == quant::Type::Q8_0)
        return amx_run<AmxFmt::Q8_0>(pw, r0, r1, x, x_stride, n, y, y_stride);
    return false;
}

// Asks Linux for the tile data state (ARCH_REQ_XCOMP_PERM) and checks one product; the caller
// has checked CPUID and XCR0.
bool amx_enable() {
    constexpr long kReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
    if (syscall(SYS_arch_prctl, kReqXcompPerm, kXfeatureXtiledata) != 0) return false;
    return amx_product_is_right();
}

}  // namespace hearth::cpu::detail

#else

namespace hearth::cpu::detail {
bool amx_gemm_packed(const PackedWeight&, size_t, size_t, const uint8_t*, size_t, size_t, float*,
                     size_t) {
    return false;
}
bool amx_enable() {
    return false;
}
}  // namespace hearth::cpu::detail

#endif
