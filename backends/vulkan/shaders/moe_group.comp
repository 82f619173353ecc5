#version 450
// Groups a mixture-of-experts prefill by expert, so that moe_mat_mul_tiled reads each expert's
// rows once per 32 of its tokens rather than once per token. One workgroup: counts the slots
// (j, t) each expert was chosen for, turns the counts into offsets, and lists each expert's
// slots (as t * k + j) from its offset on. The order inside an expert's list is whatever the
// atomics give: every slot's product is computed alone, so it does not change any result.
// Binding 0 (words): [0, E) counts, [E, 2E) offsets, [2E, 2E + k T) the lists. Binding 3: ids
// I32 [k, T]. u: 0 k, 1 T, 2 ids nb1, 3 experts (at most 256), 15 node index + 1.
// An expert id outside [0, experts) is reported (binding 7); its slot is left out, so its
// output stays as it was, as in moe_mat_mul.comp.
#include "common.glsl"
layout(local_size_x = 256) in;

shared uint counts[256];
shared uint offsets[256];

void main() {
    const uint tid = gl_LocalInvocationID.x;
    const uint k = pc.u[0], T = pc.u[1], E = pc.u[3];
    const uint base = pc.off[0] >> 2;
    if (tid < 256u) counts[tid] = 0u;
    barrier();
    for (uint p = tid; p < k * T; p += 256u) {
        const int e = LOAD_I32(buf3, pc.off[3] + (p / k) * pc.u[2] + 4u * (p % k));
        if (e < 0 || e >= int(E)) {
            report_index_error(2u, e);
            continue;
        }
        atomicAdd(counts[uint(e)], 1u);
    }
    barrier();
    if (tid == 0u) {
        uint sum = 0u;
        for (uint e = 0u; e < E; ++e) {
            offsets[e] = sum;
            sum += counts[e];
        }
    }
    barrier();
    if (tid < E) {
        buf0.w[base + tid] = counts[tid];
        buf0.w[base + E + tid] = offsets[tid];
        counts[tid] = 0u;  // from here on: the next free place in the expert's list
    }
    barrier();
    for (uint p = tid; p < k * T; p += 256u) {
        const int e = LOAD_I32(buf3, pc.off[3] + (p / k) * pc.u[2] + 4u * (p % k));
        if (e < 0 || e >= int(E)) continue;
        const uint at = atomicAdd(counts[uint(e)], 1u);
        buf0.w[base + 2u * E + offsets[uint(e)] + at] = p;
    }
}
