#version 450
// Prefill: dst F32 [m, T] = W [k, m] (any weight format) x X F32 [k, T] for batches of 16 or
// more columns. A workgroup of 128 threads takes a tile of 64 rows x 32 columns; per step of 32
// along k the weight tile is decoded once into shared memory (four elements at a time, as
// mul_mat.comp decodes them) and the activation tile copied beside it, then each thread adds up
// a 4 x 4 block of outputs from shared memory: every decoded weight serves 32 columns (8 in
// mul_mat.comp). Rows, columns and k past the ends are zeros in the tiles.
// u: 0 k, 1 rows in this chunk, 2 T, 3 W row bytes, 4 X row bytes, 5 dst row bytes,
//    6 first dst row of the chunk
#include "common.glsl"
#include "decode.glsl"
layout(local_size_x = 128) in;

const uint BM = 64u;  // rows per tile
const uint BN = 32u;  // columns per tile
const uint BK = 32u;  // k per step
shared float ws[BK][BM + 1u];
shared float xs[BK][BN + 1u];

void main() {
    const uint tid = gl_LocalInvocationID.x;
    const uint K = pc.u[0], R = pc.u[1], T = pc.u[2];
    const uint r0 = gl_WorkGroupID.x * BM, c0 = gl_WorkGroupID.y * BN;
    const uint tr = tid % 16u, tc = tid / 16u;  // rows tr + 16i, columns tc + 8j
    float acc[4][4];
    [[unroll]] for (uint i = 0u; i < 4u; ++i)
        [[unroll]] for (uint j = 0u; j < 4u; ++j) acc[i][j] = 0.0;
    for (uint k0 = 0u; k0 < K; k0 += BK) {
        // 64 rows x 8 groups of four: 4 per thread.
        for (uint g = tid; g < BM * (BK / 4u); g += 128u) {
            const uint r = g / (BK / 4u), kk = (g % (BK / 4u)) * 4u;
            const uint row = r0 + r, kg = k0 + kk;
            vec4 v = vec4(0.0);
            if (row < R) {
                const uint ro = pc.off[1] + row * pc.u[3];
                if (kg + 3u < K) {
                    v = weight_at4(ro, kg);
                } else {
                    [[unroll]] for (uint e = 0u; e < 4u; ++e)
                        if (kg + e < K) v[e] = weight_at(ro, kg + e);
                }
            }
            ws[kk][r] = v.x;
            ws[kk + 1u][r] = v.y;
            ws[kk + 2u][r] = v.z;
            ws[kk + 3u][r] = v.w;
        }
        // 32 k x 32 columns: consecutive threads read consecutive k of one column.
        for (uint e = tid; e < BK * BN; e += 128u) {
            const uint c = e / BK, kk = e % BK;
            const uint col = c0 + c, kg = k0 + kk;
            xs[kk][c] = col < T && kg < K ? LOAD_F32(buf2, pc.off[2] + col * pc.u[4] + 4u * kg)
                                          : 0.0;
        }
        barrier();
        for (uint kk = 0u; kk < BK; ++kk) {
            float a[4], b[4];
            [[unroll]] for (uint i = 0u; i < 4u; ++i) a[i] = ws[kk][tr + 16u * i];
            [[unroll]] for (uint j = 0u; j < 4u; ++j) b[j] = xs[kk][tc + 8u * j];
            [[unroll]] for (uint i = 0u; i < 4u; ++i)
                [[unroll]] for (uint j = 0u; j < 4u; ++j) acc[i][j] += a[i] * b[j];
        }
        barrier();
    }
    [[unroll]] for (uint i = 0u; i < 4u; ++i) {
        const uint row = r0 + tr + 16u * i;
        [[unroll]] for (uint j = 0u; j < 4u; ++j) {
            const uint col = c0 + tc + 8u * j;
            if (row < R && col < T)
                STORE_F32(buf0, pc.off[0] + col * pc.u[5] + 4u * (pc.u[6] + row), acc[i][j]);
        }
    }
}
