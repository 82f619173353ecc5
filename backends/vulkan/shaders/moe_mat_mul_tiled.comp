#version 450
// Mixture of experts for prefill batches, after moe_group.comp: dst F32 [m, k, T] =
// W[e] [n, m] x X[:, j or 0, t] for the slots (j, t) that chose expert e, as mul_mat_tiled.comp
// does for one matrix: workgroup (x, y, e) takes rows 64x.. of expert e's matrix and its slots
// 32y.. (then 32 (y + gridDim.y).., and so on while the expert has slots); per step of 32 along
// n the weight tile is decoded once into shared memory and serves all 32 slots. Each output is
// one slot's own sum over n in the same order whatever the grouping.
// Bindings: 0 dst, 1 W [n, m, E] (any weight format), 2 X F32, 3 the groups (moe_group.comp).
// u: 0 n, 1 m, 2 k, 3 W nb1, 4 W nb2, 5 X nb1, 6 X nb2, 7 X has k slots, 8 dst nb1, 9 dst nb2,
//    11 experts
#include "common.glsl"
#include "decode.glsl"
layout(local_size_x = 128) in;

const uint BM = 64u;  // rows per tile
const uint BN = 32u;  // slots per tile
const uint BK = 32u;  // n per step
shared float ws[BK][BM + 1u];
shared float xs[BK][BN + 1u];
shared uint xo_tile[BN];  // byte offset of each slot's input column (0xFFFFFFFF: none)
shared uint do_tile[BN];  // byte offset of each slot's output column

void main() {
    const uint tid = gl_LocalInvocationID.x;
    const uint K = pc.u[0], R = pc.u[1], k = pc.u[2], E = pc.u[11];
    const uint e = gl_WorkGroupID.z;
    const uint g = pc.off[3] >> 2;
    const uint count = buf3.w[g + e], first = buf3.w[g + E + e];
    const uint r0 = gl_WorkGroupID.x * BM;
    const uint tr = tid % 16u, tc = tid / 16u;  // rows tr + 16i, slots tc + 8j
    const uint wo = pc.off[1] + e * pc.u[4];
    for (uint c0 = gl_WorkGroupID.y * BN; c0 < count; c0 += gl_NumWorkGroups.y * BN) {
        if (tid < BN) {
            if (c0 + tid < count) {
                const uint p = buf3.w[g + 2u * E + first + c0 + tid];
                const uint j = p % k, t = p / k;
                xo_tile[tid] = pc.off[2] + (pc.u[7] != 0u ? j : 0u) * pc.u[5] + t * pc.u[6];
                do_tile[tid] = pc.off[0] + j * pc.u[8] + t * pc.u[9];
            } else {
                xo_tile[tid] = 0xFFFFFFFFu;
                do_tile[tid] = 0u;
            }
        }
        float acc[4][4];
        [[unroll]] for (uint i = 0u; i < 4u; ++i)
            [[unroll]] for (uint jj = 0u; jj < 4u; ++jj) acc[i][jj] = 0.0;
        barrier();
        for (uint k0 = 0u; k0 < K; k0 += BK) {
            for (uint q = tid; q < BM * (BK / 4u); q += 128u) {
                const uint r = q / (BK / 4u), kk = (q % (BK / 4u)) * 4u;
                const uint row = r0 + r, kg = k0 + kk;
                vec4 v = vec4(0.0);
                if (row < R) {
                    const uint ro = wo + row * pc.u[3];
                    if (kg + 3u < K) {
                        v = weight_at4(ro, kg);
                    } else {
                        [[unroll]] for (uint x = 0u; x < 4u; ++x)
                            if (kg + x < K) v[x] = weight_at(ro, kg + x);
                    }
                }
                ws[kk][r] = v.x;
                ws[kk + 1u][r] = v.y;
                ws[kk + 2u][r] = v.z;
                ws[kk + 3u][r] = v.w;
            }
            for (uint q = tid; q < BK * BN; q += 128u) {
                const uint c = q / BK, kk = q % BK;
                const uint kg = k0 + kk;
                xs[kk][c] = xo_tile[c] != 0xFFFFFFFFu && kg < K
                                ? LOAD_F32(buf2, xo_tile[c] + 4u * kg)
                                : 0.0;
            }
            barrier();
            for (uint kk = 0u; kk < BK; ++kk) {
                float a[4], b[4];
                [[unroll]] for (uint i = 0u; i < 4u; ++i) a[i] = ws[kk][tr + 16u * i];
                [[unroll]] for (uint jj = 0u; jj < 4u; ++jj) b[jj] = xs[kk][tc + 8u * jj];
                [[unroll]] for (uint i = 0u; i < 4u; ++i)
                    [[unroll]] for (uint jj = 0u; jj < 4u; ++jj) acc[i][jj] += a[i] * b[jj];
            }
            barrier();
        }
        [[unroll]] for (uint i = 0u; i < 4u; ++i) {
            const uint row = r0 + tr + 16u * i;
            [[unroll]] for (uint jj = 0u; jj < 4u; ++jj) {
                const uint c = tc + 8u * jj;
                if (row < R && xo_tile[c] != 0xFFFFFFFFu)
                    STORE_F32(buf0, do_tile[c] + 4u * row, acc[i][jj]);
            }
        }
        barrier();  // xo_tile / do_tile are rewritten for the next slots
    }
}
