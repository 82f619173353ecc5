// Element i of a weight row starting at byte `ro` of binding 1, in format FMT (a specialization
// constant, so the driver keeps one branch). Each format's arithmetic follows the reference
// decoder's order and is `precise` (no fused multiply-add), so GetRows is bit-exact.
layout(constant_id = 0) const uint FMT = 0;

#define HALF1(o) LOAD_HALF(buf1h, buf1, o)

// The 6-bit scale and min of sub-block j of a Q4_K/Q5_K block whose scales start at byte s.
void scale_min_k4(uint s, uint j, out uint sc, out uint m) {
    if (j < 4u) {
        sc = LOAD_U8(buf1, s + j) & 63u;
        m = LOAD_U8(buf1, s + j + 4u) & 63u;
    } else {
        sc = (LOAD_U8(buf1, s + j + 4u) & 15u) | ((LOAD_U8(buf1, s + j - 4u) >> 6) << 4);
        m = (LOAD_U8(buf1, s + j + 4u) >> 4) | ((LOAD_U8(buf1, s + j) >> 6) << 4);
    }
}

// The IQ4_NL / IQ4_XS code book.
const float IQ4_VALUES[16] = float[16](-127.0, -104.0, -83.0, -65.0, -49.0, -35.0, -22.0, -10.0,
                                      1.0, 13.0, 25.0, 38.0, 53.0, 69.0, 89.0, 113.0);

