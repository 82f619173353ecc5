// KV append (quantized block by block on the way in, through the block table) and paged
// attention over F32/F16/Q8_0/Q4_0 caches. Attention is one warp per (head, token, chunk of
// cells), 32 cells at a time: each lane scores one cell, and an online softmax over the tiles
// keeps a running max, sum and output (each lane holding its share of the head's dims). Prefill
// uses one chunk per query; decode (few tokens) splits a sequence's cells into chunks run in
// parallel whose partial results the last of them to finish merges (flash-decoding). Quantized
// cells are decoded in registers, never expanded; over a Q8_0 / Q4_0 K (heads of whole blocks)
// the scores are integer products with the query rounded as on every backend
// (engine/quant/attn_query.h).
#include <algorithm>
#include <cfloat>
#include <type_traits>

#include "cuda_kv.cuh"
#include "cuda_pdl.cuh"
#include "cuda_q8dot.cuh"

namespace hearth::backend::cuda {

namespace {

constexpr int kDimsPerLane = kMaxHeadDim / 32;
// Cells per decode split: one tile, so that a decode step's few heads still give the GPU
// hundreds of warps (256 left an 8B model's attention at 96 warps for 640 cells, 22 us a layer
// on an H200).
constexpr int64_t kChunk = 32;
constexpr int64_t kMaxSplits = 128;
constexpr int64_t kSplitTokens = 4;  // batches of at most this many tokens are split

// One thread per element (F32/F16) or per 32-element block (Q8_0/Q4_0) of token t's row.
template <uint32_t T>
__device__ __forceinline__ void kv_append_row(const DevTensor& cache, const DevTensor& a,
                                              const KvArgs& kv, DevError* err, int node,
                                              int64_t t) {
    uint8_t* row = kv_row(cache, kv, t);
    if (!row) {
        if (threadIdx.x == 0) report(err, node, kErrKvIndex, t);
        return;
    }
    const float* x = f32_at(a, t);
    const int64_t n = cache.ne[0];
    if constexpr (T == kF32 || T == kF16) {
        for (int64_t i = threadIdx.x; i < n; i += blockDim.x) store_kv_elem<T>(row, i, x[i]);
    } else {
        for (int64_t g = threadIdx.x; g < n / 32; g += blockDim.x) {
            quantize_kv_block<T>(x + g * 32, row + g * Fmt<T>::bytes);
        }
    }
}

// Block (t, 0) appends token t's row of a to cache; block (t, 1), when there, b's to cache_b
// (K and V through the same positions and block table).
template <uint32_t T>
__global__ void k_kv_append(DevTensor cache, DevTensor a, DevTensor cache_b, DevTensor b, KvArgs kv,
                            DevError* err, int node) {
    pdl_release();
    pdl_wait();
    if (blockIdx.y == 0)
        kv_append_row<T>(cache, a, kv, err, node, blockIdx.x);
    else
        kv_append_row<T>(cache_b, b, kv, err, node + 1, blockIdx.x);
}

// The cells token t sees: [j0, n_kv) (its position and those before, within the window).
struct KvVisible {
    int64_t j0, n_kv;
};
__device__ __forceinline__ KvVisible kv_visible(const KvArgs& kv, int64_t t) {
    const int64_t n_kv = int64_t(i32_at(kv.positions, t)) + 1;
    return {kv.window > 0 ? max(int64_t(0), n_kv - kv.window) : 0, n_kv};
}

struct AttnShape {
    int64_t hd, H, T, group, n_splits, chunk;
};

// The splits of a token that hold visible cells: [begin, end).
struct SplitRange {
    int64_t begin, end;
};
__device__ __forceinline__ SplitRange split_range(const KvVisible& vis, const AttnShape& sh) {
    const int64_t end = vis.n_kv > 0 ? min(sh.n_splits, (vis.n_kv + sh.chunk - 1) / sh.chunk) : 0;
    return {vis.j0 / sh.chunk, end};
}

// Merges the splits of (head h, token t), [r.begin, r.end) (those that overlap the token's
// visible cells), with one warp; the parts are read past L1 (other blocks wrote them).
// q8: the output is also quantized for the dp4a product that reads it (q8, q8_ds: its 8-bit
// activations, the heads' outputs as one row of H * hd per token; hd a multiple of 32, so each
// pass's 32 consecutive dims are one group).
__device__ __noinline__ void merge_splits(const DevTensor& dst, const AttnShape& sh,
                                          const float* scratch, int64_t h, int64_t t, SplitRange r,
                                          int8_t* q8, float2* q8_ds) {
    const int lane = int(threadIdx.x) & 31;
    const int64_t hd = sh.hd;
    auto part_of = [&](int64_t sp) { return scratch + ((sp * sh.T + t) * sh.H + h) * (hd + 2); };
    float m = -INFINITY;
    for (int64_t sp = r.begin; sp < r.end; ++sp) {
        const float* part = part_of(sp);
        if (__ldcg(part + 1) > 0.f) m = fmaxf(m, __ldcg(part));
    }
    float* y = f32_at(dst, h, t);
    for (int64_t i = lane; i < hd; i += 32) {
        float l = 0.f, o = 0.f;
        for (int64_t sp = r.begin; sp < r.end; ++sp) {
            const float* part = part_of(sp);
            const float pl = __ldcg(part + 1);
            if (!(pl > 0.f)) continue;
            const float w = expf(__ldcg(part) - m);
            l += pl * w;
            o += __ldcg(part + 2 + i) * w;
        }
        const float v = l > 0.f ? o / l : 0.f;
        y[i] = v;
        if (q8) {
            const int64_t e = (t * sh.H + h) * hd + i;  // in the token-major row of H * hd
            quantize_group_q8(v, q8 + (e - lane), q8_ds + e / 32);
        }
    }
}

__device__ __forceinline__ int warp_sum_int(int v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// engine/quant/attn_query.h's rounding of a query block spread over the warp (one element x
// per lane): the lane's code, and in d the block's scale (NaN, codes 0, when any element is
// not finite). Correctly rounded division and product, as on the CPU.
__device__ __forceinline__ int attn_query_code(float x, float& d) {
    const bool bad = __any_sync(0xffffffffu, !isfinite(x));
    const float amax = warp_max(fabsf(x));
    d = bad ? __int_as_float(0x7FC00000) : __fdiv_rn(amax, 127.f);
    const float id = !bad && d >= FLT_MIN ? __fdiv_rn(1.f, d) : 0.f;  // subnormal d: zeros
    return bad ? 0 : int(fminf(fmaxf(rintf(mul_rn(x, id)), -127.f), 127.f));
}

// The score of one cache row kr (head offset off) against the query in shared memory: over
// a Q8_0 / Q4_0 cache with heads of whole blocks integer sums block by block, then
// s = sum_0 * (d_0 * dk_0), fma(sum_u, d_u * dk_u, s) (engine/quant/attn_query.h); otherwise
// the float dot product, times the scale.
template <uint32_t T>
__device__ __forceinline__ float attn_score(const uint8_t* kr, int64_t off, int64_t hd,
                                            bool int_scores, const float* qs, const int* qcs,
                                            const float* qds, const int* qcsum, float scale) {
    if constexpr (T == kQ8_0 || T == kQ4_0) {
        if (int_scores) {
            float acc_s = 0.f;
            for (int u = 0; 32 * u < hd; ++u) {
                const uint8_t* b = kr + ((off + 32 * u) / 32) * Fmt<T>::bytes;
                int isum = 0;
                if constexpr (T == kQ8_0) {
#pragma unroll
                    for (int w = 0; w < 8; ++w)
                        isum = dp4a(ld_i32_a2(b + 2 + 4 * w), qcs[u * 8 + w], isum);
                } else {  // elements 4w.. are low nibbles, 16 + 4w.. high ones; codes - 8
#pragma unroll
                    for (int w = 0; w < 4; ++w) {
                        const int v = ld_i32_a2(b + 2 + 4 * w);
                        isum = dp4a(v & 0x0F0F0F0F, qcs[u * 8 + w], isum);
                        isum = dp4a((v >> 4) & 0x0F0F0F0F, qcs[u * 8 + 4 + w], isum);
                    }
                    isum -= 8 * qcsum[u];
                }
                const float sc = mul_rn(qds[u], ld_f16(b));
                acc_s = u == 0 ? mul_rn(float(isum), sc) : __fmaf_rn(float(isum), sc, acc_s);
            }
            return acc_s;
        }
    }
    float dot = 0.f;
    if constexpr (T == kF16) {
        if (hd % 8 == 0 && reinterpret_cast<uintptr_t>(kr) % 16 == 0) {
            // 16-byte loads (a lane reads its own cell's row: 2-byte or 4-byte loads cost one
            // memory transaction per lane for a few bytes each). The same sum order.
            const auto* k8 = reinterpret_cast<const uint4*>(kr + 2 * off);
            for (int64_t i = 0; i < hd / 8; ++i) {
                const uint4 raw = k8[i];
                const uint32_t w[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&w[e]));
                    dot += qs[8 * i + 2 * e] * f.x;
                    dot += qs[8 * i + 2 * e + 1] * f.y;
                }
            }
            return dot * scale;
        }
        if (hd % 2 == 0) {  // rows and head offsets are then 4-byte aligned
            const auto* k2 = reinterpret_cast<const __half2*>(kr) + off / 2;
            for (int64_t i = 0; i < hd / 2; ++i) {
                const float2 f = __half22float2(k2[i]);
                dot += qs[2 * i] * f.x;
                dot += qs[2 * i + 1] * f.y;
            }
            return dot * scale;
        }
    }
    for (int64_t i = 0; i < hd; ++i) dot += qs[i] * kv_elem<T>(kr, off + i);
    return dot * scale;
}

// D contiguous elements of a cache row from element i0 (D | 32, so one quantized block), as
// kv_elem decodes them; F16 in one load of 2 D bytes (aligned: i0 is a multiple of D and rows
// hold whole heads of 32 D elements).
template <uint32_t T, int D>
__device__ __forceinline__ void load_row_part(const uint8_t* row, int64_t i0, float (&v)[D]) {
    if constexpr (T == kF16 && D >= 2) {
        using Vec = std::conditional_t<D == 2, uint32_t, std::conditional_t<D == 4, uint2, uint4>>;
        const Vec raw = *reinterpret_cast<const Vec*>(row + 2 * i0);
        const auto* h2 = reinterpret_cast<const __half2*>(&raw);
#pragma unroll
        for (int e = 0; e < D / 2; ++e) {
            const float2 f = __half22float2(h2[e]);
            v[2 * e] = f.x;
            v[2 * e + 1] = f.y;
        }
    } else {
#pragma unroll
        for (int e = 0; e < D; ++e) v[e] = kv_elem<T>(row, i0 + e);
    }
}

// Cells whose V rows are loaded before any is summed: the loads of a batch then wait on memory
// together instead of one after another (attention with its merge went from 21.9 to 15.9 us a
// layer of an 8B model on an H200, profile level 3, with 8 cells and the lanes' contiguous
// dims). As many cells as keep a lane's batch at 32 floats (64 for 256-wide heads): a whole
// 32-cell tile at once for 32-wide heads, half a tile for 64-wide ones (tinyllama's).
template <int D>
constexpr int kVBatch = D > 0 && 32 / D > 8 ? 32 / D : 8;

// One warp: head h, token t, cells [split * chunk, (split + 1) * chunk) of the token's visible
// range, 32 cells at a time: each lane scores one cell, the tile's softmax weights are shared
// across the warp, and every lane accumulates its dims of the weighted V rows: with D > 0
// (hd == 32 D) the D contiguous dims lane * D.., so a warp reads a V row in one coalesced load
// each; with D == 0 (other head sizes) dims lane + 32 u. Each dim sums its cells in order, so
// both give the same floats.
// Writes the normalised output when n_splits == 1, else (max, sum, unnormalised out) to
// scratch[(split * T + t) * H + h].
template <uint32_t T, int D>
__global__ void __launch_bounds__(32)
    k_attention(DevTensor dst, DevTensor q, DevTensor kc, DevTensor vc, KvArgs kv, AttnShape sh,
                float* scratch, unsigned* arrived, DevError* err, int node, int8_t* q8,
                float2* q8_ds) {
    pdl_release();
    pdl_wait();
    constexpr int kAcc = D > 0 ? D : kDimsPerLane;
    const int64_t h = blockIdx.x, t = blockIdx.y, split = blockIdx.z;
    const int lane = threadIdx.x;
    const int64_t hd = D > 0 ? 32 * D : sh.hd, off = (h / sh.group) * hd;
    auto dim = [&](int u) -> int64_t { return D > 0 ? lane * D + u : lane + 32 * u; };
    const int64_t s = kv_seq(kv, t);
    const KvVisible vis = kv_visible(kv, t);
    if (vis.n_kv <= 0) {  // a negative position: an index error, and no split counts
        if (split == 0 && lane == 0) report(err, node, kErrKvIndex, t);
        return;
    }
    const int64_t begin = max(vis.j0, split * sh.chunk);
    const int64_t end = min(vis.n_kv, (split + 1) * sh.chunk);
    // Splits past the sequence's end (or before its window) hold nothing: the merge reads only
    // those that do (the splits are sized from the block table, for the captured graph).
    if (sh.n_splits > 1 && begin >= end) return;

    // The query for every lane: as floats, and over a Q8_0 / Q4_0 cache with heads of whole
    // blocks rounded as on every backend (codes 4 to a word, a scale and a code sum per block).
    __shared__ float qs[kMaxHeadDim];
    __shared__ int qcs[kMaxHeadDim / 4];
    __shared__ float qds[kDimsPerLane];
    __shared__ int qcsum[kDimsPerLane];
    constexpr bool kIntFormat = T == kQ8_0 || T == kQ4_0;
    const bool int_scores = kIntFormat && hd % 32 == 0;
    float acc[kAcc];
#pragma unroll
    for (int u = 0; u < kAcc; ++u) acc[u] = 0.f;
    const float* qr = f32_at(q, h, t);
#pragma unroll
    for (int u = 0; u < kDimsPerLane; ++u) {
        const int64_t i = lane + 32 * u;
        const float qv = i < hd ? qr[i] : 0.f;
        qs[i] = qv;
        if (int_scores && 32 * u < hd) {  // the same for every lane
            float d;
            const int c = attn_query_code(mul_rn(qv, kv.scale), d);
            reinterpret_cast<int8_t*>(qcs)[i] = int8_t(c);
            const int csum = warp_sum_int(c);
            if (lane == 0) {
                qds[u] = d;
                qcsum[u] = csum;
            }
        }
    }
    __syncwarp();

    float m = -INFINITY, l = 0.f;
    bool failed = false;
    for (int64_t j = begin; j < end; j += 32) {
        const int64_t c = j + lane;
        float sc = -INFINITY;
        int64_t cell = 0;
        bool bad = false;
        if (c < end) {
            cell = kv_cell(kv, s, c, kc.ne[1]);
            if (cell < 0) {
                bad = true;
            } else {
                sc = attn_score<T>(reinterpret_cast<const uint8_t*>(at(kc, cell)), off, hd,
                                   int_scores, qs, qcs, qds, qcsum, kv.scale);
                if (kv.softcap > 0.f) sc = kv.softcap * tanhf(sc / kv.softcap);
            }
        }
        if (__any_sync(0xffffffffu, bad)) {
            if (lane == 0) report(err, node, kErrKvIndex, t);
            // The step fails; the split still arrives (empty) so that the count stays right.
            failed = true;
            break;
        }
        const float m_new = fmaxf(m, warp_max(sc));
        const float corr = expf(m - m_new);  // 0 on the first tile (m = -inf)
        const float p = c < end ? expf(sc - m_new) : 0.f;
        l = l * corr + warp_sum(p);
#pragma unroll
        for (int u = 0; u < kAcc; ++u) acc[u] *= corr;
        const int n_cells = int(min(int64_t(32), end - j));
        if constexpr (D > 0) {
            constexpr int kB = kVBatch<D>;
            for (int k0 = 0; k0 < n_cells; k0 += kB) {
                float pk[kB], vv[kB][D];
#pragma unroll
                for (int r = 0; r < kB; ++r) {
                    const int k = (k0 + r) & 31;
                    pk[r] = __shfl_sync(0xffffffffu, p, k);
                    const long long ck = __shfl_sync(0xffffffffu, static_cast<long long>(cell), k);
                    if (k0 + r < n_cells)
                        load_row_part<T, D>(reinterpret_cast<const uint8_t*>(at(vc, ck)),
                                            off + lane * D, vv[r]);
                }
#pragma unroll
                for (int r = 0; r < kB; ++r) {
                    if (k0 + r >= n_cells) break;
#pragma unroll
                    for (int u = 0; u < D; ++u) acc[u] += pk[r] * vv[r][u];
                }
            }
        } else {
            for (int k = 0; k < n_cells; ++k) {
                const float pk = __shfl_sync(0xffffffffu, p, k);
                const long long ck = __shfl_sync(0xffffffffu, static_cast<long long>(cell), k);
                const auto* vr = reinterpret_cast<const uint8_t*>(at(vc, ck));
#pragma unroll
                for (int u = 0; u < kAcc; ++u) {
                    const int64_t i = dim(u);
                    if (i < hd) acc[u] += pk * kv_elem<T>(vr, off + i);
                }
            }
        }
        m = m_new;
    }
    if (sh.n_splits == 1) {
        if (failed) return;
        float* y = f32_at(dst, h, t);
        const float inv = l > 0.f ? 1.f / l : 0.f;
#pragma unroll
        for (int u = 0; u < kAcc; ++u) {
            const int64_t i = dim(u);
            if (i < hd) y[i] = acc[u] * inv;
        }
        return;
    }
    float* part = scratch + ((split * sh.T + t) * sh.H + h) * (hd + 2);
    if (lane == 0) {
        part[0] = m;
        part[1] = failed ? 0.f : l;  // an empty split: the merge skips it
    }
#pragma unroll
    for (int u = 0; u < kAcc; ++u) {
        const int64_t i = dim(u);
        if (i < hd) part[2 + i] = acc[u];
    }
    // The last of the token's splits to arrive merges them all, so no second kernel (and its
    // launch, a few microseconds a layer of a decode step) is needed. Its part and every other
    // split's are visible to it once the count says they all arrived (each fenced its writes
    // before counting). It sets the count back to 0 for the next layer's attention.
    const SplitRange r = split_range(vis, sh);
    __threadfence();
    __syncwarp();  // every lane's writes fenced before lane 0 counts them
    unsigned last = 0;
    if (lane == 0) last = atomicAdd(arrived + t * sh.H + h, 1u) + 1u == unsigned(r.end - r.begin);
    if (!__shfl_sync(0xffffffffu, last, 0)) return;
    __threadfence();
    merge_splits(dst, sh, scratch, h, t, r, q8, q8_ds);
    if (lane == 0) arrived[t * sh.H + h] = 0u;
}

AttnShape shape_of(const DevTensor& q, const DevTensor& k_cache, const KvArgs& kv) {
    AttnShape sh{};
    sh.hd = q.ne[0];
    sh.H = q.ne[1];
    sh.T = q.ne[2];
    sh.group = sh.H / (k_cache.ne[0] / sh.hd);
    // The longest sequence the block table can address: splits are sized from it (not from the
    // positions, which live on the device), so a captured graph stays valid as they grow.
    const int64_t cap = kv.block_table.ne[0] * int64_t(kv.block_size);
    sh.n_splits = 1;
    sh.chunk = cap > 0 ? cap : 1;
    if (sh.T <= kSplitTokens && cap > kChunk) {
        sh.chunk = kChunk;
        sh.n_splits = (cap + kChunk - 1) / kChunk;
        if (sh.n_splits > kMaxSplits) {
            sh.chunk = (cap + kMaxSplits - 1) / kMaxSplits;
            sh.n_splits = (cap + sh.chunk - 1) / sh.chunk;
        }
    }
    return sh;
}

template <class F>
bool dispatch_kv(uint32_t type, F&& f) {
    switch (type) {
        case kF32:
            f.template operator()<kF32>();
            return true;
        case kF16:
            f.template operator()<kF16>();
            return true;
        case kQ8_0:
            f.template operator()<kQ8_0>();
            return true;
        case kQ4_0:
            f.template operator()<kQ4_0>();
            return true;
        default:
            return false;
    }
}

}  // namespace

