#version 450
// cache [w, cells] (F32/F16/Q8_0/Q4_0) at the cells of positions [T] := a [w, T]. One workgroup
// per token; quantized caches are encoded block by block exactly as the reference encoder does
// (same float operations, `precise`). Bytes are merged into shared 32-bit words atomically:
// 34- and 18-byte blocks straddle words that a neighbouring block (or token) also writes.
// A token whose sequence, position or block table entry falls outside the table or the cache
// is reported (binding 7) and not written.
// u: 0 w, 1 T, 2 cache nb1, 3 a nb1, 4 block size, 5 max blocks, 6 cells, 7 sequences,
//    12 table row bytes, 13 has seq ids, 15 node index + 1
#include "common.glsl"
#include "kv.glsl"
layout(local_size_x = 64) in;

void store_u8(uint o, uint v) {
    const uint sh = (o & 3u) * 8u;
    atomicAnd(buf0.w[o >> 2], ~(0xFFu << sh));
    atomicOr(buf0.w[o >> 2], (v & 0xFFu) << sh);
}
void store_u16(uint o, uint v) {
    const uint sh = (o & 2u) * 8u;
    atomicAnd(buf0.w[o >> 2], ~(0xFFFFu << sh));
    atomicOr(buf0.w[o >> 2], (v & 0xFFFFu) << sh);
}
uint to_half(float v) {
    return packHalf2x16(vec2(v, 0.0)) & 0xFFFFu;
}

void main() {
    const uint t = gl_WorkGroupID.x;
    const uint s = pc.u[13] != 0u ? uint(LOAD_I32(buf6, pc.off[6] + 4u * t)) : 0u;
    const uint p = uint(LOAD_I32(buf4, pc.off[4] + 4u * t));
    const uint cell = s < pc.u[7] ? kv_cell(s, p, pc.u[4], pc.u[5], pc.u[12]) : 0xFFFFFFFFu;
    if (cell >= pc.u[6]) {  // never write outside the cache
        if (gl_LocalInvocationID.x == 0u) report_index_error(3u, int(t));
        return;
    }
    const uint w = pc.u[0];
    const uint ro = pc.off[0] + cell * pc.u[2];
    const uint ao = pc.off[1] + t * pc.u[3];
    const uint tid = gl_LocalInvocationID.x;
    if (KVFMT == T_F32) {
        for (uint i = tid; i < w; i += 64u) STORE_F32(buf0, ro + 4u * i, LOAD_F32(buf1, ao + 4u * i));
        return;
    }
    if (KVFMT == T_F16) {
        for (uint i = tid; i < w; i += 64u) store_u16(ro + 2u * i, to_half(LOAD_F32(buf1, ao + 4u * i)));
        return;
    }
    for (uint blk = tid; blk < w / 32u; blk += 64u) {
        const uint xo = ao + 128u * blk;
        if (KVFMT == T_Q8_0) {
            float amax = 0.0;
            for (uint j = 0u; j < 32u; ++j) amax = max(amax, abs(LOAD_F32(buf1, xo + 4u * j)));
            precise float d = amax / 127.0;
            precise float id = d != 0.0 ? 1.0 / d : 0.0;
            const uint b = ro + 34u * blk;
            store_u16(b, to_half(d));
            for (uint j = 0u; j < 32u; ++j) {
                precise float v = LOAD_F32(buf1, xo + 4u * j) * id;
                // round half away from zero (C's roundf), then clamp
                float r = sign(v) * floor(abs(v) + 0.5);
                if (isnan(r)) r = 0.0;
                r = clamp(r, -127.0, 127.0);
                store_u8(b + 2u + j, uint(int(r)) & 0xFFu);
            }
        } else {  // Q4_0: the largest-magnitude element maps to code 0, keeping its sign
            float amax = 0.0, mx = 0.0;
            for (uint j = 0u; j < 32u; ++j) {
                const float x = LOAD_F32(buf1, xo + 4u * j);
                if (amax < abs(x)) { amax = abs(x); mx = x; }
            }
            precise float d = mx / -8.0;
            precise float id = d != 0.0 ? 1.0 / d : 0.0;
            const uint b = ro + 18u * blk;
            store_u16(b, to_half(d));
            for (uint j = 0u; j < 16u; ++j) {
                precise float v0 = LOAD_F32(buf1, xo + 4u * j) * id + 8.5;
                precise float v1 = LOAD_F32(buf1, xo + 4u * (j + 16u)) * id + 8.5;
                const uint lo = !(v0 >= 0.0) ? 0u : v0 >= 15.0 ? 15u : uint(v0);
                const uint hi = !(v1 >= 0.0) ? 0u : v1 >= 15.0 ? 15u : uint(v1);
                store_u8(b + 2u + j, lo | (hi << 4));
            }
        }
    }
}
