// Packing Q4_K / Q6_K super-blocks into 16-row groups (layout in packed_k.h).
#include "kernels/packed_k.h"

#include <cstring>

namespace hearth::cpu::packk {

namespace {
constexpr size_t kRows = 16;
}

void pack_superblock_q4k(const uint8_t* const* blk, size_t nrows, uint8_t* out) {
    std::memset(out, 0, kRows * kQ4KBlock);
    for (size_t r = 0; r < nrows && r < kRows; ++r) {
        const uint8_t* b = blk[r];
        std::memcpy(out + kQ4KD + 2 * r, b, 2);
        std::memcpy(out + kQ4KDmin + 2 * r, b + 2, 2);
        for (size_t w = 0; w < 3; ++w)
            std::memcpy(out + kQ4KWords + 64 * w + 4 * r, b + 4 + 4 * w, 4);
        for (size_t piece = 0; piece < 32; ++piece)  // chunk c = piece / 8, p = piece % 8
            std::memcpy(out + kQ4KCodes + piece * 64 + 4 * r, b + 16 + 4 * piece, 4);
    }
}

void pack_superblock_q6k(const uint8_t* const* blk, size_t nrows, uint8_t* out) {
    std::memset(out, 0, kRows * kQ6KBlock);
    for (size_t r = 0; r < nrows && r < kRows; ++r) {
        const uint8_t* b = blk[r];
        const uint8_t* ql = b;
        const uint8_t* qh = b + 128;
        std::memcpy(out + kQ6KD + 2 * r, b + 208, 2);
        for (size_t g = 0; g < 16; ++g) out[kQ6KScales + 16 * g + r] = b[192 + g];
        // The file's code e (0..255): half h = e / 128, part k = (e % 128) / 32, l = e % 32;
        // low 4 bits in ql[64 h + 32 (k & 1) + l] (nibble k >> 1), high 2 in qh[32 h + l] bits 2k.
        auto low4 = [&](size_t e) -> uint8_t {
            const size_t h = e / 128, k = (e % 128) / 32, l = e % 32;
            return static_cast<uint8_t>((ql[64 * h + 32 * (k & 1) + l] >> (4 * (k >> 1))) & 15);
        };
        auto high2 = [&](size_t e) -> uint8_t {
            const size_t h = e / 128, k = (e % 128) / 32, l = e % 32;
            return static_cast<uint8_t>((qh[32 * h + l] >> (2 * k)) & 3);
        };
        for (size_t g = 0; g < 16; ++g) {
            uint8_t* o = out + kQ6KCodes + kQ6KGroupBytes * g + 4 * r;
            const size_t e0 = 16 * g;
            for (size_t t = 0; t < 4; ++t) {
                o[t] = static_cast<uint8_t>(low4(e0 + t) | (low4(e0 + 8 + t) << 4));
                o[64 + t] = static_cast<uint8_t>(low4(e0 + 4 + t) | (low4(e0 + 12 + t) << 4));
                o[128 + t] =
                    static_cast<uint8_t>(high2(e0 + t) | (high2(e0 + 4 + t) << 2) |
                                         (high2(e0 + 8 + t) << 4) | (high2(e0 + 12 + t) << 6));
            }
        }
    }
}

void unpack_superblock_q4k(const uint8_t* in, size_t r, uint8_t* b) {
    std::memcpy(b, in + kQ4KD + 2 * r, 2);
    std::memcpy(b + 2, in + kQ4KDmin + 2 * r, 2);
    for (size_t w = 0; w < 3; ++w) std::memcpy(b + 4 + 4 * w, in + kQ4KWords + 64 * w + 4 * r, 4);
    for (size_t piece = 0; piece < 32; ++piece)
        std::memcpy(b + 16 + 4 * piece, in + kQ4KCodes + piece * 64 + 4 * r, 4);
}

void unpack_superblock_q6k(const uint8_t* in, size_t r, uint8_t* b) {
    uint8_t* ql = b;
    uint8_t* qh = b + 128;
    std::memset(b, 0, 192);
    std::memcpy(b + 208, in + kQ6KD + 2 * r, 2);
    for (size_t g = 0; g < 16; ++g) b[192 + g] = in[kQ6KScales + 16 * g + r];
    // Code e's bits back where pack_superblock_q6k took them from.
    auto put = [&](size_t e, unsigned low4, unsigned high2) {
        const size_t h = e / 128, k = (e % 128) / 32, l = e % 32;
        ql[64 * h + 32 * (k & 1) + l] |= static_cast<uint8_t>((low4 & 15) << (4 * (k >> 1)));
        qh[32 * h + l] |= static_cast<uint8_t>((high2 & 3) << (2 * k));
    };
    for (size_t g = 0; g < 16; ++g) {
        const uint8_t* o = in + kQ6KCodes + kQ6KGroupBytes * g + 4 * r;
        const size_t e0 = 16 * g;
        for (size_t t = 0; t < 4; ++t) {
            const unsigned hi = o[128 + t];
            put(e0 + t, o[t], hi);
            put(e0 + 8 + t, o[t] >> 4, hi >> 4);
            put(e0 + 4 + t, o[64 + t], hi >> 2);
            put(e0 + 12 + t, o[64 + t] >> 4, hi >> 6);
        }
    }
}

}  // namespace hearth::cpu::packk
