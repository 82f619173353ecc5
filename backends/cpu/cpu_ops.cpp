#include "cpu/cpu_ops.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "core/host_access.h"
#include "core/kv_lookup.h"
#include "cpu/kernels/kernels.h"
#include "quant/quant_ref.h"

namespace hearth::backend::cpu_ops {

// Handing a chunk to another thread costs microseconds; give each chunk at least this much
// work (multiply-adds or element updates) so small models and decode steps of tiny ops stay
// on one thread.
constexpr size_t kMinChunkWork = 64 * 1024;

size_t grain_for(size_t work_per_item) {
    return std::max<size_t>(1, kMinChunkWork / std::max<size_t>(1, work_per_item));
}

namespace {

Status get_rows(const Node& n, cpu::ThreadPool& pool) {
    const Tensor& table = n.src[0];
    const int32_t* ids = i32_data(n.src[1]);
    for (int64_t t = 0; t < n.dst.ne[1]; ++t)
        if (ids[t] < 0 || ids[t] >= table.ne[1])
            return Status::error("get_rows: token id " + std::to_string(ids[t]) +
                                 " outside the vocabulary of " + std::to_string(table.ne[1]));
    const Node* np = &n;
    pool.parallel_for(static_cast<size_t>(n.dst.ne[1]), grain_for(size_t(n.dst.ne[0])),
                      [np](size_t b, size_t e, int) {
                          const Tensor& tab = np->src[0];
                          const int32_t* id = i32_data(np->src[1]);
                          for (size_t t = b; t < e; ++t)
                              quant::dequantize_row(quant_type(tab.type), row_ptr(tab, id[t]),
                                                    f32_row(np->dst, static_cast<int64_t>(t)),
                                                    static_cast<size_t>(tab.ne[0]));
                      });
    return Status::ok();
}

struct MatMulArgs {
    const Node* n;
    quant::Type wt;
    size_t k;
    size_t xq_stride;
    std::byte* xq;
};

Status mat_mul(const Node& n, cpu::ThreadPool& pool, Scratch& scratch) {
    const Tensor& w = n.src[0];
    const quant::Type wt = quant_type(w.type);
    if (!cpu::supports_weight_type(wt))
        return Status::error(std::string("mat_mul: no CPU kernel for ") + dtype_name(w.type));
    if (w.nb[1] != w.row_bytes()) return Status::error("mat_mul: weight rows must be dense");
    MatMulArgs args{&n, wt, static_cast<size_t>(w.ne[0]),
                    cpu::activation_row_bytes(wt, static_cast<size_t>(w.ne[0])),
                    scratch.activations.data()};
    const MatMulArgs* a = &args;
    const size_t n_tok = static_cast<size_t>(n.src[1].ne[1]);
    pool.parallel_for(n_tok, grain_for(args.k), [a](size_t b, size_t e, int) {
        for (size_t t = b; t < e; ++t)
            cpu::quantize_activation(a->wt, f32_row(a->n->src[1], static_cast<int64_t>(t)), a->k,
                                     a->xq + t * a->xq_stride);
    });
    const size_t rows = static_cast<size_t>(w.ne[1]);
    // Enough rows per chunk to amortise the hand-off, few enough to balance the threads.
    const size_t grain = std::max(grain_for(args.k * n_tok),
                                  std::min<size_t>(64, rows / (4 * size_t(pool.size())) + 1));
    if (n_tok == 1) {
        pool.parallel_for(rows, grain, [a](size_t b, size_t e, int) {
            const Tensor& wt = a->n->src[0];
            cpu::gemv(a->wt, row_ptr(wt, 0), a->k, b, e, a->xq, f32_row(a->n->dst, 0) + b);
        });
    } else {
        pool.parallel_for(rows, grain, [a](size_t b, size_t e, int) {
            const Tensor& wt = a->n->src[0];
            const Tensor& d = a->n->dst;
            cpu::gemm(a->wt, row_ptr(wt, 0), a->k, b, e, a->xq, a->xq_stride,
                      static_cast<size_t>(d.ne[1]), f32_row(d, 0), d.nb[1] / sizeof(float));
        });
    }
    return Status::ok();
}

void add(const Node& n, cpu::ThreadPool& pool) {
    const Node* np = &n;
    pool.parallel_for(static_cast<size_t>(n.dst.ne[1]), grain_for(size_t(n.dst.ne[0])),
                      [np](size_t b, size_t e, int) {
                          const Tensor& bt = np->src[1];
                          for (size_t t = b; t < e; ++t) {
                              const int64_t r = static_cast<int64_t>(t);
                              const float* x = f32_row(np->src[0], r);
                              const float* y = f32_row(bt, bt.ne[1] == 1 ? 0 : r);
                              float* d = f32_row(np->dst, r);
                              for (int64_t i = 0; i < np->dst.ne[0]; ++i) d[i] = x[i] + y[i];
                          }
                      });
}

void swiglu(const Node& n, cpu::ThreadPool& pool) {
    const Node* np = &n;
    pool.parallel_for(static_cast<size_t>(n.dst.ne[1]), grain_for(size_t(n.dst.ne[0])),
                      [np](size_t b, size_t e, int) {
                          for (size_t t = b; t < e; ++t) {
                              const int64_t r = static_cast<int64_t>(t);
                              const float* g = f32_row(np->src[0], r);
                              const float* u = f32_row(np->src[1], r);
                              float* d = f32_row(np->dst, r);
                              for (int64_t i = 0; i < np->dst.ne[0]; ++i)
                                  d[i] = g[i] / (1.f + std::exp(-g[i])) * u[i];
                          }
                      });
}

void rms_norm(const Node& n, cpu::ThreadPool& pool) {
    const Node* np = &n;
    pool.parallel_for(static_cast<size_t>(n.dst.ne[1]), grain_for(size_t(n.dst.ne[0])),
                      [np](size_t b, size_t e, int) {
                          const float* w = f32_row(np->src[1], 0);
                          const int64_t len = np->dst.ne[0];
                          for (size_t t = b; t < e; ++t) {
                              const int64_t r = static_cast<int64_t>(t);
                              const float* x = f32_row(np->src[0], r);
                              double ss = 0;  // double: cheap here and keeps long rows exact
                              for (int64_t i = 0; i < len; ++i) ss += double(x[i]) * double(x[i]);
                              const float scale = static_cast<float>(
                                  1.0 / std::sqrt(ss / double(len) + double(np->eps)));
                              float* d = f32_row(np->dst, r);
                              for (int64_t i = 0; i < len; ++i) d[i] = x[i] * scale * w[i];
                          }
                      });
}

struct ThreadArgs {
    const Node* n;
    Scratch* scratch;
    const KvLookup* lookup;
};

void rope(const Node& n, cpu::ThreadPool& pool, Scratch& scratch) {
    ThreadArgs args{&n, &scratch, nullptr};
    const ThreadArgs* a = &args;
    const size_t work = size_t(n.src[0].ne[0] * n.src[0].ne[1]) * 4 + size_t(n.rope.n_rot) * 16;
    pool.parallel_for(
        static_cast<size_t>(n.src[0].ne[2]), grain_for(work), [a](size_t b, size_t e, int th) {
            const Node& nd = *a->n;
            const RopeParams& p = nd.rope;
            const int32_t* pos = i32_data(nd.src[1]);
            const float* ff = nd.src[2].valid() ? f32_row(nd.src[2], 0) : nullptr;
            const int64_t half = p.n_rot / 2;
            float* cs = a->scratch->per_thread.data() + size_t(th) * a->scratch->per_thread_floats;
            for (size_t t = b; t < e; ++t) {
                // One angle table per token, shared by every head.
                for (int64_t i = 0; i < half; ++i) {
                    double theta =
                        double(pos[t]) * double(p.freq_scale) *
                        std::pow(double(p.freq_base), -2.0 * double(i) / double(p.n_rot));
                    if (ff) theta /= double(ff[i]);
                    cs[2 * i] = static_cast<float>(std::cos(theta) * double(p.attn_factor));
                    cs[2 * i + 1] = static_cast<float>(std::sin(theta) * double(p.attn_factor));
                }
                for (int64_t h = 0; h < nd.src[0].ne[1]; ++h) {
                    const float* x = f32_row(nd.src[0], h, static_cast<int64_t>(t));
                    float* d = f32_row(nd.dst, h, static_cast<int64_t>(t));
                    if (d != x) std::copy(x, x + nd.src[0].ne[0], d);
                    for (int64_t i = 0; i < half; ++i) {
                        const int64_t i0 = p.mode == RopeMode::Adjacent ? 2 * i : i;
                        const int64_t i1 = p.mode == RopeMode::Adjacent ? 2 * i + 1 : i + half;
                        const float x0 = d[i0], x1 = d[i1], c = cs[2 * i], s = cs[2 * i + 1];
                        d[i0] = x0 * c - x1 * s;
                        d[i1] = x0 * s + x1 * c;
                    }
                }
            }
        });
}

Status kv_append(const Node& n, cpu::ThreadPool& pool) {
    auto lookup = KvLookup::make(n.kv, n.kvp.block_size, n.dst.ne[1]);
    if (!lookup) return lookup.status();
    ThreadArgs args{&n, nullptr, &lookup.value()};
    const ThreadArgs* a = &args;
    pool.parallel_for(
        static_cast<size_t>(n.src[0].ne[1]), grain_for(size_t(n.dst.ne[0])),
        [a](size_t b, size_t e, int) {
            const Tensor& cache = a->n->dst;
            for (size_t t = b; t < e; ++t) {
                const int64_t r = static_cast<int64_t>(t);
                const float* x = f32_row(a->n->src[0], r);
                std::byte* dst =
                    row_ptr(cache, a->lookup->cell(a->lookup->seq(r), a->lookup->position(r)));
                if (cache.type == DType::F16) {
                    auto* h = reinterpret_cast<uint16_t*>(dst);
                    for (int64_t i = 0; i < cache.ne[0]; ++i) h[i] = quant::f32_to_f16(x[i]);
                } else if (cache.type == DType::F32) {
                    std::copy(x, x + cache.ne[0], reinterpret_cast<float*>(dst));
                } else {  // Q8_0 / Q4_0: quantized once here, decoded in the attention loop
                    quant::quantize_row(quant_type(cache.type), x, dst,
                                        static_cast<size_t>(cache.ne[0]));
                }
            }
        });
    return Status::ok();
}

// F16 -> F32 through a table (256 KiB, built once): the attention loop converts every cached
// K and V element it reads, and a call per element costs more than the arithmetic.
const float* f16_table() {
    static const std::vector<float> table = [] {
        std::vector<float> t(65536);
        for (uint32_t i = 0; i < 65536; ++i) t[i] = quant::f16_to_f32(static_cast<uint16_t>(i));
        return t;
    }();
    return table.data();
}

// Where one KV head lies in a cache row and how to read it as floats. F32 rows are used in
// place; F16 goes through the table; block formats decode only the blocks that cover the head
// (the whole row of a cell is never expanded, and nothing is kept past the loop body).
struct HeadReader {
    DType type;
    int64_t off;  // first element of the head in the row
    int64_t hd;
    int64_t first_block;
    int64_t n_blocks;
    const float* h2f;

