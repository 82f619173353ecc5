#version 450
// dst F32 [m, T] = W [k, m] (any weight format) x X F32 [k, T]. A workgroup of 64 threads takes
// 8 weight rows (8 threads per row) and a tile of up to 8 columns: each weight element is
// decoded once and used for every column of the tile (decode is T = 1: matrix-vector; prefill
// reuses each decoded weight 8 times), four consecutive elements per step. The 8 partial sums of a row are reduced with subgroup
// shuffles (USE_SUBGROUP: a row's 8 lanes always lie in one subgroup of 8 or more) or through
// shared memory.
// u: 0 k, 1 rows in this chunk, 2 T, 3 W row bytes, 4 X row bytes, 5 dst row bytes,
//    6 first dst row of the chunk, 7 workgroups per z slice of the grid
#include "common.glsl"
#include "decode.glsl"
#ifdef USE_SUBGROUP
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
layout(local_size_x = 64) in;

const uint NC = 8u;   // columns per tile
const uint TPR = 8u;  // threads per row
const uint RPW = 8u;  // rows per workgroup
#ifndef USE_SUBGROUP
shared float partial[NC][64];
#endif

void main() {
    const uint tid = gl_LocalInvocationID.x;
    const uint lane = tid % TPR;
    const uint row = (gl_WorkGroupID.z * pc.u[7] + gl_WorkGroupID.x) * RPW + tid / TPR;
    const bool live = row < pc.u[1];
    const uint c0 = gl_WorkGroupID.y * NC;
    const uint nc = min(NC, pc.u[2] - c0);
    const uint ro = pc.off[1] + row * pc.u[3];
    float acc[NC];
    [[unroll]] for (uint c = 0u; c < NC; ++c) acc[c] = 0.0;
    if (live) {
        // Four consecutive elements per step; a row whose length is not a multiple of 4 (only
        // F32/F16/BF16 allow it) finishes element by element.
        const uint k4 = pc.u[0] & ~3u;
        for (uint i = 4u * lane; i < k4; i += 4u * TPR) {
            const vec4 wv = weight_at4(ro, i);
            [[unroll]] for (uint c = 0u; c < NC; ++c) {
                if (c < nc) {
                    const uint xo = (pc.off[2] + (c0 + c) * pc.u[4] + 4u * i) >> 2;
                    acc[c] += dot(wv, vec4(uintBitsToFloat(buf2.w[xo]), uintBitsToFloat(buf2.w[xo + 1u]),
                                           uintBitsToFloat(buf2.w[xo + 2u]),
                                           uintBitsToFloat(buf2.w[xo + 3u])));
                }
            }
        }
        for (uint i = k4 + lane; i < pc.u[0]; i += TPR) {
            const float wv = weight_at(ro, i);
            [[unroll]] for (uint c = 0u; c < NC; ++c) {
                if (c < nc) acc[c] += wv * LOAD_F32(buf2, pc.off[2] + (c0 + c) * pc.u[4] + 4u * i);
            }
        }
    }
#ifdef USE_SUBGROUP
    [[unroll]] for (uint c = 0u; c < NC; ++c) {
        [[unroll]] for (uint o = TPR / 2u; o > 0u; o >>= 1) acc[c] += subgroupShuffleXor(acc[c], o);
    }
    if (live && lane < nc) {
        float s = acc[0];
        [[unroll]] for (uint c = 1u; c < NC; ++c) if (c == lane) s = acc[c];
        STORE_F32(buf0, pc.off[0] + (c0 + lane) * pc.u[5] + 4u * (pc.u[6] + row), s);
    }
#else
    [[unroll]] for (uint c = 0u; c < NC; ++c) partial[c][tid] = acc[c];
    barrier();
    if (live && lane < nc) {
        float s = 0.0;
        const uint base = tid - lane;
        [[unroll]] for (uint l = 0u; l < TPR; ++l) s += partial[lane][base + l];
        STORE_F32(buf0, pc.off[0] + (c0 + lane) * pc.u[5] + 4u * (pc.u[6] + row), s);
    }
#endif
}
