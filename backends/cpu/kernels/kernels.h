// Matrix kernels of the CPU backend: the weights stay in their file format; activations are
// quantized on the fly into whatever the weight type's dot product wants (e.g. 8-bit blocks for
// integer dot products). One implementation per ISA, picked at start from CPU features.
// Threading is the caller's: each call works on a slice of weight rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "quant/quant_type.h"

namespace hearth::cpu {

enum class Isa { Scalar, Avx2, Avx512, Neon };
std::string_view isa_name(Isa isa);

// The best ISA this CPU supports, unless the environment variable HEARTH_CPU_ISA
// (scalar | avx2 | avx512 | neon) forces a lower one. Decided once per process.
Isa active_isa();
// Tests: whether an ISA can run here, and forcing one (returns false if it can't run).
bool isa_supported(Isa isa);
bool force_isa(Isa isa);
// Whether products of packed Q4_0 / Q5_0 / Q8_0 weights with 48 or more tokens run on AMX tiles:
// the CPU has AMX-INT8, Linux granted the tile state, a probe product was right and
// HEARTH_CPU_ISA is unset or amx (avx512 keeps the VNNI kernels alone).
bool amx_active();

// Where a decode step's weight streams are prefetched to: "nta" (into L1 as non-temporal lines,
// the choice on AMD), "l2" (elsewhere), or "none" where the active path has no software
// prefetch (scalar). HEARTH_CPU_PREFETCH=nta|l2 overrides the choice.
std::string_view stream_prefetch_name();

// Whether gemv/gemm support a weight type (all GGUF weight types of the type table do).
bool supports_weight_type(quant::Type wtype);

// Prepared rows are ISA-independent (a row prepared under one ISA works under another) and are
// a multiple of 4 bytes long; buffers for them must be 4-byte aligned. Quantized weight types
// use int8 codes with one scale per 32 (or 256) elements.
// Bytes needed for one activation row of length k prepared for weight type wtype.
size_t activation_row_bytes(quant::Type wtype, size_t k);
// Prepares activation x[0..k) for dot products with rows of type wtype.
void quantize_activation(quant::Type wtype, const float* x, size_t k, void* out);
// The values a prepared activation row stands for (tests compare against them).
void dequantize_activation(quant::Type wtype, const void* xq, size_t k, float* out);
// Whether weight types a and b take the same prepared rows (quantize_activation makes the same
// bytes for both): products of one input with matrices of either type can share them.
bool same_activation_rows(quant::Type a, quant::Type b);

// SwiGLU's element function: out[i] = silu(g[i]) * u[i] for i in [0, n). An element's result
// depends only on g[i] and u[i] (never on n or i), so any split of a row gives the same bits.
// SIMD ISAs share one vector exp (kernels_x86_silu.inc); the scalar ISA uses std::exp.
// out may be g or u.
void silu_mul(const float* g, const float* u, float* out, size_t n);

// RMSNorm of one row: out[i] = x[i] * scale * w[i] for i in [0, n), scale = float(1 / sqrt(ss / n
// + eps)) in double, ss the sum of the squares in double over sixteen partial sums (element i
// into sum i % 16, in order), combined as sum j += sum j + 8, then + 4, + 2, + 1. Every ISA gives
// the same bits (a float's square is exact in double). out may be x.
void rms_norm_row(const float* x, const float* w, float eps, float* out, size_t n);

// KV cache rows in F16: out[i] = x[i] rounded to binary16 (nearest, ties to even), the same bits
// as quant::f32_to_f16 element by element (F16C on x86), for i in [0, n).
void f32_to_f16(const float* x, uint16_t* out, size_t n);

// Batch invariance, the rule for every matrix kernel here (gemv, gemm, gemm_packed, MoE) and
// every attention kernel: the value computed for (output row r, token t) depends only on W's
// row r and t's own prepared activation, never on how many tokens share the call, which tile
// or token chunk t falls in, or how the rows are split across threads. So each kernel fixes
// one reduction per row: the same blocks, in the same order, into the same number of partial
// accumulators, combined the same way, with the same FMA use, in every tile shape; tiles
// only share decoded weights across tokens (and hide latency with independent (row, token)
// chains, never by splitting one row's sum differently). Threads split rows or heads, never
// k. Decode (1 token), speculative verification (k + 1) and batched decode then give
// bit-identical logits, which speculation's greedy equality and the scheduler's "alone equals
// batched" rely on; cpu_kernels_test (InvarianceTest) checks it for every type and ISA,
// the AMX-INT8 tiles (48 or more tokens) included: they compute the VNNI kernel's integer sums
// and repeat its float steps.
//
// Unsupported types (supports_weight_type() false) and empty slices do nothing.
// out[i] = dot(W row (row_begin + i), x) for i in [0, row_end - row_begin).
// W points at row 0; rows are row_bytes(wtype, k) apart. xq comes from quantize_activation.
void gemv(quant::Type wtype, const void* w, size_t k, size_t row_begin, size_t row_end,
          const void* xq, float* out);

// Prefill: Y[j * y_stride + i] = dot(W row i, X_j) for i in [row_begin, row_end), j in [0, n).
// Xq holds n prepared activation rows, xq_stride bytes apart.
void gemm(quant::Type wtype, const void* w, size_t k, size_t row_begin, size_t row_end,
          const void* xq, size_t xq_stride, size_t n, float* y, size_t y_stride);

// --- Attention (flash style) -------------------------------------------------------------------
// One work item is `rows` query rows (token, head pairs that share one KV head) against runs of
// KV cells, with the online softmax. Each chunk of cells is decoded once (F16 / Q8_0 / Q4_0 to
// floats; a Q8_0 / Q4_0 K stays codes, see attn_begin) for all rows; scores and the weighted sum of
// V are small matrix products with the rows in SIMD lanes, so one instruction serves up to 16 rows
// and no horizontal sums are needed. A decode step's few rows (at most half a vector) take cells in
// lanes for the scores and head elements in lanes for the weighted sum instead, with bit-identical
// results. The caller keeps the per-item state in its scratch (attn_state_floats) and walks the
// cells: attn_begin, attn_chunk per run of up to kAttnChunk cells (attn_restart between runs that
// are combined later: attn_export), attn_end.
enum class KvFormat { F32, F16, Q8_0, Q4_0 };
constexpr size_t kAttnChunk = 64;
size_t attn_state_floats(size_t hd, size_t rows);
// q[r]: row r's query (hd floats); row r sees the cells j with lo[r] <= j <= hi[r]. fmt is the
// cache's: over a Q8_0 or Q4_0 cache (heads of whole 32-element blocks) a score is an integer
// dot product of codes, the pre-scaled query quantized as Q8_0 (per 32 elements, scale
// max|x| / 127, round half to even) against the cache's codes, times the two scales, block by
// block:
//   s = fma(sum_b, dq_b * dk_b, s) from b = 0 (s starts as sum_0 * (dq_0 * dk_0)),
// so every ISA and every row layout gives the same bits (llama.cpp's CPU path quantizes the
// query for a quantized K in the same way). Other formats: float products.
void attn_begin(float* state, size_t hd, size_t rows, const float* const* q, float scale,
                const int32_t* lo, const int32_t* hi, KvFormat fmt);
// A fresh run of cells for the same rows (a new segment): the running results are reset, the
// queries and visible ranges of attn_begin kept (as attn_begin with the same arguments).
void attn_restart(float* state, size_t hd, size_t rows);
// Cache bytes the caller reads next (the next chunk's rows), which attn_chunk requests from
// memory while it computes: bytes [begin, begin + bytes) of rows[0 .. n).
struct AttnPrefetch {
    const uint8_t* const* rows = nullptr;
    size_t n = 0;
    size_t begin = 0, bytes = 0;
};
// Cells j0 .. j0 + n - 1 (1 <= n <= kAttnChunk): k[c] and v[c] point at the cache rows of cell
// j0 + c; the head starts at element `off` of a row. softcap > 0: scores become
// softcap * tanh(score / softcap) (after the scale). `next` only moves memory, never results.
void attn_chunk(float* state, size_t hd, size_t rows, KvFormat fmt, const uint8_t* const* k,
                const uint8_t* const* v, size_t off, size_t n, int32_t j0, float softcap,
                const AttnPrefetch& next = {});
// out[r] = softmax-weighted sum of V for row r (hd floats); rows that saw no cell get zeros.
void attn_end(const float* state, size_t hd, size_t rows, float* const* out);
// What attn_end divides, for combining runs of cells folded apart: per row, kAttnPartFloats
// + hd floats at out + r * (hd + kAttnPartFloats): the running max (-inf: no cell seen), the
// sum of weights, then the weighted sum of V (attn_end's out is that sum times 1 / the sum of
// weights, or zeros when the latter is 0).
constexpr size_t kAttnPartFloats = 2;
void attn_export(const float* state, size_t hd, size_t rows, float* out);

}  // namespace hearth::cpu