    HeadReader(DType t, int64_t offset, int64_t head_dim)
        : type(t), off(offset), hd(head_dim), first_block(0), n_blocks(0), h2f(nullptr) {
        if (t == DType::F16) h2f = f16_table();
        if (t == DType::Q8_0 || t == DType::Q4_0) {
            first_block = off / 32;
            n_blocks = (off + hd - 1) / 32 - first_block + 1;
        }
    }
    // Returns hd floats of the head in `row` (tmp holds n_blocks * 32 + hd floats).
    const float* read(const std::byte* row, float* tmp) const {
        switch (type) {
            case DType::F32:
                return reinterpret_cast<const float*>(row) + off;
            case DType::F16: {
                const auto* h = reinterpret_cast<const uint16_t*>(row) + off;
                for (int64_t i = 0; i < hd; ++i) tmp[i] = h2f[h[i]];
                return tmp;
            }
            default: {
                const size_t bb = dtype_block_bytes(type);
                quant::dequantize_row(quant_type(type), row + size_t(first_block) * bb, tmp,
                                      size_t(n_blocks) * 32);
                return tmp + (off - first_block * 32);
            }
        }
    }
};

// Attention work items are (tile of up to kTile consecutive tokens of one sequence, KV head):
// every K and V row is decoded once for the whole tile and all query heads of the group.
// Cells go in chunks of kChunk: one running-max update (and accumulator rescale) per chunk.
constexpr int64_t kTile = 16;
constexpr int64_t kChunk = 16;

// Scratch of one work item: per (token, query head) an accumulator row and (max, sum), and
// kChunk decoded K rows and V rows (hd + 64 floats each: a quantized head may straddle blocks).
size_t attention_tmp_floats(int64_t hd, int64_t group) {
    return size_t(kTile * group) * (size_t(hd) + 2) + 2 * size_t(kChunk) * (size_t(hd) + 64);
}

#if defined(__GNUC__) && defined(__x86_64__)
#define HEARTH_INLINE inline __attribute__((always_inline))
#define HEARTH_HAVE_AVX2_CLONE 1
#else
#define HEARTH_INLINE inline
#define HEARTH_HAVE_AVX2_CLONE 0
#endif

// Eight partial sums: the compiler turns this into vector code without reassociation flags.
HEARTH_INLINE float dot(const float* a, const float* b, int64_t n) {
    float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; ++j) s[j] += a[i + j] * b[i + j];
    float r = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    for (; i < n; ++i) r += a[i] * b[i];
    return r;
}

// exp for x <= 0 (softmax weights): Cephes' range reduction and polynomial (about 1e-7
// relative error), written as plain arithmetic so a loop of them becomes vector code; a call
// to the C library per score cost more than the dot product itself.
HEARTH_INLINE float exp_neg(float x) {
    x = std::max(x, -87.f);          // below that exp(x) underflows; the weight is ~0 either way
    const float magic = 12582912.f;  // 1.5 * 2^23: adding and subtracting it rounds to integer
    const float n = (x * 1.44269504089f + magic) - magic;
    const float r = x - n * 0.693359375f + n * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.f;
    const int32_t e = (static_cast<int32_t>(n) + 127) << 23;
    return p * std::bit_cast<float>(e);
}

// Tokens [t0, t1) (one sequence) and one KV head: online softmax over the cached cells, no
// score buffer. A token only takes the cells up to its own position (causal).
HEARTH_INLINE void attend_body(const Node& n, const KvLookup& lk, int64_t t0, int64_t t1,
                               int64_t kvh, float* tmp) {
    const Tensor& q = n.src[0];
    const Tensor& kc = n.src[1];
    const Tensor& vc = n.src[2];
    const int64_t hd = q.ne[0];
    const int64_t group = q.ne[1] / (kc.ne[0] / hd);
    const int64_t rows = (t1 - t0) * group;  // (token, head) pairs of this item
    const HeadReader reader(kc.type, kvh * hd, hd);
    float* acc = tmp;            // [rows][hd]
    float* m = acc + rows * hd;  // [rows]
    float* l = m + rows;         // [rows]
    float* kbuf = l + rows;      // [kChunk][hd + 64]
    float* vbuf = kbuf + kChunk * (hd + 64);
    std::fill(acc, acc + rows * hd, 0.f);
    std::fill(m, m + rows, -INFINITY);
    std::fill(l, l + rows, 0.f);
    const int64_t s = lk.seq(t0);
    int64_t n_kv = 0;
    const int64_t window = n.kvp.window;
    // With a sliding window the cells before the earliest window of the tile are never read.
    int64_t j_first = INT64_MAX;
    for (int64_t t = t0; t < t1; ++t) {
        n_kv = std::max(n_kv, int64_t(lk.position(t)) + 1);
        j_first = std::min(j_first, window > 0 ? int64_t(lk.position(t)) + 1 - window : 0);
    }
    j_first = std::max<int64_t>(0, j_first);
    const float cap = n.kvp.softcap;
    const int64_t h0 = kvh * group;
    const float* kp[kChunk];
    const float* vp[kChunk];
    float sc[kChunk];
    for (int64_t j0 = j_first; j0 < n_kv; j0 += kChunk) {
        const int64_t jn = std::min(kChunk, n_kv - j0);
        for (int64_t c = 0; c < jn; ++c) {
            const int64_t cell = lk.cell(s, j0 + c);
            kp[c] = reader.read(row_ptr(kc, cell), kbuf + c * (hd + 64));
            vp[c] = reader.read(row_ptr(vc, cell), vbuf + c * (hd + 64));
        }
        for (int64_t t = t0; t < t1; ++t) {
            const int64_t lim = std::min(jn, int64_t(lk.position(t)) + 1 - j0);
            const int64_t lo =
                window > 0 ? std::max<int64_t>(0, int64_t(lk.position(t)) + 1 - window - j0) : 0;
            if (lim <= lo) continue;
            for (int64_t g = 0; g < group; ++g) {
                const int64_t r = (t - t0) * group + g;
                const float* qr = f32_row(q, h0 + g, t);
                float mx = m[r];
                for (int64_t c = lo; c < lim; ++c) {
                    sc[c] = dot(qr, kp[c], hd) * n.kvp.scale;
                    if (cap > 0.f) sc[c] = cap * std::tanh(sc[c] / cap);
                    mx = std::max(mx, sc[c]);
                }
                float* ar = acc + r * hd;
                if (mx > m[r]) {
                    // ~0 on the first chunk (m = -inf), where acc and l are still 0.
                    const float corr = m[r] == -INFINITY ? 0.f : exp_neg(m[r] - mx);
                    l[r] *= corr;
                    for (int64_t i = 0; i < hd; ++i) ar[i] *= corr;
                    m[r] = mx;
                }
                for (int64_t c = lo; c < lim; ++c) sc[c] = exp_neg(sc[c] - mx);
                for (int64_t c = lo; c < lim; ++c) {
                    const float w = sc[c];
                    l[r] += w;
                    const float* vr = vp[c];
                    for (int64_t i = 0; i < hd; ++i) ar[i] += w * vr[i];
                }
            }
        }
    }
    for (int64_t t = t0; t < t1; ++t)
        for (int64_t g = 0; g < group; ++g) {
            const int64_t r = (t - t0) * group + g;
            float* d = f32_row(n.dst, h0 + g, t);
            const float inv = 1.f / l[r];
            for (int64_t i = 0; i < hd; ++i) d[i] = acc[r * hd + i] * inv;
        }
}

void attend_generic(const Node& n, const KvLookup& lk, int64_t t0, int64_t t1, int64_t kvh,
                    float* tmp) {
    attend_body(n, lk, t0, t1, kvh, tmp);
}

#if HEARTH_HAVE_AVX2_CLONE
// The same loop compiled for AVX2 + FMA (8-wide dot products and updates), used when the
// kernels picked AVX2 or better. The arithmetic is plain C++; only the code generation differs.
__attribute__((target("avx2,fma"))) void attend_avx2(const Node& n, const KvLookup& lk, int64_t t0,
                                                     int64_t t1, int64_t kvh, float* tmp) {
    attend_body(n, lk, t0, t1, kvh, tmp);
}
#endif

using AttendFn = void (*)(const Node&, const KvLookup&, int64_t, int64_t, int64_t, float*);

AttendFn pick_attend() {
#if HEARTH_HAVE_AVX2_CLONE
    if (cpu::active_isa() == cpu::Isa::Avx2 || cpu::active_isa() == cpu::Isa::Avx512)
        return attend_avx2;
#endif
    return attend_generic;
}

struct AttentionArgs {
    const Node* n;
    Scratch* scratch;
    const KvLookup* lookup;
    const std::vector<int64_t>* tiles;  // first token of each tile, then the end
    size_t kv_heads;
    AttendFn attend;
};

Status attention(const Node& n, cpu::ThreadPool& pool, Scratch& scratch) {
    auto lookup = KvLookup::make(n.kv, n.kvp.block_size, n.src[1].ne[1]);
    if (!lookup) return lookup.status();
    const int64_t hd = n.src[0].ne[0];
    const size_t kv_heads = static_cast<size_t>(n.src[1].ne[0] / hd);
    const size_t group = static_cast<size_t>(n.src[0].ne[1]) / kv_heads;
    // Tiles: runs of consecutive tokens of the same sequence, at most kTile long.
    std::vector<int64_t>& tiles = scratch.tiles;
    tiles.clear();
    int32_t max_pos = 0;
    for (int64_t t = 0; t < lookup->n_tokens(); ++t) {
        max_pos = std::max(max_pos, lookup->position(t));
        if (tiles.empty() || t - tiles.back() >= kTile || lookup->seq(t) != lookup->seq(t - 1))
            tiles.push_back(t);
    }
    const size_t n_tiles = tiles.size();
    tiles.push_back(lookup->n_tokens());
    static const AttendFn attend = pick_attend();
    AttentionArgs args{&n, &scratch, &lookup.value(), &tiles, kv_heads, attend};
    const AttentionArgs* a = &args;
    const size_t seen = n.kvp.window > 0
                            ? std::min<size_t>(size_t(max_pos) + 1, size_t(n.kvp.window))
                            : size_t(max_pos) + 1;
    const size_t work = seen * size_t(hd) * 2 * group * size_t(kTile);
    pool.parallel_for(n_tiles * kv_heads, grain_for(work), [a](size_t b, size_t e, int th) {
        float* tmp = a->scratch->per_thread.data() + size_t(th) * a->scratch->per_thread_floats;
        const std::vector<int64_t>& tl = *a->tiles;
        for (size_t i = b; i < e; ++i) {
            const size_t tile = i / a->kv_heads;
            a->attend(*a->n, *a->lookup, tl[tile], tl[tile + 1],
                      static_cast<int64_t>(i % a->kv_heads), tmp);
        }
    });
    return Status::ok();
}

}  // namespace

