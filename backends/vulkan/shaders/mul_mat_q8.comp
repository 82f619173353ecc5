#version 450
// dst F32 [m, T] = W [k, m] (Q8_0 or Q4_0, specialization constant 0) x X [k, T], with X
// already quantized to 8 bits per block of 32 by quantize_q8.comp (binding 2, Xq). Per block
// the weight's codes meet the activation's as integer dot products of four int8 pairs (OpSDot
// of VK_KHR_shader_integer_dot_product, through GL_EXT_spirv_intrinsics since this glslc has no
// GL_EXT_integer_dot_product), then one float multiply by both scales: the CPU backend's
// 8-bit-activation arithmetic. Q4_0's codes 0..15 stand for q - 8, so 8 x (sum of the
// activation's codes) is taken off. The layout is mul_mat.comp's: 8 rows per workgroup of 64,
// 8 threads per row (each a block at a time), a tile of up to 8 columns; sums through subgroup
// shuffles (USE_SUBGROUP) or shared memory.
// u: 0 k, 1 rows in this chunk, 2 T, 3 W row bytes, 4 Xq column bytes, 5 dst row bytes,
//    6 first dst row of the chunk, 7 workgroups per z slice of the grid
#include "common.glsl"
#extension GL_EXT_spirv_intrinsics : require
#ifdef USE_SUBGROUP
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint FMT = 0;

// OpSDot (4450) with PackedVectorFormat4x8Bit: capabilities DotProduct (6019) and
// DotProductInput4x8BitPacked (6018).
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018],
                  id = 4450)
int sdot4x8(uint a, uint b, spirv_literal int packed_format);

const uint NC = 8u;
const uint TPR = 8u;
const uint RPW = 8u;
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
        const uint nb = pc.u[0] / 32u;
        for (uint blk = lane; blk < nb; blk += TPR) {
            uint wq[8];
            float dw;
            if (FMT == T_Q8_0) {
                const uint b = ro + 34u * blk;
                dw = half_to_float(LOAD_U16(buf1, b));
                [[unroll]] for (uint w = 0u; w < 8u; ++w) wq[w] = LOAD_U32U(buf1, b + 2u + 4u * w);
            } else {
                const uint b = ro + 18u * blk;
                dw = half_to_float(LOAD_U16(buf1, b));
                [[unroll]] for (uint w = 0u; w < 4u; ++w) {
                    const uint q = LOAD_U32U(buf1, b + 2u + 4u * w);
                    wq[w] = q & 0x0F0F0F0Fu;
                    wq[w + 4u] = (q >> 4) & 0x0F0F0F0Fu;
                }
            }
            [[unroll]] for (uint c = 0u; c < NC; ++c) {
                if (c < nc) {
                    const uint xo = ((pc.off[2] + (c0 + c) * pc.u[4]) >> 2) + 10u * blk;
                    int s = 0;
                    [[unroll]] for (uint w = 0u; w < 8u; ++w) s += sdot4x8(wq[w], buf2.w[xo + w], 0);
                    if (FMT == T_Q4_0) s -= 8 * int(buf2.w[xo + 9u]);
                    acc[c] += dw * uintBitsToFloat(buf2.w[xo + 8u]) * float(s);
                }
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
