#version 450
// Merges the split-K partials of attention.comp: for each (head, token) the S shares' running
// maxima m_s, sums l_s and outputs o_s give out = sum exp(m_s - M) o_s / sum exp(m_s - M) l_s.
// Bindings: 0 dst [d, H, T], 6 the stream's error words, 7 partials [S][T][H] of hd + 2 floats
// (m, l, o; l = -1: the share met a cell outside the cache, an index error of the token).
// u: 0 hd, 1 H, 2 T, 8 dst nb1, 9 dst nb2, 14 S, 15 the node (errors)
#include "common.glsl"
layout(local_size_x = 64) in;

void main() {
    const uint h = gl_WorkGroupID.x, t = gl_WorkGroupID.y, tid = gl_LocalInvocationID.x;
    const uint hd = pc.u[0], H = pc.u[1], T = pc.u[2], S = pc.u[14], hd2 = hd + 2u;
    for (uint s = 0u; s < S; ++s) {
        if (LOAD_F32(buf7, pc.off[7] + 4u * hd2 * ((s * T + t) * H + h) + 4u) < 0.0) {
            if (tid == 0u) REPORT_INDEX_ERROR(buf6, 3u, int(t))
            return;
        }
    }
    float M = -1.0 / 0.0;
    for (uint s = 0u; s < S; ++s)
        M = max(M, LOAD_F32(buf7, pc.off[7] + 4u * hd2 * ((s * T + t) * H + h)));
    float L = 0.0;
    for (uint s = 0u; s < S; ++s) {
        const uint po = pc.off[7] + 4u * hd2 * ((s * T + t) * H + h);
        const float m = LOAD_F32(buf7, po);
        if (m != -1.0 / 0.0) L += exp(m - M) * LOAD_F32(buf7, po + 4u);
    }
    const uint dst = pc.off[0] + h * pc.u[8] + t * pc.u[9];
    for (uint i = tid; i < hd; i += 64u) {
        float o = 0.0;
        for (uint s = 0u; s < S; ++s) {
            const uint po = pc.off[7] + 4u * hd2 * ((s * T + t) * H + h);
            const float m = LOAD_F32(buf7, po);
            if (m != -1.0 / 0.0) o += exp(m - M) * LOAD_F32(buf7, po + 8u + 4u * i);
        }
        STORE_F32(buf0, dst + 4u * i, L > 0.0 ? o / L : 0.0);
    }
}