size_t activation_bytes(const Node& n) {
    if (n.op == Op::MoeMatMul) return moe_activation_bytes(n);
    if (n.op != Op::MatMul) return 0;
    const quant::Type wt = quant_type(n.src[0].type);
    if (!cpu::supports_weight_type(wt)) return 0;
    return cpu::activation_row_bytes(wt, static_cast<size_t>(n.src[0].ne[0])) *
           static_cast<size_t>(n.src[1].ne[1]);
}

size_t per_thread_floats(const Node& n) {
    if (n.op == Op::Attention) {
        const int64_t hd = n.src[0].ne[0];
        const int64_t kv_heads = std::max<int64_t>(1, n.src[1].ne[0] / hd);
        return attention_tmp_floats(hd, std::max<int64_t>(1, n.src[0].ne[1] / kv_heads));
    }
    if (n.op == Op::Rope) return static_cast<size_t>(n.rope.n_rot);
    return 0;
}

Status run_node(const Node& n, cpu::ThreadPool& pool, Scratch& scratch) {
    switch (n.op) {
        case Op::GetRows:
            return get_rows(n, pool);
        case Op::MatMul:
            return mat_mul(n, pool, scratch);
        case Op::Add:
            add(n, pool);
            return Status::ok();
        case Op::RmsNorm:
            rms_norm(n, pool);
            return Status::ok();
        case Op::Rope:
            rope(n, pool, scratch);
            return Status::ok();
        case Op::KvAppend:
            return kv_append(n, pool);
        case Op::Attention:
            return attention(n, pool, scratch);
        case Op::SwiGlu:
            swiglu(n, pool);
            return Status::ok();
        case Op::GeGlu:
        case Op::Scale:
        case Op::SoftCap:
            elementwise(n, pool);
            return Status::ok();
        case Op::MoeRoute:
            return moe_route(n, pool);
        case Op::MoeMatMul:
            return moe_mat_mul(n, pool, scratch);
        case Op::MoeCombine:
            moe_combine(n, pool);
            return Status::ok();
    }
    return Status::error("unknown op");
}

}  // namespace hearth::backend::cpu_ops
