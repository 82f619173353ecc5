// Packed Q4_K / Q6_K weights (see packed.h for the Q4_0 / Q8_0 ones): the same 16-row groups,
// one 256-element super-block of the 16 rows at a time, laid out so that one 64-byte load feeds
// vpdpbusd with 4 codes of each of the 16 rows (one row per 32-bit lane). A packed super-block
// group is exactly as large as the 16 file blocks; nothing is re-quantized or pre-expanded.
//
// Q4_K (16 x 144 = 2304 bytes per super-block group):
//   [0, 32)      the 16 rows' d (f16)
//   [32, 64)     the 16 rows' dmin (f16)
//   [64, 256)    the 12 packed 6-bit scale / min bytes as three 32-bit words: word w of row r at
//                64 + 64 w + 4 r (the kernel unpacks all 16 rows' scales with lane-wise shifts)
//   [256, 2304)  codes: the file's 32-byte chunk c (c = 0..3: low nibbles sub-block 2c, high
//                nibbles 2c + 1) in 4-byte pieces p = 0..7, at 256 + (8 c + p) * 64 + 4 r
// Q6_K (16 x 210 = 3360 bytes per super-block group):
//   [0, 32)      the 16 rows' d (f16)
//   [32, 288)    the 16 int8 scales: scale g of row r at 32 + 16 g + r
//   [288, 3360)  per 16-element group g (elements 16 g + i, i = 0..15), 192 bytes at
//                288 + 192 g: three 64-byte vectors N0, N1, H with 4 bytes per row (row r at 4 r);
//                byte t (t = 0..3) of a row holds
//                  N0: low 4 bits of codes i = t (low nibble) and i = 8 + t (high nibble)
//                  N1: low 4 bits of codes i = 4 + t and i = 12 + t
//                  H:  the high 2 bits of codes i = t, 4 + t, 8 + t, 12 + t (bits 0-1, 2-3, 4-5,
//                      6-7)
//                the file's 6-bit codes with their bits regrouped so that one group's 16 codes
//                sit together (the file spreads a group over ql / qh bytes shared with others).
#pragma once

#include <cstddef>
#include <cstdint>

namespace hearth::cpu::packk {

constexpr size_t kQ4KBlock = 144, kQ6KBlock = 210;
constexpr size_t kQ4KD = 0, kQ4KDmin = 32, kQ4KWords = 64, kQ4KCodes = 256;
constexpr size_t kQ6KD = 0, kQ6KScales = 32, kQ6KCodes = 288, kQ6KGroupBytes = 192;

// One super-block group: blk[r] is row r's file block for r < nrows (nrows <= 16); the rows
// from nrows on are padding (all bytes zero: scale 0). `out` gets 16 file blocks' bytes.
void pack_superblock_q4k(const uint8_t* const* blk, size_t nrows, uint8_t* out);
void pack_superblock_q6k(const uint8_t* const* blk, size_t nrows, uint8_t* out);
// The inverses for one row: row r's file block from a packed super-block group.
void unpack_superblock_q4k(const uint8_t* in, size_t r, uint8_t* blk);
void unpack_superblock_q6k(const uint8_t* in, size_t r, uint8_t* blk);

}  // namespace hearth::cpu::packk
