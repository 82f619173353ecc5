#version 450
// dst F32 [d, H, T] = softmax(q k^T * scale, causal) v over a paged cache; one workgroup per
// (head, token), cells taken 64 at a time with an online softmax (running max and sum), so any
// context length runs in fixed shared memory. Quantized K/V are decoded per element in the
// loop, but over a Q8_0 / Q4_0 K whose heads are whole blocks the scores are integer products
// of K's codes with the query rounded to codes (engine/quant/attn_query.h), as on the CPU.
// Optional score soft-cap (f1 > 0) and sliding window (f2's bits > 0). A visible cell whose
// block the table does not hold is an index error: reported on binding 7 (the error words)
// without split-K, else marked in the share's partial (sum -1) for attention_combine.comp.
// Split-K (flash-decoding) when u14 = S > 1: workgroup z of S takes the z-th share of the cells
// and writes its running max, sum and unnormalised output to binding 7 (partials [S][T][H] of
// hd + 2 floats); attention_combine.comp merges them. Decode steps over long contexts then
// keep every compute unit busy instead of H workgroups.
// Bindings: 0 dst, 1 q, 2 k cache, 3 v cache, 4 positions, 5 block table, 6 seq ids.
// u: 0 hd, 1 H, 2 Hkv, 3 cells, 4 k nb1, 5 v nb1, 6 q nb1, 7 q nb2, 8 dst nb1, 9 dst nb2,
//    10 block size, 11 max blocks, 12 table row bytes, 13 the table's sequences when seq ids
//    are given (else 0: every token in sequence 0), 15 the node (errors)
// f: 0 scale, 1 softcap, 2 window (its bits)
#include "common.glsl"
#include "kv.glsl"
layout(local_size_x = 64) in;

KV_GETTER(k_at, buf2, buf2h)
KV_GETTER(v_at, buf3, buf3h)

const uint MAX_HD = 256u;
shared float qs[MAX_HD];
// Over a Q8_0 / Q4_0 cache (heads of whole blocks) the query is rounded as the CPU rounds it
// (engine/quant/attn_query.h): per 32 elements of q * scale, codes qi and a scale qd; a score
// is the integer dot product of the codes times both scales, block by block.
shared int qi[MAX_HD];
shared float qd[MAX_HD / 32u];
shared float ps[64];
shared uint cells[64];
shared uint bad_cells;

