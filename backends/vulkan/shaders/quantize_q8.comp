#version 450
// Xq = X F32 [k, T] as 8-bit codes per block of 32, for the integer-dot matrix kernel
// (mul_mat_q8.comp), the way the CPU backend quantizes activations for Q8_0/Q4_0 weights:
// d = max|x| / 127 (0 when that is not finite), code = round-to-nearest-even(x / d) clamped to
// +-127 (NaN -> 0). Per block 10 words: the 32 codes (byte i of word w is element 4w + i), d,
// and the sum of the codes (Q4_0's -8 offset). One thread per block.
// u: 0 k, 1 T, 2 X row bytes, 3 Xq column bytes
#include "common.glsl"
layout(local_size_x = 64) in;

float div_rounded(float a, float b) {
    precise float q = a / b;
    precise float r = fma(-q, b, a);
    precise float q2 = fma(r, 1.0 / b, q);
    return q2;
}

void main() {
    const uint blk = gl_GlobalInvocationID.x, t = gl_WorkGroupID.y;
    if (blk >= pc.u[0] / 32u || t >= pc.u[1]) return;
    const uint xo = ((pc.off[1] + t * pc.u[2]) >> 2) + 32u * blk;
    float amax = 0.0;
    for (uint i = 0u; i < 32u; ++i) {
        const float a = abs(uintBitsToFloat(buf1.w[xo + i]));
        if (a > amax) amax = a;  // NaN compares false and is skipped
    }
    // Both divisions as close to the CPU's (IEEE, correctly rounded) as we can: a driver may
    // compute x / y as x * (1 / y) within 2.5 ulp; one residual step (fma) on each brings the
    // quotient to the correctly rounded one in all but rare cases.
    const float d = isinf(amax) ? 0.0 : div_rounded(amax, 127.0);
    const float id = d > 0.0 ? div_rounded(1.0, d) : 0.0;
    const uint qo = ((pc.off[0] + t * pc.u[3]) >> 2) + 10u * blk;
    int sum = 0;
    for (uint w = 0u; w < 8u; ++w) {
        uint packed = 0u;
        for (uint i = 0u; i < 4u; ++i) {
            const float v = uintBitsToFloat(buf1.w[xo + 4u * w + i]) * id;
            const int c = isnan(v) ? 0 : int(clamp(roundEven(v), -127.0, 127.0));
            sum += c;
            packed |= (uint(c) & 0xFFu) << (8u * i);
        }
        buf0.w[qo + w] = packed;
    }
    buf0.w[qo + 8u] = floatBitsToUint(d);
    buf0.w[qo + 9u] = uint(sum);
}
