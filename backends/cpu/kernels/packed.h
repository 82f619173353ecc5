// Weights repacked for the SIMD kernels (Q4_0, Q5_0 and Q8_0): rows in groups of 16, and within a
// group each 32-element block stored as the 16 rows' scales (f16) followed by the codes in
// 4-byte pieces, row by row (piece j of rows 0..15, then piece j + 1, ...). One 64-byte load then
// feeds 16 rows at once (one row per 32-bit lane of vpdpbusd), the scales load as one vector,
// the 16 results of a tile land in 16 adjacent outputs, and each decoded block serves every
// token of the tile. The codes are the file's bytes moved, never re-quantized, so the numbers
// are the weights' own; a block group is exactly 16 file blocks long (no extra bytes). Q5_0's
// fifth bits follow its nibbles as byte masks over the code pieces (packed.cpp).
// Q4_K and Q6_K use the same 16-row groups over 256-element super-blocks (packed_k.h); F16 and BF16
// (for the AVX-512 kernels only) 16-row groups of 4-row quads, below.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "quant/quant_type.h"

namespace hearth::cpu {

constexpr size_t kPackRows = 16;
// F16 and BF16 rows are packed in quads of 4 rows (a 16-row group is 4 quads, one after another): a
// quad is a run of 128-byte pieces, piece b holding its rows' elements [16 b, 16 b + 16) one row
// after another. A tile of 4 rows then reads one stream, and decode streams each matrix in
// order.
constexpr size_t kF16Piece = 16, kF16QuadRows = 4;

// Bytes of one file-format block of the 32-element types packed here (Q4_0, Q5_0, Q8_0); a
// block group is kPackRows of them.
constexpr size_t q32_block_bytes(quant::Type t) {
    return t == quant::Type::Q4_0 ? 18 : t == quant::Type::Q5_0 ? 22 : 34;
}

struct PackedWeight {
    quant::Type type = quant::Type::F32;
    size_t k = 0;            // row length (a multiple of 32; of 256 for Q4_K / Q6_K)
    size_t rows = 0;         // real rows; the last group is padded with zero rows (scale 0)
    size_t nb = 0;           // blocks (K-quants: super-blocks) per row
    size_t block_bytes = 0;  // bytes of one block group (16 rows' blocks)
    const uint8_t* original = nullptr;  // the file-format rows (kernels without a packed path)
    struct Free {
        void operator()(uint8_t* p) const;
    };
    std::unique_ptr<uint8_t, Free> data;
    // data.get(), for the SIMD files (they must not instantiate library templates; see
    // kernels_x86_common.inc)
    uint8_t* packed = nullptr;
    size_t bytes = 0;
    size_t groups() const { return (rows + kPackRows - 1) / kPackRows; }
};

// Memory for a large buffer streamed through once per use (a packed copy; the bandwidth
// probe's buffer, so that it reads the same kind of pages): 64-byte aligned, and from 2 MiB
// up on transparent huge pages where the system grants them. Free with std::free; nullptr
// when out of memory.
uint8_t* alloc_streamed(size_t bytes);

// Whether pack_weight takes this type / row length (Q4_0, Q5_0, Q8_0 with k a multiple of 32; Q4_K,
// Q6_K with k a multiple of 256).
bool packable(quant::Type t, size_t k);
// Allocates the packed form of `rows` rows (nullptr: not packable, or out of memory); fill it
// with pack_groups (any split of [0, groups()) across threads).
std::unique_ptr<PackedWeight> make_packed(quant::Type t, const void* w, size_t k, size_t rows);
void pack_groups(PackedWeight& pw, size_t g0, size_t g1);

// Row `row` (< pw.rows) in the file's format, rebuilt from the packed copy (packing only moves
// the file's bytes): quant::row_bytes(pw.type, pw.k) bytes to `out`. What a lookup of single rows
// (a tied embedding table's GetRows) reads once the file's pages of the matrix are handed back.
void unpack_row(const PackedWeight& pw, size_t row, uint8_t* out);

// gemm over the packed rows (n = 1 is the decode case), the contract of gemm() in kernels.h:
// Y[j * y_stride + i] = dot(row i, X_j) for i in [row_begin, row_end), nothing else written.
// Without a packed kernel for the active ISA (scalar) it runs gemm/gemv on `original`.
void gemm_packed(const PackedWeight& pw, size_t row_begin, size_t row_end, const void* xq,
                 size_t xq_stride, size_t n, float* y, size_t y_stride);

// Whether the active ISA runs packed weights with its own kernel (else the fallback above).
bool packed_kernel_active();

}  // namespace hearth::cpu
