// Attention work items (see kernels.h): the ISA-independent set-up and read-out, the portable
// chunk step and the dispatch of the chunk step to the SIMD variants.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/kernels_internal.h"
#include "kernels/packed.h"
#include "quant/attn_query.h"

namespace hearth::cpu {

namespace {

using detail::AttnLayout;

const detail::SimdKernels* attn_simd() {
    switch (active_isa()) {
        case Isa::Avx2:
            return detail::avx2_kernels();
        case Isa::Avx512:
            if (detail::cpu_has_avx512vnni() && detail::avx512vnni_kernels())
                return detail::avx512vnni_kernels();
            return detail::avx512_kernels();
        default:
            return nullptr;
    }
}

// Whether the active SIMD chunk step keeps this state's OT row-major (kernels_internal.h):
// attn_begin and the read-outs must agree on it.
bool state_rows_major(size_t hd, size_t rows) {
    const auto* simd = attn_simd();
    return simd && detail::attn_rows_major(simd->attn_lanes, hd, rows);
}

// A Q8_0 / Q4_0 block (q4) of a cache row: its scale and the code of its element w.
const uint8_t* kv_block(const uint8_t* row, size_t e, bool q4) {
    return row + q32_block_bytes(q4 ? quant::Type::Q4_0 : quant::Type::Q8_0) * (e / 32);
}
float kv_block_scale(const uint8_t* block) {
    uint16_t h;
    std::memcpy(&h, block, 2);
    return detail::half_to_float(h);
}
int32_t kv_block_code(const uint8_t* block, size_t w, bool q4) {
    if (!q4) return static_cast<int8_t>(block[2 + w]);
    return (w < 16 ? (block[2 + w] & 0x0F) : (block[2 + w - 16] >> 4)) - 8;
}

}  // namespace

float detail::kv_element(KvFormat fmt, const uint8_t* row, size_t e) {
    switch (fmt) {
        case KvFormat::F32: {
            float f;
            std::memcpy(&f, row + 4 * e, 4);
            return f;
        }
        case KvFormat::F16: {
            uint16_t h;
            std::memcpy(&h, row + 2 * e, 2);
            return detail::half_to_float(h);
        }
        case KvFormat::Q8_0:
        case KvFormat::Q4_0: {
            const bool q4 = fmt == KvFormat::Q4_0;
            const uint8_t* b = kv_block(row, e, q4);
            return kv_block_scale(b) * static_cast<float>(kv_block_code(b, e % 32, q4));
        }
    }
    return 0.0f;
}

namespace {

// Where element e of row r's query code sits in QQ ([hd / 4][rp][4], kernels_internal.h).
size_t qq_index(const AttnLayout& a, size_t r, size_t e) {
    return (e / 4 * a.rp + r) * 4 + e % 4;
}

// Row r's score against cache row k (head from element off) from the codes (kernels.h
// attn_begin: integer sums, then the scales block by block); Q4_0 when q4, else Q8_0.
float int_score(const AttnLayout& a, size_t r, const uint8_t* k, size_t off, bool q4) {
    float s = 0.0f;
    for (size_t b = 0; b < a.hd / 32; ++b) {
        const uint8_t* kb = kv_block(k, off + 32 * b, q4);
        int32_t sum = 0;
        for (size_t i = 0; i < 32; ++i)
            sum += int32_t(a.qq[qq_index(a, r, 32 * b + i)]) * kv_block_code(kb, i, q4);
        const float scale = a.qd[b * a.rp + r] * kv_block_scale(kb);
        s = b == 0 ? float(sum) * scale : std::fma(float(sum), scale, s);
    }
    return s;
}

// The portable chunk step: the same arithmetic as the SIMD files, one lane at a time.
void attn_chunk_scalar(float* st, size_t hd, size_t rows, KvFormat fmt, const uint8_t* const* k,
                       const uint8_t* const* v, size_t off, size_t n, int32_t j0, float softcap) {
    const AttnLayout a = detail::attn_layout(st, hd, rows);
    const bool int_scores = detail::attn_int_scores(fmt, hd);
    for (size_t c = 0; c < n; ++c)
        for (size_t i = 0; i < hd; ++i) {
            if (!int_scores) a.kb[c * hd + i] = detail::kv_element(fmt, k[c], off + i);
            a.vb[c * hd + i] = detail::kv_element(fmt, v[c], off + i);
        }
    for (size_t r = 0; r < rows; ++r) {
        float* s = a.s + r;  // column r of S: s[c * rp]
        float mx = a.m[r];
        for (size_t c = 0; c < n; ++c) {
            const int32_t j = j0 + static_cast<int32_t>(c);
            float x = -INFINITY;
            if (j >= a.lo[r] && j <= a.hi[r]) {
                x = 0.0f;
                if (int_scores)
                    x = int_score(a, r, k[c], off, fmt == KvFormat::Q4_0);
                else
                    for (size_t i = 0; i < hd; ++i) x += a.qt[i * a.rp + r] * a.kb[c * hd + i];
                if (softcap > 0.0f) x = softcap * std::tanh(x / softcap);
            }
            s[c * a.rp] = x;
            mx = std::max(mx, x);
        }
        if (mx == -INFINITY) continue;  // nothing visible yet
        const float corr = a.m[r] == -INFINITY ? 0.0f : std::exp(a.m[r] - mx);
        a.m[r] = mx;
        float l = a.l[r] * corr;
        for (size_t i = 0; i < hd; ++i) a.ot[i * a.rp + r] *= corr;
        for (size_t c = 0; c < n; ++c) {
            const float x = s[c * a.rp];
            if (x == -INFINITY) continue;
            const float p = std::exp(x - mx);
            l += p;
            for (size_t i = 0; i < hd; ++i) a.ot[i * a.rp + r] += p * a.vb[c * hd + i];
        }
        a.l[r] = l;
    }
}

}  // namespace

size_t attn_state_floats(size_t hd, size_t rows) {
    const size_t rp = (rows + detail::kAttnLanes - 1) / detail::kAttnLanes * detail::kAttnLanes;
    return 2 * hd * rp + 4 * rp + kAttnChunk * rp + 2 * (kAttnChunk + 8) * hd + (hd * rp + 3) / 4 +
           2 * (hd / 32) * rp + rp + 15;  // + 15: attn_layout's alignment
}

namespace {

// Row r's pre-scaled query (q * scale, as in QT) as Q8_0 codes into QQ, QD and QC
// (kernels_internal.h), by the rule every backend follows (quant/attn_query.h).
void quantize_query(const AttnLayout& a, size_t r, const float* q, float scale) {
    for (size_t b = 0; b < a.hd / 32; ++b) {
        int8_t codes[32];
        const float d = quant::attention_query_block(q + 32 * b, scale, codes);
        int32_t sum = 0;
        for (size_t i = 0; i < 32; ++i) sum += codes[i];
        for (size_t i = 0; i < 32; i += 4)  // 4 elements per 32-bit lane of QQ
            std::memcpy(a.qq + qq_index(a, r, 32 * b + i), codes + i, 4);
        a.qd[b * a.rp + r] = d;
        a.qc[b * a.rp + r] = 128 * sum;
    }
}

// The running results of a state to their empty values: OT zero, m -inf, l 0.
void reset_results(const AttnLayout& a, size_t rows, bool few) {
    std::fill(a.ot, a.ot + a.hd * (few ? rows : a.rp), 0.0f);
    std::fill(a.m, a.m + a.rp, -INFINITY);
    std::fill(a.l, a.l + a.rp, 0.0f);
}

}  // namespace

void attn_begin(float* st, size_t hd, size_t rows, const float* const* q, float scale,
                const int32_t* lo, const int32_t* hi, KvFormat fmt) {
    const AttnLayout a = detail::attn_layout(st, hd, rows);
    // With few rows (OT row-major, kernels_internal.h) the chunk step reads neither the padding
    // lanes of QT nor OT beyond rows * hd: a decode step begins a state per KV head and work
    // item, and filling those took ~3% of its attention (one thread, 7 rows, hd 64).
    const bool few = state_rows_major(hd, rows);
    const bool int_scores = detail::attn_int_scores(fmt, hd);
    // Element-major, so the stores run along the transposed rows: walking the transpose row by
    // row took 3.3% of a batched decode profile (8 tinyllama sequences), 0.8% this way. Integer
    // scores read the codes below instead.
    for (size_t i = 0; i < hd && !int_scores; ++i) {
        float* qt = a.qt + i * a.rp;
        for (size_t r = 0; r < rows; ++r) qt[r] = q[r][i] * scale;
        if (!few) std::fill(qt + rows, qt + a.rp, 0.0f);
    }
    reset_results(a, rows, few);
    for (size_t r = 0; r < a.rp; ++r) {
        const bool real = r < rows;
        a.lo[r] = real ? lo[r] : 1;  // padding lanes see nothing
        a.hi[r] = real ? hi[r] : 0;
    }
    if (int_scores) {
        // Padding rows get zero codes (their scores are masked): the SIMD tiles read them.
        for (size_t r = 0; r < rows; ++r) quantize_query(a, r, q[r], scale);
        // (QQ is [hd / 4][rp][4]: a piece's padding rows are one run of bytes; writing them
        // byte by byte was a quarter of attn_begin in a decode step, 7 rows of 16.)
        for (size_t p = 0; p < hd / 4; ++p)
            std::memset(a.qq + qq_index(a, rows, 4 * p), 0, (a.rp - rows) * 4);
        for (size_t b = 0; b < hd / 32; ++b)
            for (size_t r = rows; r < a.rp; ++r) {
                a.qd[b * a.rp + r] = 0.0f;
                a.qc[b * a.rp + r] = 0;
            }
    }
}

void attn_restart(float* st, size_t hd, size_t rows) {
    reset_results(detail::attn_layout(st, hd, rows), rows, state_rows_major(hd, rows));
}

void attn_chunk(float* state, size_t hd, size_t rows, KvFormat fmt, const uint8_t* const* k,
                const uint8_t* const* v, size_t off, size_t n, int32_t j0, float softcap,
                const AttnPrefetch& next) {
    if (n == 0 || rows == 0) return detail::AttnPrefetchLines<3>(next).issue_all();
    n = std::min(n, kAttnChunk);
    if (const auto* simd = attn_simd())
        return simd->attn_chunk(state, hd, rows, fmt, k, v, off, n, j0, softcap, next);
    detail::AttnPrefetchLines<3>(next).issue_all();
    attn_chunk_scalar(state, hd, rows, fmt, k, v, off, n, j0, softcap);
}

namespace {

// A state's running results, read in whichever layout attn_chunk keeps OT.
struct StateResults {
    AttnLayout a;
    bool rows_major;
    StateResults(const float* st, size_t hd, size_t rows)
        : a(detail::attn_layout(const_cast<float*>(st), hd, rows)),
          rows_major(state_rows_major(hd, rows)) {}
    float ot(size_t r, size_t i) const {
        return rows_major ? a.ot[r * a.hd + i] : a.ot[i * a.rp + r];
    }
};

}  // namespace

void attn_end(const float* st, size_t hd, size_t rows, float* const* out) {
    if (const auto* simd = attn_simd()) return simd->attn_end(st, hd, rows, out);
    const StateResults sr(st, hd, rows);
    for (size_t r = 0; r < rows; ++r) {
        const float inv = sr.a.l[r] > 0.0f ? 1.0f / sr.a.l[r] : 0.0f;
        for (size_t i = 0; i < hd; ++i) out[r][i] = sr.ot(r, i) * inv;
    }
}

void attn_export(const float* st, size_t hd, size_t rows, float* out) {
    if (const auto* simd = attn_simd()) return simd->attn_export(st, hd, rows, out);
    const StateResults sr(st, hd, rows);
    const size_t pf = hd + kAttnPartFloats;
    for (size_t r = 0; r < rows; ++r) {
        out[r * pf] = sr.a.m[r];
        out[r * pf + 1] = sr.a.l[r];
    }
    if (sr.rows_major) {
        for (size_t r = 0; r < rows; ++r)
            std::copy_n(sr.a.ot + r * hd, hd, out + r * pf + kAttnPartFloats);
        return;
    }
    // OT is [hd][rp]: a block of rows at a time, so each element of the head reads one run
    // of OT and the block's outputs stay in L1 (row by row, every read was a line of its own).
    constexpr size_t kBlock = 16;
    for (size_t r0 = 0; r0 < rows; r0 += kBlock) {
        const size_t r1 = std::min(rows, r0 + kBlock);
        for (size_t i = 0; i < hd; ++i) {
            const float* o = sr.a.ot + i * sr.a.rp;
            for (size_t r = r0; r < r1; ++r) out[r * pf + kAttnPartFloats + i] = o[r];
        }
    }
}

}  // namespace hearth::cpu
