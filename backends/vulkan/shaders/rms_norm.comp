#version 450
// dst F32 [n, R] = a / sqrt(mean(a^2) + eps) * w [n]; one workgroup per row.
// u: 0 n, 1 rows, 2 a row bytes, 3 dst row bytes; f: 0 eps
#include "common.glsl"
layout(local_size_x = 64) in;

shared float sums[64];

void main() {
    const uint r = gl_WorkGroupID.x + gl_WorkGroupID.y * 65535u;
    if (r >= pc.u[1]) return;
    const uint tid = gl_LocalInvocationID.x;
    const uint ao = pc.off[1] + r * pc.u[2];
    float ss = 0.0;
    for (uint i = tid; i < pc.u[0]; i += 64u) {
        const float x = LOAD_F32(buf1, ao + 4u * i);
        ss += x * x;
    }
    sums[tid] = ss;
    barrier();
    for (uint s = 32u; s > 0u; s >>= 1) {
        if (tid < s) sums[tid] += sums[tid + s];
        barrier();
    }
    const float scale = inversesqrt(sums[0] / float(pc.u[0]) + pc.f[0]);
    const uint d = pc.off[0] + r * pc.u[3];
    for (uint i = tid; i < pc.u[0]; i += 64u)
        STORE_F32(buf0, d + 4u * i, LOAD_F32(buf1, ao + 4u * i) * scale * LOAD_F32(buf2, pc.off[2] + 4u * i));
}
