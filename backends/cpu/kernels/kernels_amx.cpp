// AMX-INT8 prefill over packed Q4_0 / Q8_0 weights (packed.h), built with its own target flags.
// One tile product per 32-element block: A = 16 tokens x 32 activation codes (read in place
// from the prepared rows), B = the block group's 8 code pieces x 16 rows (Q8_0: the packed
// bytes as they are; Q4_0: the nibbles unpacked to signed codes once per group), C = 16 x 16
// exact int32 dot products, which the vector unit scales by d_w * d_x and adds into 16 float
// accumulators (one per token, the 16 rows in lanes). Two C tiles alternate so the tile unit
// works on one block while the vector unit scales the other. The last n % 16 tokens run as one
// shorter tile (fewer A and C rows). Below kAmxMinTokens tokens, and when AMX is absent or not
// permitted, the AVX-512 VNNI kernel runs instead.
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

// Tiles 0 and 1: C (m tokens x 16 rows of int32); 2: A (m tokens x 32 codes); 3: B (8 x 64).
void configure_tiles(int m) {
    TileConfig c;
    c.colsb[0] = c.colsb[1] = 64;
    c.rows[0] = c.rows[1] = static_cast<uint8_t>(m);
    c.colsb[2] = 32;
    c.rows[2] = static_cast<uint8_t>(m);
    c.colsb[3] = 64;
    c.rows[3] = 8;
    _tile_loadconfig(&c);
}

// Per-thread buffer for a group's unpacked Q4_0 codes (malloc / free, no library templates).
struct UnpackBuf {
    int8_t* p = nullptr;
    size_t cap = 0;
    ~UnpackBuf() { std::free(p); }
};

// A group's Q4_0 blocks as B tiles: per block, rows 0-3 = the low nibbles of code pieces 0-3
// (elements 4j..4j+3), rows 4-7 = the high nibbles (elements 16+4j..), minus 8.
void unpack_q4(const uint8_t* group, size_t nb, size_t bb, int8_t* out) {
    const __m512i low4 = _mm512_set1_epi8(0x0F), eight = _mm512_set1_epi8(8);
    for (size_t b = 0; b < nb; ++b) {
        const uint8_t* codes = group + b * bb + 2 * kPackRows;
        int8_t* o = out + b * 512;
        for (int j = 0; j < 4; ++j) {
            const __m512i p = _mm512_loadu_si512(codes + 64 * j);
            const __m512i lo = _mm512_sub_epi8(_mm512_and_si512(p, low4), eight);
            const __m512i hi =
                _mm512_sub_epi8(_mm512_and_si512(_mm512_srli_epi16(p, 4), low4), eight);
            _mm512_storeu_si512(o + 64 * j, lo);
            _mm512_storeu_si512(o + 64 * (4 + j), hi);
        }
    }
}

// acc[i] += C[i] * d_w * d_x(token i, block b) for the M tokens of the tile.
template <int M>
inline void scale_add(const int32_t (*c)[16], __m512 dw, const float* const* dx, size_t b,
                      __m512* acc) {
#pragma GCC unroll 16
    for (int i = 0; i < M; ++i) {
        const __m512 v = _mm512_cvtepi32_ps(_mm512_load_si512(c[i]));
        acc[i] = _mm512_fmadd_ps(v, _mm512_mul_ps(dw, _mm512_set1_ps(dx[i][b])), acc[i]);
    }
}

inline __m512 scales_at(const uint8_t* blk) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk)));
}

// M tokens from c0 (the tile configuration's row count) against group g.
template <bool Q4, int M>
void amx_tile(const PackedWeight& pw, size_t g, const int8_t* unpacked, const uint8_t* x,
              size_t x_stride, size_t c0, float* y, size_t y_stride, size_t r0, size_t r1) {
    const size_t nb = pw.nb, bb = pw.block_bytes;
    const uint8_t* group = pw.packed + g * nb * bb;
    const float* dx[M];
    for (int i = 0; i < M; ++i)
        dx[i] = reinterpret_cast<const float*>(x + (c0 + i) * x_stride + pw.k);
    const uint8_t* a0 = x + c0 * x_stride;
    auto bsrc = [&](size_t b) -> const void* {
        if constexpr (Q4)
            return unpacked + b * 512;
        else
            return group + b * bb + 2 * kPackRows;
    };
    __m512 acc[M];
    for (auto& a : acc) a = _mm512_setzero_ps();
    alignas(64) int32_t cbuf[2][16][16];
    size_t b = 0;
    for (; b + 2 <= nb; b += 2) {
        _tile_loadd(2, a0 + 32 * b, static_cast<long>(x_stride));
        _tile_loadd(3, bsrc(b), 64);
        _tile_zero(0);
        _tile_dpbssd(0, 2, 3);
        _tile_loadd(2, a0 + 32 * (b + 1), static_cast<long>(x_stride));
        _tile_loadd(3, bsrc(b + 1), 64);
        _tile_zero(1);
        _tile_dpbssd(1, 2, 3);
        _tile_stored(0, cbuf[0], 64);
        scale_add<M>(cbuf[0], scales_at(group + b * bb), dx, b, acc);
        _tile_stored(1, cbuf[1], 64);
        scale_add<M>(cbuf[1], scales_at(group + (b + 1) * bb), dx, b + 1, acc);
    }
    if (b < nb) {
        _tile_loadd(2, a0 + 32 * b, static_cast<long>(x_stride));
        _tile_loadd(3, bsrc(b), 64);
        _tile_zero(0);
        _tile_dpbssd(0, 2, 3);
        _tile_stored(0, cbuf[0], 64);
        scale_add<M>(cbuf[0], scales_at(group + b * bb), dx, b, acc);
    }
    const size_t row0 = g * kPackRows;
    const size_t lo = r0 > row0 ? r0 - row0 : 0;
    const size_t hi = r1 - row0 < kPackRows ? r1 - row0 : kPackRows;
    const auto m = static_cast<__mmask16>(((1u << hi) - 1u) & ~((1u << lo) - 1u));
    for (int i = 0; i < M; ++i) _mm512_mask_storeu_ps(y + (c0 + i) * y_stride + row0, m, acc[i]);
}

