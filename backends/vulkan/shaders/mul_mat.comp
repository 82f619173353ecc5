#version 450
// dst F32 [m, T] = W [k, m] (any weight format) x X F32 [k, T]. One workgroup per weight row
// and tile of up to 8 columns: each weight element is decoded once and used for every column
// of the tile (decode is T = 1: a matrix-vector product; prefill reuses each row 8 times).
// The partial sums are reduced with subgroup arithmetic (USE_SUBGROUP) or shared memory.
// u: 0 k, 1 rows in this chunk, 2 T, 3 W row bytes, 4 X row bytes, 5 dst row bytes,
//    6 first dst row of the chunk, 7 rows per z slice of the grid
#include "common.glsl"
#include "decode.glsl"
#ifdef USE_SUBGROUP
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_basic : require
#endif
layout(local_size_x = 64) in;

const uint NC = 8u;
shared float partial[NC][64];

void main() {
    const uint row = gl_WorkGroupID.z * pc.u[7] + gl_WorkGroupID.x;
    if (row >= pc.u[1]) return;
    const uint c0 = gl_WorkGroupID.y * NC;
    const uint nc = min(NC, pc.u[2] - c0);
    const uint tid = gl_LocalInvocationID.x;
    const uint ro = pc.off[1] + row * pc.u[3];
    float acc[NC];
    [[unroll]] for (uint c = 0u; c < NC; ++c) acc[c] = 0.0;
    for (uint i = tid; i < pc.u[0]; i += 64u) {
        const float wv = weight_at(ro, i);
        [[unroll]] for (uint c = 0u; c < NC; ++c) {
            if (c < nc) acc[c] += wv * LOAD_F32(buf2, pc.off[2] + (c0 + c) * pc.u[4] + 4u * i);
        }
    }
#ifdef USE_SUBGROUP
    [[unroll]] for (uint c = 0u; c < NC; ++c) {
        const float s = subgroupAdd(acc[c]);
        if (subgroupElect()) partial[c][gl_SubgroupID] = s;
    }
    barrier();
    if (tid < nc) {
        float s = 0.0;
        for (uint g = 0u; g < gl_NumSubgroups; ++g) s += partial[tid][g];
        STORE_F32(buf0, pc.off[0] + (c0 + tid) * pc.u[5] + 4u * (pc.u[6] + row), s);
    }
#else
    [[unroll]] for (uint c = 0u; c < NC; ++c) partial[c][tid] = acc[c];
    barrier();
    for (uint s = 32u; s > 0u; s >>= 1) {
        if (tid < s) {
            [[unroll]] for (uint c = 0u; c < NC; ++c) partial[c][tid] += partial[c][tid + s];
        }
        barrier();
    }
    if (tid < nc)
        STORE_F32(buf0, pc.off[0] + (c0 + tid) * pc.u[5] + 4u * (pc.u[6] + row), partial[tid][0]);
#endif
}
