#version 450
// The other two mixture-of-experts ops, one invocation per output element or token.
// mode 0, MoeCombine: dst F32 [n, T] = sum_j w[j, t] * a[:, j, t]; a (1) [n, k, T], w (2) [k, T].
//   u: 1 n, 2 T, 3 k, 4 a nb1, 5 a nb2, 6 w nb1, 7 dst nb1
// mode 1, MoeRoute: for each token, the k largest of softmax(logits (1) [E, T]) (largest first,
//   lowest id on ties; chosen on the logits, which order as the probabilities do), weights to
//   dst [k, T] (renormalised to sum 1 when u8), ids to binding 2 [k, T] (I32).
//   u: 1 E, 2 T, 3 k, 4 logits nb1, 6 ids nb1, 7 dst nb1, 8 renorm
#include "common.glsl"
layout(local_size_x = 64) in;

void main() {
    if (pc.u[0] == 0u) {
        const uint i = gl_GlobalInvocationID.x, t = gl_WorkGroupID.y;
        if (i >= pc.u[1]) return;
        float s = 0.0;
        for (uint j = 0u; j < pc.u[3]; ++j)
            s += LOAD_F32(buf2, pc.off[2] + t * pc.u[6] + 4u * j) *
                 LOAD_F32(buf1, pc.off[1] + j * pc.u[4] + t * pc.u[5] + 4u * i);
        STORE_F32(buf0, pc.off[0] + t * pc.u[7] + 4u * i, s);
        return;
    }
    const uint t = gl_GlobalInvocationID.x;
    if (t >= pc.u[2]) return;
    const uint E = pc.u[1], k = pc.u[3];
    const uint lo = pc.off[1] + t * pc.u[4];
    float mx = -1.0 / 0.0;
    for (uint e = 0u; e < E; ++e) mx = max(mx, LOAD_F32(buf1, lo + 4u * e));
    float sum = 0.0;
    for (uint e = 0u; e < E; ++e) sum += exp(LOAD_F32(buf1, lo + 4u * e) - mx);
    // k passes over the experts; `taken` is a bit set of up to 256 experts.
    uint taken[8] = uint[8](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
    float chosen = 0.0;
    for (uint j = 0u; j < k; ++j) {
        int best = -1;
        float bv = 0.0;
        for (uint e = 0u; e < E; ++e) {
            if ((taken[e >> 5] & (1u << (e & 31u))) != 0u) continue;
            const float v = LOAD_F32(buf1, lo + 4u * e);
            if (best < 0 || v > bv) { best = int(e); bv = v; }
        }
        taken[uint(best) >> 5] |= 1u << (uint(best) & 31u);
        const float p = exp(bv - mx) / sum;
        chosen += p;
        STORE_F32(buf0, pc.off[0] + t * pc.u[7] + 4u * j, p);
        buf2.w[(pc.off[2] + t * pc.u[6] + 4u * j) >> 2] = uint(best);
    }
    if (pc.u[8] != 0u) {
        for (uint j = 0u; j < k; ++j) {
            const uint o = pc.off[0] + t * pc.u[7] + 4u * j;
            STORE_F32(buf0, o, LOAD_F32(buf0, o) / chosen);
        }
    }
}
