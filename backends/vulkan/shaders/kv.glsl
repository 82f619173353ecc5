// KV cache addressing and decoding. Bindings: 4 positions [T], 5 block table [blocks, seqs]
// (row stride u12), 6 sequence ids [T] (when u13 != 0). KVFMT is the cache type.
layout(constant_id = 0) const uint KVFMT = 0;

// The cell of position p of sequence s, or 0xFFFFFFFF when the table has no such block.
uint kv_cell(uint s, uint p, uint bs, uint max_blocks, uint bt_stride) {
    const uint blk = p / bs;
    if (blk >= max_blocks) return 0xFFFFFFFFu;
    const int b = LOAD_I32(buf5, pc.off[5] + s * bt_stride + 4u * blk);
    if (b < 0) return 0xFFFFFFFFu;
    return uint(b) * bs + p % bs;
}

// Bytes of a Q8_0 / Q4_0 block, and the code (no scale) of element j < 32 of the block at
// byte b of binding B.
const uint KV_BLOCK_BYTES = KVFMT == T_Q8_0 ? 34u : 18u;
#define KV_CODE(B, b, j)                                                             \
    (KVFMT == T_Q8_0 ? int(LOAD_U8(B, (b) + 2u + (j)) << 24) >> 24                  \
                     : int((j) < 16u ? LOAD_U8(B, (b) + 2u + ((j) & 15u)) & 15u        \
                                     : LOAD_U8(B, (b) + 2u + ((j) & 15u)) >> 4) - 8)

// Element i of a cache row at byte ro of binding B (F32, F16, Q8_0, Q4_0).
#define KV_GETTER(NAME, B, BH)                                                      \
    float NAME(uint ro, uint i) {                                                   \
        if (KVFMT == T_F32) return LOAD_F32(B, ro + 4u * i);                        \
        if (KVFMT == T_F16) return LOAD_HALF(BH, B, ro + 2u * i);                   \
        const uint b = ro + KV_BLOCK_BYTES * (i >> 5);                              \
        return float(KV_CODE(B, b, i & 31u)) * LOAD_HALF(BH, B, b);                 \
    }