// amx_tile with M = m, 1 <= m <= Max.
template <bool Q4, int Max>
void amx_tail(int m, const PackedWeight& pw, size_t g, const int8_t* unpacked, const uint8_t* x,
              size_t x_stride, size_t c0, float* y, size_t y_stride, size_t r0, size_t r1) {
    if constexpr (Max >= 1) {
        if (m == Max)
            return amx_tile<Q4, Max>(pw, g, unpacked, x, x_stride, c0, y, y_stride, r0, r1);
        amx_tail<Q4, Max - 1>(m, pw, g, unpacked, x, x_stride, c0, y, y_stride, r0, r1);
    }
}

template <bool Q4>
bool amx_run(const PackedWeight& pw, size_t r0, size_t r1, const uint8_t* x, size_t x_stride,
             size_t n, float* y, size_t y_stride) {
    thread_local UnpackBuf ub;
    if (Q4 && ub.cap < pw.nb * 512) {
        auto* p = static_cast<int8_t*>(std::realloc(ub.p, pw.nb * 512));
        if (!p) return false;
        ub.p = p;
        ub.cap = pw.nb * 512;
    }
    const size_t g0 = r0 / kPackRows, g1 = (r1 + kPackRows - 1) / kPackRows;
    const size_t nfull = n / 16 * 16;
    const int tail = static_cast<int>(n - nfull);
    const size_t gs = pw.nb * pw.block_bytes;
    if (nfull > 0) {
        configure_tiles(16);
        // Tokens in chunks whose prepared rows stay in L2 while the groups pass by.
        constexpr size_t kChunk = 64;
        for (size_t t0 = 0; t0 < nfull; t0 += kChunk) {
            const size_t t1 = t0 + kChunk < nfull ? t0 + kChunk : nfull;
            for (size_t g = g0; g < g1; ++g) {
                if constexpr (Q4) unpack_q4(pw.packed + g * gs, pw.nb, pw.block_bytes, ub.p);
                for (size_t c = t0; c < t1; c += 16)
                    amx_tile<Q4, 16>(pw, g, ub.p, x, x_stride, c, y, y_stride, r0, r1);
            }
        }
    }
    if (tail > 0) {  // the last n % 16 tokens: a shorter A and C
        configure_tiles(tail);
        for (size_t g = g0; g < g1; ++g) {
            if constexpr (Q4) unpack_q4(pw.packed + g * gs, pw.nb, pw.block_bytes, ub.p);
            amx_tail<Q4, 15>(tail, pw, g, ub.p, x, x_stride, nfull, y, y_stride, r0, r1);
        }
    }
    _tile_release();
    return true;
}

bool amx_product_is_right() {
    configure_tiles(16);
    alignas(64) int8_t a[16][32], bt[8][64];
    alignas(64) int32_t c[16][16];
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 32; ++j) a[i][j] = static_cast<int8_t>((i * 7 + j * 3) % 255 - 127);
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 64; ++j) bt[i][j] = static_cast<int8_t>((i * 5 + j * 11) % 251 - 125);
    _tile_loadd(2, a, 32);
    _tile_loadd(3, bt, 64);
    _tile_zero(0);
    _tile_dpbssd(0, 2, 3);
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
    if (pw.type == quant::Type::Q4_0) return amx_run<true>(pw, r0, r1, x, x_stride, n, y, y_stride);
    if (pw.type == quant::Type::Q8_0)
        return amx_run<false>(pw, r0, r1, x, x_stride, n, y, y_stride);
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
