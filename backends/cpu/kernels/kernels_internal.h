// Internal to the CPU kernels: activation layouts shared by every ISA, the scalar block decoder
// and the per-ISA entry points. Not for the backend; it uses kernels.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/kernels.h"

namespace hearth::cpu {
struct PackedWeight;
}

namespace hearth::cpu::detail {

// How an activation row is prepared. The layout never depends on the ISA, so a row prepared
// under one ISA can be consumed by another (tests force ISAs between calls).
enum class ActKind {
    F32,     // k floats, as given (F32 / F16 / BF16 weights)
    Q8x32,   // int8 qs[k]; float d[k/32]; float s[k/32] = d * sum(qs of the block)
    Q8x256,  // int8 qs[k]; float d[k/256]; int16 bsums[k/16] (sum of each 16 codes)
};
ActKind act_kind(quant::Type wtype);

struct Q8x32Row {
    const int8_t* qs;
    const float* d;
    const float* s;
};
struct Q8x256Row {
    const int8_t* qs;
    const float* d;
    const int16_t* bsums;
};
inline Q8x32Row q8x32_row(const void* xq, size_t k) {
    const auto* b = static_cast<const uint8_t*>(xq);
    const auto* d = reinterpret_cast<const float*>(b + k);
    return {reinterpret_cast<const int8_t*>(b), d, d + k / 32};
}
inline Q8x256Row q8x256_row(const void* xq, size_t k) {
    const auto* b = static_cast<const uint8_t*>(xq);
    const auto* d = reinterpret_cast<const float*>(b + k);
    return {reinterpret_cast<const int8_t*>(b), d, reinterpret_cast<const int16_t*>(d + k / 256)};
}

float half_to_float(uint16_t h);
// Element e of a KV cache row of format fmt as a float (kernels_attn.cpp; the SIMD attention
// decodes whole runs itself and calls this for what is left).
float kv_element(KvFormat fmt, const uint8_t* row, size_t e);
inline float bf16_to_float(uint16_t h) {
    uint32_t bits = static_cast<uint32_t>(h) << 16;
    float f;
    __builtin_memcpy(&f, &bits, 4);
    return f;
}

// Decodes one weight row of k elements into floats (the scalar kernels' weight path).
void decode_row(quant::Type wtype, const uint8_t* row, size_t k, float* out);

// The scalar kernels (always available; the SIMD entry points fall back to them).
void gemv_scalar(quant::Type wtype, const uint8_t* w, size_t k, size_t r0, size_t r1,
                 const void* xq, float* out);
void gemm_scalar(quant::Type wtype, const uint8_t* w, size_t k, size_t r0, size_t r1,
                 const uint8_t* xq, size_t xq_stride, size_t n, float* y, size_t y_stride);

// SIMD entry points: return false when the ISA has no kernel for the type (caller falls back).
struct SimdKernels {
    bool (*gemv)(quant::Type wtype, const uint8_t* w, size_t k, size_t r0, size_t r1,
                 const void* xq, float* out);
    bool (*gemm)(quant::Type wtype, const uint8_t* w, size_t k, size_t r0, size_t r1,
                 const uint8_t* xq, size_t xq_stride, size_t n, float* y, size_t y_stride);
    // Activation preparation, bit-identical to the scalar code.
    void (*quantize_q8x32)(const float* x, size_t k, void* out);
    void (*quantize_q8x256)(const float* x, size_t k, void* out);
    // attn_chunk on the state layout of kernels_attn.cpp (AttnLayout).
    void (*attn_chunk)(float* state, size_t hd, size_t rows, KvFormat fmt, const uint8_t* const* k,
                       const uint8_t* const* v, size_t off, size_t n, int32_t j0, float softcap,
                       const AttnPrefetch& next);
    // attn_end and attn_export of kernels.h on the state attn_chunk keeps
    void (*attn_end)(const float* state, size_t hd, size_t rows, float* const* out);
    void (*attn_export)(const float* state, size_t hd, size_t rows, float* out);
    // gemm over packed weights (packed.h); false when the type has no packed kernel.
    bool (*gemm_packed)(const PackedWeight& pw, size_t r0, size_t r1, const uint8_t* xq,
                        size_t xq_stride, size_t n, float* y, size_t y_stride);
    // silu_mul of kernels.h
    void (*silu_mul)(const float* g, const float* u, float* out, size_t n);
    // f32_to_f16 of kernels.h
    void (*f32_to_f16)(const float* x, uint16_t* out, size_t n);
    // rms_norm_row of kernels.h
    void (*rms_norm_row)(const float* x, const float* w, float eps, float* out, size_t n);
    size_t attn_lanes;  // floats per vector in attn_chunk (attn_rows_major)
};
// The attention state (floats; rows padded to kAttnLanes, so every ISA uses the same layout):
// QT [hd][rp] (queries, transposed and pre-scaled), OT [hd][rp] (running weighted sums of V),
// m [rp] (running max), l [rp] (running sum of weights), lo, hi [rp] (int32: visible cells),
// S [kAttnChunk][rp] (scores, then weights, of one chunk), K, V [kAttnChunk + 8][hd] (the
// chunk decoded to floats; K's padding cells are zero), then the queries as 8-bit codes for a Q8_0
// or Q4_0 cache (attn_int_scores): QQ (int8, [hd / 4][rp][4]: 4 elements of a row per 32-bit lane),
// QD [hd / 32][rp] (a block's scale) and QC [hd / 32][rp] (int32: 128 * the block's code sum).
// With integer scores, K's buffer holds the chunk's codes and scales instead of floats.
// Exception: with few rows (at most half of one of the ISA's vectors; a decode step) and heads
// of whole vectors, the SIMD attn_chunk keeps OT row-major, [rows][hd]
// (kernels_x86_attn_few.inc).
constexpr size_t kAttnLanes = 16;
constexpr bool attn_rows_major(size_t simd_lanes, size_t hd, size_t rows) {
    return simd_lanes > 0 && rows > 0 && 2 * rows <= simd_lanes && hd % simd_lanes == 0;
}

// Where a one-token tile's software prefetches put the weight stream (prefetch_stream in
// kernels_x86_common.inc): true, into L1 as non-temporal lines (prefetchnta); false, into L2
// (prefetcht1). Intel cores hold an L1 miss buffer per request in flight and ran decode 12-19 %
// faster asking into L2; a Zen 5 VM ran it faster asking into L1 non-temporally (20 of 24
// model runs, kernels_x86_common.inc). Chosen once from the CPU's vendor, or
// HEARTH_CPU_PREFETCH=l2|nta; a plain variable that the kernels read in their inner loops (written
// only before kernels run, or between calls by tests and benchmarks through
// set_stream_prefetch_nta).
extern bool g_stream_prefetch_nta;
// Sets it; returns the old value.
bool set_stream_prefetch_nta(bool nta);

// An AttnPrefetch's cache lines in order, requested `count` at a time into L2 (Locality 2; into
// L1 as non-temporal lines instead where g_stream_prefetch_nta says so: Zen 5 decoded
// qwen2.5-0.5b Q4_0 at a 4k context at 94.2/93.7 -> 100.3/99.0 tok/s) or L1 (3). A decode
// step's item (few rows) spreads them over its chunk into L2 (on Intel): its chunk
// computes for a microsecond or two, a burst of a few hundred requests before it stalled the
// core once its outstanding misses filled up, and into L1 (48 KB here) the next chunk evicted
// the current one, whose K and V rows of an item's heads are 32 KB at qwen2.5-0.5b's shape
// (cpu_kernel_bench --attn, decode in memory, F16, best of 4 rounds: 3.0-3.8 us a chunk and head
// with the burst, 2.39-2.43 spread into L1, 2.14-2.17 spread into L2, 1.95 with the cache in
// L2). A prefill's item computes long on each chunk and asks for the next one at its start,
// into L1 (as the weight streams of tiles of several tokens do: kernels_x86_common.inc).
template <int Locality>
class AttnPrefetchLines {
public:
    explicit AttnPrefetchLines(const AttnPrefetch& p) : p_(p), n_(p.bytes > 0 ? p.n : 0) {
        start_row();
    }
    // Requests up to `count` more lines.
    void issue(size_t count) {
        for (; count > 0 && row_ < n_; --count) {
            const auto* line = reinterpret_cast<const void*>(line_);
            if (Locality == 2 && g_stream_prefetch_nta)
                __builtin_prefetch(line, 0, 0);
            else
                __builtin_prefetch(line, 0, Locality);
            line_ += 64;
            if (line_ >= end_) {
                ++row_;
                start_row();
            }
        }
    }
    void issue_all() { issue(SIZE_MAX); }
    // At least the number of lines (a row's bytes may straddle one more line than they fill).
    size_t lines_bound() const { return n_ * ((p_.bytes + 63) / 64 + 1); }

private:
    void start_row() {
        if (row_ >= n_) return;
        const auto first = reinterpret_cast<uintptr_t>(p_.rows[row_] + p_.begin);
        line_ = first & ~uintptr_t(63);
        end_ = first + p_.bytes;
    }
    const AttnPrefetch& p_;
    size_t n_, row_ = 0;
    uintptr_t line_ = 0, end_ = 0;
};

// attn_layout is static (internal linkage): the SIMD files compile their own copy.
struct AttnLayout {
    size_t hd, rp;
    float* qt;
    float* ot;
    float* m;
    float* l;
    int32_t* lo;
    int32_t* hi;
    float* s;
    float* kb;
    float* vb;
    int8_t* qq;
    float* qd;
    int32_t* qc;
    float* corr;  // a chunk's rescale factors per row, from its softmax to its weighted sum
};
// Whether scores over a cache of this format are integer dot products of the codes: Q8_0 and
// Q4_0 with heads of whole blocks (kernels.h attn_begin).
constexpr bool attn_int_scores(KvFormat fmt, size_t hd) {
    return (fmt == KvFormat::Q8_0 || fmt == KvFormat::Q4_0) && hd % 32 == 0;
}
// The state starts at the first 64-byte boundary of the caller's buffer (attn_state_floats
// counts the slack), so its vectors of 16 floats never straddle two cache lines: the CPU
// backend's per-thread scratch put every state 32 bytes past a boundary. Aligned, a 512-token
// prefill's attention took 12% less time (qwen2.5-0.5b, HEARTH_CPU_PROFILE, three alternating
// rounds: 2.82-2.97 ms a layer before, 2.50-2.60 after) and cpu_kernel_bench --attn's decode
// chunk in cache 19% less.
static inline AttnLayout attn_layout(float* st, size_t hd, size_t rows) {
    AttnLayout a;
    a.hd = hd;
    a.rp = (rows + kAttnLanes - 1) / kAttnLanes * kAttnLanes;
    a.qt = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(st) + 63) & ~uintptr_t(63));
    a.ot = a.qt + hd * a.rp;
    a.m = a.ot + hd * a.rp;
    a.l = a.m + a.rp;
    a.lo = reinterpret_cast<int32_t*>(a.l + a.rp);
    a.hi = a.lo + a.rp;
    a.s = reinterpret_cast<float*>(a.hi + a.rp);
    a.kb = a.s + kAttnChunk * a.rp;
    a.vb = a.kb + (kAttnChunk + 8) * hd;
    a.qq = reinterpret_cast<int8_t*>(a.vb + (kAttnChunk + 8) * hd);
    a.qd = a.vb + (kAttnChunk + 8) * hd + (hd * a.rp + 3) / 4;
    a.qc = reinterpret_cast<int32_t*>(a.qd + hd / 32 * a.rp);
    a.corr = reinterpret_cast<float*>(a.qc + hd / 32 * a.rp);
    return a;
}

