#version 450
// ArgMax: dst I32 [1, T] (binding 0) = the index of the largest value of each column of
// a F32 [n, T] (binding 1). One workgroup of 256 per column: each thread scans a strided share,
// then the workgroup reduces: subgroup shuffles and one slot per subgroup in shared memory
// (USE_SUBGROUP), else a tree in shared memory. The order is total (a number beats NaN, larger
// beats smaller, equal values and two NaN go to the lower index), so the reduction's shape
// never changes the result. Values travel as bits so no NaN is compared as a float.
// u: 0 n, 1 a row bytes, 2 dst row bytes
#include "common.glsl"
#ifdef USE_SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
layout(local_size_x = 256) in;

const uint WG = 256u;
const uint NONE = 0xFFFFFFFFu;  // no index yet: loses to every index
shared uint sv[WG];
shared uint si[WG];

bool is_nan_bits(uint b) {
    return (b & 0x7FFFFFFFu) > 0x7F800000u;
}

// Whether (bits a, index ia) comes before (b, ib).
bool better(uint a, uint ia, uint b, uint ib) {
    const bool na = is_nan_bits(a), nb = is_nan_bits(b);
    if (na != nb) return nb;
    if (!na) {
        const float fa = uintBitsToFloat(a), fb = uintBitsToFloat(b);
        if (fa != fb) return fa > fb;
    }
    return ia < ib;
}

void main() {
    const uint t = gl_WorkGroupID.x, tid = gl_LocalInvocationID.x;
    const uint base = (pc.off[1] + t * pc.u[1]) >> 2;
    uint bv = 0x7FC00000u, bi = NONE;
    for (uint i = tid; i < pc.u[0]; i += WG) {
        const uint v = buf1.w[base + i];
        if (better(v, i, bv, bi)) {
            bv = v;
            bi = i;
        }
    }
#ifdef USE_SUBGROUP
    for (uint o = gl_SubgroupSize / 2u; o > 0u; o >>= 1) {
        const uint ov = subgroupShuffleXor(bv, o), oi = subgroupShuffleXor(bi, o);
        if (better(ov, oi, bv, bi)) {
            bv = ov;
            bi = oi;
        }
    }
    if (gl_SubgroupInvocationID == 0u) {
        sv[gl_SubgroupID] = bv;
        si[gl_SubgroupID] = bi;
    }
    barrier();
    if (tid == 0u) {
        for (uint s = 1u; s < gl_NumSubgroups; ++s) {
            if (better(sv[s], si[s], bv, bi)) {
                bv = sv[s];
                bi = si[s];
            }
        }
        buf0.w[(pc.off[0] + t * pc.u[2]) >> 2] = bi == NONE ? 0u : bi;
    }
#else
    sv[tid] = bv;
    si[tid] = bi;
    barrier();
    for (uint s = WG / 2u; s > 0u; s >>= 1) {
        if (tid < s && better(sv[tid + s], si[tid + s], sv[tid], si[tid])) {
            sv[tid] = sv[tid + s];
            si[tid] = si[tid + s];
        }
        barrier();
    }
    if (tid == 0u) buf0.w[(pc.off[0] + t * pc.u[2]) >> 2] = si[0] == NONE ? 0u : si[0];
#endif
}