float weight_at(uint ro, uint i) {
    if (FMT == T_F32) return LOAD_F32(buf1, ro + 4u * i);
    if (FMT == T_F16) return HALF1(ro + 2u * i);
    if (FMT == T_BF16) return uintBitsToFloat(LOAD_U16(buf1, ro + 2u * i) << 16);
    if (FMT == T_Q4_0 || FMT == T_Q4_1 || FMT == T_Q5_0 || FMT == T_Q5_1 || FMT == T_Q8_0 ||
        FMT == T_IQ4_NL) {
        const uint j = i & 31u;
        const uint blk = i >> 5;
        if (FMT == T_IQ4_NL) {
            const uint b = ro + 18u * blk;
            const uint byte = LOAD_U8(buf1, b + 2u + (j & 15u));
            precise float y =
                HALF1(b) * IQ4_VALUES[j < 16u ? byte & 15u : byte >> 4];
            return y;
        }
        if (FMT == T_Q8_0) {
            const uint b = ro + 34u * blk;
            const int q = int(LOAD_U8(buf1, b + 2u + j) << 24) >> 24;
            precise float y = float(q) * HALF1(b);
            return y;
        }
        if (FMT == T_Q4_0) {
            const uint b = ro + 18u * blk;
            const uint byte = LOAD_U8(buf1, b + 2u + (j & 15u));
            const int q = int(j < 16u ? byte & 15u : byte >> 4) - 8;
            precise float y = float(q) * HALF1(b);
            return y;
        }
        if (FMT == T_Q4_1) {
            const uint b = ro + 20u * blk;
            const uint byte = LOAD_U8(buf1, b + 4u + (j & 15u));
            const uint q = j < 16u ? byte & 15u : byte >> 4;
            precise float y =
                float(q) * HALF1(b) + HALF1(b + 2u);
            return y;
        }
        if (FMT == T_Q5_0) {
            const uint b = ro + 22u * blk;
            const uint qh = LOAD_U32U(buf1, b + 2u);
            const uint byte = LOAD_U8(buf1, b + 6u + (j & 15u));
            const int q = int((j < 16u ? byte & 15u : byte >> 4) | (((qh >> j) & 1u) << 4)) - 16;
            precise float y = float(q) * HALF1(b);
            return y;
        }
        // Q5_1
        const uint b = ro + 24u * blk;
        const uint qh = LOAD_U32U(buf1, b + 4u);
        const uint byte = LOAD_U8(buf1, b + 8u + (j & 15u));
        const uint q = (j < 16u ? byte & 15u : byte >> 4) | (((qh >> j) & 1u) << 4);
        precise float y =
            float(q) * HALF1(b) + HALF1(b + 2u);
        return y;
    }
    const uint j = i & 255u;
    const uint blk = i >> 8;
    if (FMT == T_Q4_K || FMT == T_Q5_K) {
        const uint b = ro + (FMT == T_Q4_K ? 144u : 176u) * blk;
        const uint c = j >> 6, hi = (j >> 5) & 1u, l = j & 31u;
        uint sc, m;
        scale_min_k4(b + 4u, 2u * c + hi, sc, m);
        const uint qs = b + (FMT == T_Q4_K ? 16u : 48u) + 32u * c + l;
        uint q = hi == 1u ? LOAD_U8(buf1, qs) >> 4 : LOAD_U8(buf1, qs) & 15u;
        if (FMT == T_Q5_K) q |= ((LOAD_U8(buf1, b + 16u + l) >> (2u * c + hi)) & 1u) << 4;
        precise float d1 = HALF1(b) * float(sc);
        precise float m1 = HALF1(b + 2u) * float(m);
        precise float y = d1 * float(q) - m1;
        return y;
    }
    if (FMT == T_Q2_K || FMT == T_Q3_K) {
        // Element 128h + 32s + 16p + l: bits 2s..2s+1 of qs[32h + 16p + l], scale 8h + 2s + p.
        const uint h = j >> 7, s = (j >> 5) & 3u, p = (j >> 4) & 1u, l = j & 15u;
        const uint sj = 8u * h + 2u * s + p;
        if (FMT == T_Q2_K) {
            const uint b = ro + 84u * blk;
            const uint sc = LOAD_U8(buf1, b + sj);
            const uint q = (LOAD_U8(buf1, b + 16u + 32u * h + 16u * p + l) >> (2u * s)) & 3u;
            precise float dl = HALF1(b + 80u) * float(sc & 15u);
            precise float ml = HALF1(b + 82u) * float(sc >> 4);
            precise float y = dl * float(q) - ml;
            return y;
        }
        const uint b = ro + 110u * blk;
        const uint sb = b + 96u;
        const uint low = sj < 8u ? LOAD_U8(buf1, sb + sj) & 15u : LOAD_U8(buf1, sb + sj - 8u) >> 4;
        const uint high = (LOAD_U8(buf1, sb + 8u + (sj & 3u)) >> (2u * (sj >> 2))) & 3u;
        const int sc = int(low | (high << 4)) - 32;
        const int low2 = int((LOAD_U8(buf1, b + 32u + 32u * h + 16u * p + l) >> (2u * s)) & 3u);
        const bool hb = ((LOAD_U8(buf1, b + 16u * p + l) >> (4u * h + s)) & 1u) != 0u;
        precise float dl = HALF1(b + 108u) * float(sc);
        precise float y = dl * float(hb ? low2 : low2 - 4);
        return y;
    }
    if (FMT == T_IQ4_XS) {
        const uint b = ro + 136u * blk;
        const uint ib = j >> 5, jj = j & 31u;
        const uint sh = LOAD_U16(buf1, b + 2u);
        const uint ls = ((LOAD_U8(buf1, b + 4u + (ib >> 1)) >> (4u * (ib & 1u))) & 15u) |
                        (((sh >> (2u * ib)) & 3u) << 4);
        const uint byte = LOAD_U8(buf1, b + 8u + 16u * ib + (jj & 15u));
        precise float dl = HALF1(b) * float(int(ls) - 32);
        precise float y = dl * IQ4_VALUES[jj < 16u ? byte & 15u : byte >> 4];
        return y;
    }
    // Q6_K: ql[128], qh[64], scales[16] (int8), d
    const uint b = ro + 210u * blk;
    const uint h = j >> 7, k = (j >> 5) & 3u, l = j & 31u;
    const uint qlb = LOAD_U8(buf1, b + 64u * h + l + 32u * (k & 1u));
    const uint nib = k < 2u ? qlb & 15u : qlb >> 4;
    const uint qh = LOAD_U8(buf1, b + 128u + 32u * h + l);
    const int q = int(nib | (((qh >> (2u * k)) & 3u) << 4)) - 32;
    const int sc = int(LOAD_U8(buf1, b + 192u + (j >> 4)) << 24) >> 24;
    precise float ds = HALF1(b + 208u) * float(sc);
    precise float y = ds * float(q);
    return y;
}