// The SIMD kernels of an ISA (nullptr: scalar, or not compiled in / not runnable here).
const SimdKernels* simd_for(Isa isa);
const SimdKernels* avx2_kernels();        // nullptr when not compiled in
const SimdKernels* avx512_kernels();      // AVX-512 F/BW/VL without VNNI
const SimdKernels* avx512vnni_kernels();  // AVX-512 F/BW/VL + VNNI
bool cpu_has_avx512vnni();
// Tests: whether the AVX-512 path may use its VNNI variant (default true); returns the old value.
bool allow_avx512vnni(bool allow);
// AMX-INT8 (kernels_amx.cpp): whether this CPU and OS run it and HEARTH_CPU_ISA allows it;
// tests turn it off and on (returns the old value).
bool cpu_has_amx();
bool allow_amx(bool allow);
// Requests the tile state from Linux and checks one product (feature detection calls it).
bool amx_enable();

// Packed Q4_0 / Q5_0 / Q8_0 product on AMX tiles (any n >= 1; bit-identical to the VNNI kernel);
// false: not handled. gemm_packed uses it from kAmxMinTokens tokens on: each group's codes are
// unpacked once for the tiles of a call, which few tokens do not repay (cpu_kernel_bench
// --packed, 2048 x 5632 over 2 threads, GFLOP/s VNNI / AMX: 16 tokens 670-820 / 540-610,
// 32 770-810 / 790-830, 48 780-800 / 840-920, 64 800-830 / 930-1,070, 256 800-870 /
// 1,050-1,260).
constexpr size_t kAmxMinTokens = 48;
bool amx_gemm_packed(const PackedWeight& pw, size_t r0, size_t r1, const uint8_t* xq,
                     size_t xq_stride, size_t n, float* y, size_t y_stride);

}  // namespace hearth::cpu::detail
