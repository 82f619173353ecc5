#version 450
// dst F32 [n, T] = f(a, b): 0 add (b may have one row: a bias), 1 swiglu, 2 geglu (tanh), 3
// scale, 4 soft-cap.
// u: 0 n, 1 T, 2 op, 3 a row bytes, 4 b row bytes (0: broadcast), 5 dst row bytes; f: 0 alpha
#include "common.glsl"
layout(local_size_x = 64) in;

void main() {
    const uint i = gl_GlobalInvocationID.x;
    const uint t = gl_WorkGroupID.y;
    if (i >= pc.u[0]) return;
    const float a = LOAD_F32(buf1, pc.off[1] + t * pc.u[3] + 4u * i);
    const uint op = pc.u[2];
    float y;
    if (op == 0u) {
        y = a + LOAD_F32(buf2, pc.off[2] + t * pc.u[4] + 4u * i);
    } else if (op == 1u) {
        y = a / (1.0 + exp(-a)) * LOAD_F32(buf2, pc.off[2] + t * pc.u[4] + 4u * i);
    } else if (op == 2u) {
        const float c = 0.7978845608028654;
        // tanh(z) written with exp: the builtin may lose precision for large |z|.
        const float z = c * (a + 0.044715 * a * a * a);
        const float e = exp(-2.0 * abs(z));
        const float th = sign(z) * (1.0 - e) / (1.0 + e);
        y = 0.5 * a * (1.0 + th) * LOAD_F32(buf2, pc.off[2] + t * pc.u[4] + 4u * i);
    } else if (op == 3u) {
        y = a * pc.f[0];
    } else {
        const float z = a / pc.f[0];
        const float e = exp(-2.0 * abs(z));
        y = pc.f[0] * sign(z) * (1.0 - e) / (1.0 + e);
    }
    STORE_F32(buf0, pc.off[0] + t * pc.u[5] + 4u * i, y);
}