// Elements i..i+3 of a weight row (i a multiple of 4) for the matrix kernels: one scale and one
// 32-bit word of quants for F32, F16, Q8_0, Q4_0, Q4_K, Q5_K and Q6_K (the others decode
// element by element).
vec4 weight_at4(uint ro, uint i) {
    if (FMT == T_F32) {
        const uint o = (ro + 4u * i) >> 2;
        return vec4(uintBitsToFloat(buf1.w[o]), uintBitsToFloat(buf1.w[o + 1u]),
                    uintBitsToFloat(buf1.w[o + 2u]), uintBitsToFloat(buf1.w[o + 3u]));
    }
    if (FMT == T_F16) {
        const uint o = ro + 2u * i;
#ifdef F16_STORAGE
        return vec4(HALF1(o), HALF1(o + 2u), HALF1(o + 4u), HALF1(o + 6u));
#else
        return vec4(unpackHalf2x16(LOAD_U32U(buf1, o)), unpackHalf2x16(LOAD_U32U(buf1, o + 4u)));
#endif
    }
    if (FMT == T_Q8_0) {
        const uint j = i & 31u;
        const uint b = ro + 34u * (i >> 5);
        const uint q = LOAD_U32U(buf1, b + 2u + j);
        const ivec4 v = ivec4(int(q << 24) >> 24, int(q << 16) >> 24, int(q << 8) >> 24, int(q) >> 24);
        return vec4(v) * HALF1(b);
    }
    if (FMT == T_Q4_0) {
        const uint j = i & 31u;
        const uint b = ro + 18u * (i >> 5);
        uint q = LOAD_U32U(buf1, b + 2u + (j & 15u));
        if (j >= 16u) q >>= 4;
        const vec4 v = vec4(ivec4(q & 15u, (q >> 8) & 15u, (q >> 16) & 15u, (q >> 24) & 15u) - 8);
        return v * HALF1(b);
    }
    if (FMT == T_Q4_K || FMT == T_Q5_K) {
        // Four elements share a sub-block of 32: one scale and min, one word of nibbles (and
        // for Q5_K one word of high bits); the arithmetic is weight_at's, element by element.
        const uint j = i & 255u;
        const uint b = ro + (FMT == T_Q4_K ? 144u : 176u) * (i >> 8);
        const uint c = j >> 6, hi = (j >> 5) & 1u, l = j & 31u;
        uint sc, m;
        scale_min_k4(b + 4u, 2u * c + hi, sc, m);
        uint q = LOAD_U32U(buf1, b + (FMT == T_Q4_K ? 16u : 48u) + 32u * c + l);
        if (hi == 1u) q >>= 4;
        uvec4 v = uvec4(q & 15u, (q >> 8) & 15u, (q >> 16) & 15u, (q >> 24) & 15u);
        if (FMT == T_Q5_K) {
            const uint h = LOAD_U32U(buf1, b + 16u + l) >> (2u * c + hi);
            v |= uvec4(h & 1u, (h >> 8) & 1u, (h >> 16) & 1u, (h >> 24) & 1u) << 4;
        }
        precise float d1 = HALF1(b) * float(sc);
        precise float m1 = HALF1(b + 2u) * float(m);
        precise vec4 y = d1 * vec4(v) - m1;
        return y;
    }
    if (FMT == T_Q6_K) {
        // Four elements share a scale and one word each of low nibbles and high bit pairs.
        const uint j = i & 255u;
        const uint b = ro + 210u * (i >> 8);
        const uint h = j >> 7, k = (j >> 5) & 3u, l = j & 31u;
        uint ql = LOAD_U32U(buf1, b + 64u * h + l + 32u * (k & 1u));
        if (k >= 2u) ql >>= 4;
        const uint qh = LOAD_U32U(buf1, b + 128u + 32u * h + l) >> (2u * k);
        const ivec4 q = ivec4(uvec4(ql & 15u, (ql >> 8) & 15u, (ql >> 16) & 15u, (ql >> 24) & 15u) |
                              (uvec4(qh & 3u, (qh >> 8) & 3u, (qh >> 16) & 3u, (qh >> 24) & 3u)
                               << 4)) -
                        32;
        const int sc = int(LOAD_U8(buf1, b + 192u + (j >> 4)) << 24) >> 24;
        precise float ds = HALF1(b + 208u) * float(sc);
        precise vec4 y = ds * vec4(q);
        return y;
    }
    return vec4(weight_at(ro, i), weight_at(ro, i + 1u), weight_at(ro, i + 2u), weight_at(ro, i + 3u));
}