bool kv_type_supported(uint32_t type) {
    return type == kF32 || type == kF16 || type == kQ8_0 || type == kQ4_0;
}

cudaError_t launch_kv_append(cudaStream_t s, const DevTensor& cache, const DevTensor& a,
                             const KvArgs& kv, DevError* err, int node, const DevTensor* cache_b,
                             const DevTensor* b) {
    if ((cache_b == nullptr) != (b == nullptr)) return cudaErrorInvalidValue;
    if (cache_b && (cache_b->type != cache.type || b->ne[1] != a.ne[1]))
        return cudaErrorInvalidValue;
    if (a.ne[1] == 0) return cudaSuccess;
    const DevTensor none{};
    dispatch_kv(cache.type, [&]<uint32_t T>() {
        const dim3 grid(unsigned(a.ne[1]), cache_b ? 2u : 1u);
        // A thread per element or block of the row (up to 1024), so that its loads are in
        // flight at once rather than looped over by a few threads.
        const int64_t items = (T == kF32 || T == kF16) ? cache.ne[0] : cache.ne[0] / 32;
        const unsigned threads = unsigned(std::clamp<int64_t>((items + 31) / 32 * 32, 32, 1024));
        launch_pdl(k_kv_append<T>, grid, dim3(threads), s, cache, a, cache_b ? *cache_b : none,
                   b ? *b : none, kv, err, node);
    });
    return cudaGetLastError();
}

