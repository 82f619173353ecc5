#version 450
// Mixture of experts: dst F32 [m, k, T] = W[ids[j, t]] [n, m] x X[:, j or 0, t], W [n, m, E] in
// any weight format (binding 1), X F32 (2), ids I32 [k, T] (3). One workgroup per (output row,
// slot j, token t); only the chosen experts' rows are read, once per slot: decode and small
// batches. Prefill batches run moe_group.comp + moe_mat_mul_tiled.comp instead.
// u: 0 n, 1 m, 2 k, 3 W nb1, 4 W nb2, 5 X nb1, 6 X nb2, 7 X has k slots, 8 dst nb1, 9 dst nb2,
//    10 ids nb1, 11 experts, 12 rows per z slice, 15 node index + 1
// An expert id outside [0, experts) is reported (binding 7) and its output left as it was.
#include "common.glsl"
#include "decode.glsl"
layout(local_size_x = 64) in;

shared float sums[64];

void main() {
    const uint i = gl_WorkGroupID.x + gl_WorkGroupID.z * pc.u[12];
    const uint j = gl_WorkGroupID.y % pc.u[2];
    const uint t = gl_WorkGroupID.y / pc.u[2];
    if (i >= pc.u[1]) return;
    const uint tid = gl_LocalInvocationID.x;
    const int e = LOAD_I32(buf3, pc.off[3] + t * pc.u[10] + 4u * j);
    if (e < 0 || e >= int(pc.u[11])) {
        if (tid == 0u && i == 0u) report_index_error(2u, e);
        return;
    }
    const uint ro = pc.off[1] + uint(e) * pc.u[4] + i * pc.u[3];
    const uint xo = pc.off[2] + (pc.u[7] != 0u ? j : 0u) * pc.u[5] + t * pc.u[6];
    float acc = 0.0;
    for (uint c = tid; c < pc.u[0]; c += 64u) acc += weight_at(ro, c) * LOAD_F32(buf2, xo + 4u * c);
    sums[tid] = acc;
    barrier();
    for (uint s = 32u; s > 0u; s >>= 1) {
        if (tid < s) sums[tid] += sums[tid + s];
        barrier();
    }
    if (tid == 0u) STORE_F32(buf0, pc.off[0] + j * pc.u[8] + t * pc.u[9] + 4u * i, sums[0]);
}
