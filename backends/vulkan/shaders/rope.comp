#version 450
// dst F32 [d, H, T] = rotate(a) at positions [T]; may be in place. Angles reach thousands of
// radians, so they are kept as float pairs (hi + lo, ~48 bits) until reduced modulo 2 pi, and
// sin/cos are polynomials on [-pi/4, pi/4]: the builtins only promise 2^-11 on some devices.
// Binding 4 holds the inverse frequencies freq_scale * base^(-2i/n_rot) as (hi, lo) pairs,
// computed in double on the host.
// u: 0 d, 1 H, 2 T, 3 n_rot, 4 mode (0 adjacent, 1 rotate-half), 5 has freq factors,
//    6 a nb1, 7 a nb2, 8 dst nb1, 9 dst nb2; f: 0 attn_factor
#include "common.glsl"
layout(local_size_x = 64) in;

vec2 quick_two_sum(float a, float b) {
    precise float s = a + b;
    precise float e = b - (s - a);
    return vec2(s, e);
}

// a * b exactly, as (product, error), without relying on fused multiply-add.
vec2 two_prod(float a, float b) {
    precise float p = a * b;
    precise float ca = 4097.0 * a;
    precise float ah = ca - (ca - a);
    precise float al = a - ah;
    precise float cb = 4097.0 * b;
    precise float bh = cb - (cb - b);
    precise float bl = b - bh;
    precise float e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    return vec2(p, e);
}

vec2 df_mul_f(vec2 a, float b) {
    const vec2 p = two_prod(a.x, b);
    precise float lo = p.y + a.y * b;
    return quick_two_sum(p.x, lo);
}

vec2 df_div_f(vec2 a, float b) {
    precise float q1 = a.x / b;
    const vec2 p = two_prod(q1, b);
    precise float r = ((a.x - p.x) - p.y) + a.y;
    precise float q2 = r / b;
    return quick_two_sum(q1, q2);
}

// a - k * c for c = (c.x + c.y), k an integer-valued float.
vec2 df_sub_kc(vec2 a, float k, vec2 c) {
    const vec2 p = two_prod(k, c.x);
    precise float hi = a.x - p.x;  // exact: a.x and p.x are close
    precise float lo = ((a.y - p.y) - k * c.y);
    return quick_two_sum(hi, lo);
}

void sin_cos(vec2 theta, out float s, out float c) {
    const vec2 TWO_PI = vec2(6.2831854820251465, -1.7484555314695172e-07);
    const vec2 HALF_PI = vec2(1.5707963705062866, -4.3711388286737929e-08);
    const vec2 r = df_sub_kc(theta, round(theta.x / TWO_PI.x), TWO_PI);
    const float q = round(r.x / HALF_PI.x);
    const vec2 y2 = df_sub_kc(r, q, HALF_PI);
    const float y = y2.x + y2.y;
    const float z = y * y;
    const float sp = ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1) * z * y + y;
    const float cp = ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z +
                      4.166664568298827e-2) * z * z - 0.5 * z + 1.0;
    const int quadrant = int(q) & 3;
    if (quadrant == 0) { s = sp; c = cp; }
    else if (quadrant == 1) { s = cp; c = -sp; }
    else if (quadrant == 2) { s = -sp; c = -cp; }
    else { s = -cp; c = sp; }
}

void main() {
    const uint h = gl_WorkGroupID.x, t = gl_WorkGroupID.y;
    const uint d = pc.u[0], n_rot = pc.u[3], half_rot = n_rot / 2u;
    const uint ao = pc.off[1] + h * pc.u[6] + t * pc.u[7];
    const uint dst = pc.off[0] + h * pc.u[8] + t * pc.u[9];
    const float pos = float(LOAD_I32(buf2, pc.off[2] + 4u * t));
    for (uint i = gl_LocalInvocationID.x; i < half_rot; i += 64u) {
        const vec2 inv = vec2(LOAD_F32(buf4, pc.off[4] + 8u * i), LOAD_F32(buf4, pc.off[4] + 8u * i + 4u));
        vec2 theta = df_mul_f(inv, pos);
        if (pc.u[5] != 0u) theta = df_div_f(theta, LOAD_F32(buf3, pc.off[3] + 4u * i));
        float s, c;
        sin_cos(theta, s, c);
        c *= pc.f[0];
        s *= pc.f[0];
        const uint i0 = pc.u[4] == 0u ? 2u * i : i;
        const uint i1 = pc.u[4] == 0u ? 2u * i + 1u : i + half_rot;
        const float x0 = LOAD_F32(buf1, ao + 4u * i0), x1 = LOAD_F32(buf1, ao + 4u * i1);
        STORE_F32(buf0, dst + 4u * i0, x0 * c - x1 * s);
        STORE_F32(buf0, dst + 4u * i1, x0 * s + x1 * c);
    }
    for (uint i = n_rot + gl_LocalInvocationID.x; i < d; i += 64u)
        STORE_F32(buf0, dst + 4u * i, LOAD_F32(buf1, ao + 4u * i));
}