namespace {

// The splits of a launch without its cache (the group size does not matter for the sizes).
AttnShape split_shape(const DevTensor& q, const KvArgs& kv) {
    DevTensor kc;
    kc.ne[0] = q.ne[0];
    return shape_of(q, kc, kv);
}

}  // namespace

size_t attention_scratch_bytes(const DevTensor& q, const KvArgs& kv) {
    const AttnShape sh = split_shape(q, kv);
    if (sh.n_splits == 1) return 0;
    return size_t(sh.n_splits * sh.T * sh.H * (sh.hd + 2)) * sizeof(float);
}

size_t attention_count_words(const DevTensor& q, const KvArgs& kv) {
    const AttnShape sh = split_shape(q, kv);
    return sh.n_splits == 1 ? 0 : size_t(sh.T * sh.H);
}

cudaError_t launch_attention(cudaStream_t s, const DevTensor& dst, const DevTensor& q,
                             const DevTensor& k_cache, const DevTensor& v_cache, const KvArgs& kv,
                             float* scratch, unsigned* counts, DevError* err, int node,
                             void* q8_scratch, bool* quantized) {
    if (quantized) *quantized = false;
    const AttnShape sh = shape_of(q, k_cache, kv);
    if (sh.T == 0 || sh.H == 0) return cudaSuccess;
    // The merging split can quantize the output when there are splits and the output is one
    // contiguous row of H * hd floats per token.
    const bool quant = q8_scratch && sh.n_splits > 1 && sh.hd % 32 == 0 && dst.nb[1] == sh.hd * 4 &&
                       dst.nb[2] == sh.hd * sh.H * 4;
    const Q8Act qa = quant ? q8_act(q8_scratch, sh.hd * sh.H, sh.T) : Q8Act{nullptr, nullptr};
    dispatch_kv(k_cache.type, [&]<uint32_t T>() {
        const dim3 grid(unsigned(sh.H), unsigned(sh.T), unsigned(sh.n_splits));
        auto attend = [&]<int D>() {
            launch_pdl(k_attention<T, D>, grid, dim3(32), s, dst, q, k_cache, v_cache, kv, sh,
                       scratch, counts, err, node, qa.q, qa.ds);
        };
        switch (sh.hd) {
            case 32:
                attend.template operator()<1>();
                break;
            case 64:
                attend.template operator()<2>();
                break;
            case 128:
                attend.template operator()<4>();
                break;
            case 256:
                attend.template operator()<8>();
                break;
            default:
                attend.template operator()<0>();
                break;
        }
    });
    if (quantized) *quantized = quant;
    return cudaGetLastError();
}

}  // namespace hearth::backend::cuda
