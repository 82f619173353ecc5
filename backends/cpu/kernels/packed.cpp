// Packing Q4_0 / Q5_0 / Q8_0 / F16 / BF16 rows into 16-row groups (layouts in packed.h; Q4_K /
// Q6_K in packed_k.h) and the dispatch of the packed kernels by ISA.
#include "kernels/packed.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "kernels/kernels_internal.h"
#include "kernels/packed_k.h"

namespace hearth::cpu {

namespace {

constexpr size_t kScaleBytes = 2 * kPackRows;  // 16 f16 scales
constexpr size_t kHugePage = size_t{2} << 20;

bool two_byte(quant::Type t) {
    return t == quant::Type::F16 || t == quant::Type::BF16;
}

bool k_quant(quant::Type t) {
    return t == quant::Type::Q4_K || t == quant::Type::Q6_K;
}

size_t file_block_bytes(quant::Type t) {
    switch (t) {
        case quant::Type::F16:
        case quant::Type::BF16:
            return 2 * kF16Piece;
        case quant::Type::Q4_K:
            return packk::kQ4KBlock;
        case quant::Type::Q6_K:
            return packk::kQ6KBlock;
        default:
            return q32_block_bytes(t);
    }
}

size_t block_elems(quant::Type t) {
    return two_byte(t) ? kF16Piece : k_quant(t) ? 256 : 32;
}

// Q5_0's fifth bits (file block: f16 d, 32 bits qh, 16 bytes of nibbles; the scales and nibbles
// are packed as Q4_0's) become 8 masks of 64 bits after the nibbles, mask 2j + h for code piece
// j's low (h = 0) or high (h = 1) nibbles: bit 4r + t is the fifth bit of row r's element
// 16h + 4j + t, so bit i belongs to byte i of the 64-byte piece vector (an AVX-512 byte mask as it
// is; AVX2 reads its 8 rows' 32 bits).
void pack_fifth_bits(const uint8_t* blk, size_t r, uint8_t* out) {
    uint8_t* masks = out + kScaleBytes + 16 * kPackRows;
    const uint32_t qh =
        uint32_t(blk[2]) | uint32_t(blk[3]) << 8 | uint32_t(blk[4]) << 16 | uint32_t(blk[5]) << 24;
    for (size_t j = 0; j < 4; ++j)
        for (size_t h = 0; h < 2; ++h)
            for (size_t t = 0; t < 4; ++t)
                if ((qh >> (16 * h + 4 * j + t)) & 1u) {
                    const size_t bit = 4 * r + t;
                    masks[(2 * j + h) * 8 + bit / 8] |= uint8_t(1u << (bit % 8));
                }
}

}  // namespace

void PackedWeight::Free::operator()(uint8_t* p) const {
    std::free(p);
}

uint8_t* alloc_streamed(size_t bytes) {
    // A buffer of 2 MiB or more starts on a huge page; its size is rounded up to the alignment,
    // as aligned_alloc asks: the pages past `bytes` are never touched, so they cost no memory.
    const size_t align = bytes >= kHugePage ? kHugePage : 64;
    const size_t alloc = (bytes + align - 1) / align * align;
    auto* p = static_cast<uint8_t*>(std::aligned_alloc(align, alloc));
#ifdef MADV_HUGEPAGE
    // Transparent huge pages for its whole 2 MiB pages (where the system gives them on request,
    // the usual setting): the file's own pages come from the page cache, often in large
    // folios, while this memory came in 4 KiB pages, and a decode step that streams every
    // weight once walked a page table at every 4 KiB. Tinyllama decoding, 2 threads, three
    // alternating rounds: Q4_0 83-95 -> 94-102 tok/s (and steadier: +-12 -> +-5 within a
    // run), F16 20.0-23.2 -> 21.6-24.2.
    if (const size_t huge = bytes / kHugePage * kHugePage; p && huge > 0)
        madvise(p, huge, MADV_HUGEPAGE);
#endif
    return p;
}

bool packable(quant::Type t, size_t k) {
    if (k == 0) return false;
    if (t == quant::Type::Q4_0 || t == quant::Type::Q5_0 || t == quant::Type::Q8_0)
        return k % 32 == 0;
    // F16 / BF16 only where a kernel reads them packed (AVX-512: a piece is one vector a row).
    if (two_byte(t)) return k % kF16Piece == 0 && active_isa() == Isa::Avx512;
    return k_quant(t) && k % 256 == 0;
}

std::unique_ptr<PackedWeight> make_packed(quant::Type t, const void* w, size_t k, size_t rows) {
    if (!packable(t, k) || rows == 0 || !w) return nullptr;
    auto pw = std::unique_ptr<PackedWeight>(new (std::nothrow) PackedWeight());
    if (!pw) return nullptr;
    pw->type = t;
    pw->k = k;
    pw->rows = rows;
    pw->nb = k / block_elems(t);
    pw->block_bytes = kPackRows * file_block_bytes(t);
    pw->original = static_cast<const uint8_t*>(w);
    pw->bytes = pw->groups() * pw->nb * pw->block_bytes;
    // (64-byte aligned: the code pieces of a block group start on a cache line pair.)
    pw->data.reset(alloc_streamed(pw->bytes));
    if (!pw->data) return nullptr;
    pw->packed = pw->data.get();
    return pw;
}

void pack_groups(PackedWeight& pw, size_t g0, size_t g1) {
    const size_t fb = file_block_bytes(pw.type);
    const size_t rb = pw.nb * fb;
    if (k_quant(pw.type)) {
        const uint8_t* blk[kPackRows];
        for (size_t g = g0; g < g1; ++g) {
            const size_t n = std::min(kPackRows, pw.rows - g * kPackRows);
            for (size_t b = 0; b < pw.nb; ++b) {
                for (size_t r = 0; r < n; ++r)
                    blk[r] = pw.original + (g * kPackRows + r) * rb + b * fb;
                uint8_t* out = pw.packed + (g * pw.nb + b) * pw.block_bytes;
                if (pw.type == quant::Type::Q4_K)
                    packk::pack_superblock_q4k(blk, n, out);
                else
                    packk::pack_superblock_q6k(blk, n, out);
            }
        }
        return;
    }
    if (two_byte(pw.type)) {
        // Row r of a group: quad r / 4, 32 bytes at 32 (r % 4) in each of the quad's pieces.
        const size_t piece = kF16QuadRows * fb, quad = pw.nb * piece;
        for (size_t g = g0; g < g1; ++g)
            for (size_t r = 0; r < kPackRows; ++r) {
                const size_t row = g * kPackRows + r;
                uint8_t* out = pw.packed + g * pw.nb * pw.block_bytes + (r / kF16QuadRows) * quad +
                               (r % kF16QuadRows) * fb;
                for (size_t b = 0; b < pw.nb; ++b, out += piece) {
                    if (row < pw.rows)
                        std::memcpy(out, pw.original + row * rb + b * fb, fb);
                    else
                        std::memset(out, 0, fb);
                }
            }
        return;
    }
    // After the f16 scale: Q4_0 16 bytes of codes (two nibbles a byte), Q8_0 32, Q5_0 the 4
    // bytes of fifth bits and then 16 of nibbles.
    const bool q5 = pw.type == quant::Type::Q5_0;
    const size_t code_offset = q5 ? 6 : 2;
    const size_t code_bytes = fb - code_offset;
    for (size_t g = g0; g < g1; ++g)
        for (size_t b = 0; b < pw.nb; ++b) {
            uint8_t* out = pw.packed + (g * pw.nb + b) * pw.block_bytes;
            std::memset(out, 0, pw.block_bytes);
            for (size_t r = 0; r < kPackRows; ++r) {
                const size_t row = g * kPackRows + r;
                if (row >= pw.rows) break;
                const uint8_t* blk = pw.original + row * rb + b * fb;
                std::memcpy(out + 2 * r, blk, 2);  // the f16 scale
                for (size_t j = 0; j < code_bytes / 4; ++j)
                    std::memcpy(out + kScaleBytes + j * 4 * kPackRows + 4 * r,
                                blk + code_offset + 4 * j, 4);
                if (q5) pack_fifth_bits(blk, r, out);
            }
        }
}

void unpack_row(const PackedWeight& pw, size_t row, uint8_t* out) {
    const size_t fb = file_block_bytes(pw.type);
    const size_t g = row / kPackRows, r = row % kPackRows;
    const uint8_t* group = pw.packed + g * pw.nb * pw.block_bytes;
    if (k_quant(pw.type)) {
        for (size_t b = 0; b < pw.nb; ++b) {
            const uint8_t* in = group + b * pw.block_bytes;
            if (pw.type == quant::Type::Q4_K)
                packk::unpack_superblock_q4k(in, r, out + b * fb);
            else
                packk::unpack_superblock_q6k(in, r, out + b * fb);
        }
        return;
    }
    if (two_byte(pw.type)) {
        const size_t piece = kF16QuadRows * fb, quad = pw.nb * piece;
        const uint8_t* in = group + (r / kF16QuadRows) * quad + (r % kF16QuadRows) * fb;
        for (size_t b = 0; b < pw.nb; ++b) std::memcpy(out + b * fb, in + b * piece, fb);
        return;
    }
    const bool q5 = pw.type == quant::Type::Q5_0;
    const size_t code_offset = q5 ? 6 : 2;
    const size_t code_bytes = fb - code_offset;
    for (size_t b = 0; b < pw.nb; ++b) {
        const uint8_t* in = group + b * pw.block_bytes;
        uint8_t* blk = out + b * fb;
        std::memcpy(blk, in + 2 * r, 2);
        for (size_t j = 0; j < code_bytes / 4; ++j)
            std::memcpy(blk + code_offset + 4 * j, in + kScaleBytes + j * 4 * kPackRows + 4 * r, 4);
        if (q5) {  // pack_fifth_bits backwards
            const uint8_t* masks = in + kScaleBytes + 16 * kPackRows;
            uint32_t qh = 0;
            for (size_t j = 0; j < 4; ++j)
                for (size_t h = 0; h < 2; ++h)
                    for (size_t t = 0; t < 4; ++t) {
                        const size_t bit = 4 * r + t;
                        if ((masks[(2 * j + h) * 8 + bit / 8] >> (bit % 8)) & 1u)
                            qh |= 1u << (16 * h + 4 * j + t);
                    }
            for (size_t i = 0; i < 4; ++i) blk[2 + i] = static_cast<uint8_t>(qh >> (8 * i));
        }
    }
}

bool amx_active() {
    return active_isa() == Isa::Avx512 && detail::cpu_has_amx();
}

std::string_view stream_prefetch_name() {
    if (detail::simd_for(active_isa()) == nullptr) return "none";
    return detail::g_stream_prefetch_nta ? "nta" : "l2";
}

bool packed_kernel_active() {
    return detail::simd_for(active_isa()) != nullptr;
}

void gemm_packed(const PackedWeight& pw, size_t row_begin, size_t row_end, const void* xq,
                 size_t xq_stride, size_t n, float* y, size_t y_stride) {
    if (row_end > pw.rows) row_end = pw.rows;
    if (row_end <= row_begin || n == 0) return;
    const auto* x = static_cast<const uint8_t*>(xq);
    // Prefill and batched decode on AMX tiles (kernels_amx.cpp), which repeat the VNNI kernel's
    // arithmetic exactly (so not under the AVX-512 kernel without VNNI, whose Q8_0 step differs).
    if (n >= detail::kAmxMinTokens && active_isa() == Isa::Avx512 && detail::cpu_has_amx() &&
        detail::cpu_has_avx512vnni())
        if (detail::amx_gemm_packed(pw, row_begin, row_end, x, xq_stride, n, y, y_stride)) return;
    if (const auto* simd = detail::simd_for(active_isa()))
        if (simd->gemm_packed(pw, row_begin, row_end, x, xq_stride, n, y, y_stride)) return;
    if (n == 1) {
        gemv(pw.type, pw.original, pw.k, row_begin, row_end, xq, y + row_begin);
        return;
    }
    gemm(pw.type, pw.original, pw.k, row_begin, row_end, xq, xq_stride, n, y, y_stride);
}

}  // namespace hearth::cpu