void main() {
    const uint h = gl_WorkGroupID.x, t = gl_WorkGroupID.y, tid = gl_LocalInvocationID.x;
    const uint hd = pc.u[0];
    const uint group = pc.u[1] / pc.u[2];
    const uint koff = (h / group) * hd;
    const uint s = pc.u[13] != 0u ? uint(LOAD_I32(buf6, pc.off[6] + 4u * t)) : 0u;
    const uint n_kv = uint(LOAD_I32(buf4, pc.off[4] + 4u * t)) + 1u;
    const uint window = floatBitsToUint(pc.f[2]);
    // A sequence the table has no column for: an index error, and no cell is read.
    const bool seq_ok = pc.u[13] == 0u || s < pc.u[13];
    if (tid == 0u) bad_cells = seq_ok ? 0u : 1u;
    const uint j0 = window > 0u && n_kv > window ? n_kv - window : 0u;
    const uint qo = pc.off[1] + h * pc.u[6] + t * pc.u[7];
    const bool int_scores = (KVFMT == T_Q8_0 || KVFMT == T_Q4_0) && hd % 32u == 0u;
    for (uint i = tid; i < hd; i += 64u) {
        const float x = LOAD_F32(buf1, qo + 4u * i);
        qs[i] = int_scores ? x * pc.f[0] : x;
    }
    barrier();
    if (int_scores && tid < hd / 32u) {
        const uint b0 = 32u * tid;
        float amax = 0.0;
        bool finite = true;
        for (uint i = 0u; i < 32u; ++i) {
            const float x = qs[b0 + i];
            finite = finite && !isnan(x) && !isinf(x);
            amax = max(amax, abs(x));
        }
        precise const float d = finite ? amax / 127.0 : uintBitsToFloat(0x7FC00000u);
        // (a subnormal d: the block counts as zeros, as attn_query.h says)
        precise const float id = finite && d >= 1.17549435e-38 ? 1.0 / d : 0.0;
        for (uint i = 0u; i < 32u; ++i)
            qi[b0 + i] = finite ? int(clamp(roundEven(qs[b0 + i] * id), -127.0, 127.0)) : 0;
        qd[tid] = d;
    }
    barrier();
    float m = -1.0 / 0.0, l = 0.0;
    float acc[MAX_HD / 64u];
    [[unroll]] for (uint r = 0u; r < MAX_HD / 64u; ++r) acc[r] = 0.0;
    const uint S = max(pc.u[14], 1u);
    uint c_begin = j0, c_end = n_kv;
    if (S > 1u) {
        // Long shares are whole 64-cell chunks; short ones (tests, short contexts) are not.
        uint share = (n_kv - j0 + S - 1u) / S;
        if (share > 256u) share = (share + 63u) / 64u * 64u;
        c_begin = min(n_kv, j0 + gl_WorkGroupID.z * share);
        c_end = min(n_kv, c_begin + share);
    }
    if (!seq_ok) c_end = c_begin;
    for (uint c0 = c_begin; c0 < c_end; c0 += 64u) {
        const uint j = c0 + tid;
        float sc = -1.0 / 0.0;
        uint cell = 0xFFFFFFFFu;
        if (j < c_end) {
            cell = kv_cell(s, j, pc.u[10], pc.u[11], pc.u[12]);
            if (cell < pc.u[3]) {
                const uint ro = pc.off[2] + cell * pc.u[4];
                if (int_scores) {
                    precise float acc_s = 0.0;
                    for (uint b = 0u; b < hd / 32u; ++b) {
                        const uint kb = ro + KV_BLOCK_BYTES * (koff / 32u + b);
                        int isum = 0;
                        for (uint i = 0u; i < 32u; ++i)
                            isum += qi[32u * b + i] * KV_CODE(buf2, kb, i);
                        precise const float scale = qd[b] * LOAD_HALF(buf2h, buf2, kb);
                        acc_s = b == 0u ? float(isum) * scale : fma(float(isum), scale, acc_s);
                    }
                    sc = acc_s;
                } else {
                    float dot = 0.0;
                    for (uint i = 0u; i < hd; ++i) dot += qs[i] * k_at(ro, koff + i);
                    sc = dot * pc.f[0];
                }
                if (pc.f[1] > 0.0) {
                    const float z = sc / pc.f[1];
                    const float e = exp(-2.0 * abs(z));
                    sc = pc.f[1] * sign(z) * (1.0 - e) / (1.0 + e);
                }
            } else {
                cell = 0xFFFFFFFFu;
                bad_cells = 1u;  // visible, but outside the cache
            }
        }
        ps[tid] = sc;
        cells[tid] = cell;
        barrier();
        float cm = m;
        for (uint k = 0u; k < 64u; ++k) cm = max(cm, ps[k]);
        const float alpha = m == -1.0 / 0.0 ? 0.0 : exp(m - cm);
        barrier();
        ps[tid] = cell == 0xFFFFFFFFu ? 0.0 : exp(sc - cm);
        barrier();
        float sum = 0.0;
        for (uint k = 0u; k < 64u; ++k) sum += ps[k];
        l = l * alpha + sum;
        [[unroll]] for (uint r = 0u; r < MAX_HD / 64u; ++r) {
            const uint i = tid + 64u * r;
            if (i < hd) {
                float a = acc[r] * alpha;
                for (uint k = 0u; k < 64u; ++k) {
                    if (cells[k] != 0xFFFFFFFFu)
                        a += ps[k] * v_at(pc.off[3] + cells[k] * pc.u[5], koff + i);
                }
                acc[r] = a;
            }
        }
        m = cm;
        barrier();
    }
    if (S > 1u) {
        const uint hd2 = hd + 2u;
        const uint po = pc.off[7] + 4u * hd2 * ((gl_WorkGroupID.z * gl_NumWorkGroups.y + t) * pc.u[1] + h);
        if (tid == 0u) {
            STORE_F32(buf7, po, m);
            STORE_F32(buf7, po + 4u, bad_cells != 0u ? -1.0 : l);
        }
        [[unroll]] for (uint r = 0u; r < MAX_HD / 64u; ++r) {
            const uint i = tid + 64u * r;
            if (i < hd) STORE_F32(buf7, po + 8u + 4u * i, acc[r]);
        }
        return;
    }
    if (bad_cells != 0u) {
        if (tid == 0u) report_index_error(3u, int(t));
        return;
    }
    const uint dst = pc.off[0] + h * pc.u[8] + t * pc.u[9];
    [[unroll]] for (uint r = 0u; r < MAX_HD / 64u; ++r) {
        const uint i = tid + 64u * r;
        if (i < hd) STORE_F32(buf0, dst + 4u * i, l > 0.0 ? acc[r] / l : 0.0);
    }
}
