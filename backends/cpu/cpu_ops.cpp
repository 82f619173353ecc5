#include "cpu/cpu_ops.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/host_access.h"
#include "core/kv_lookup.h"
#include "cpu/cpu_weights.h"
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

// A chunk streams its rows as a few sequential runs (the kernels' short steps), and each run
// starts cold: a matrix of qwen2.5-0.5b's attention (0.55 MB of Q5_0) took 22.9-23.6 us in 4
// chunks per thread and 19.9-20.2 in 1 (2 threads, one matrix after another from memory),
// while 5 MB matrices were as fast in 4 as in 1.
constexpr size_t kMinStreamBytes = size_t{512} << 10;

// Whole rounds of chunks: with one chunk over, one thread streamed it alone at about half the
// bandwidth of two (qwen2.5-0.5b's 2.99 MB Q5_0 ffn_gate in 5 chunks on 2 threads: 25.6 GB/s,
// where Q4_0's 2.45 MB in 4 read 30.5).
size_t short_step_chunks(size_t weight_bytes, size_t threads) {
    threads = std::max<size_t>(1, threads);
    return std::clamp(weight_bytes / kMinStreamBytes, threads, 4 * threads) / threads * threads;
}

namespace {

Status get_rows(const Node& n, cpu::ThreadPool& pool) {
    const Tensor& table = n.src[0];
    const int32_t* ids = i32_data(n.src[1]);
    for (int64_t t = 0; t < n.dst.ne[1]; ++t)
        if (ids[t] < 0 || ids[t] >= table.ne[1])
            return Status::error("get_rows: token id " + std::to_string(ids[t]) +
                                 " outside the vocabulary of " + std::to_string(table.ne[1]));
    // A table that is also a packed matrix (a tied output head) has handed its file pages back:
    // its rows come from the packed copy.
    const auto* wbuf = dynamic_cast<const CpuWeightBuffer*>(table.buffer);
    const cpu::PackedWeight* pw = wbuf ? wbuf->packed_if_made(table) : nullptr;
    const Node* np = &n;
    pool.parallel_for(static_cast<size_t>(n.dst.ne[1]), grain_for(size_t(n.dst.ne[0])),
                      [np, pw](size_t b, size_t e, int) {
                          const Tensor& tab = np->src[0];
                          const int32_t* id = i32_data(np->src[1]);
                          const auto k = static_cast<size_t>(tab.ne[0]);
                          thread_local std::vector<uint8_t> file_row;
                          if (pw) file_row.resize(quant::row_bytes(tab.type, k));
                          for (size_t t = b; t < e; ++t) {
                              const void* row = row_ptr(tab, id[t]);
                              if (pw) {
                                  cpu::unpack_row(*pw, static_cast<size_t>(id[t]), file_row.data());
                                  row = file_row.data();
                              }
                              quant::dequantize_row(tab.type, row,
                                                    f32_row(np->dst, static_cast<int64_t>(t)), k);
                          }
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

}  // namespace

void mat_mul_rows(const Node& n, const cpu::PackedWeight* pw, const std::byte* xq, size_t xq_stride,
                  size_t b, size_t e) {
    const Tensor& d = n.dst;
    float* out = f32_row(d, 0);
    const size_t y_stride = d.nb[1] / sizeof(float);
    const size_t tokens = static_cast<size_t>(d.ne[1]);
    const Tensor& w = n.src[0];
    const auto k = static_cast<size_t>(w.ne[0]);
    if (pw)
        cpu::gemm_packed(*pw, b, e, xq, xq_stride, tokens, out, y_stride);
    else if (tokens == 1)
        cpu::gemv(w.type, row_ptr(w, 0), k, b, e, xq, out + b);
    else
        cpu::gemm(w.type, row_ptr(w, 0), k, b, e, xq, xq_stride, tokens, out, y_stride);
}

namespace {

Status mat_mul(const Node& n, cpu::ThreadPool& pool, Scratch& scratch) {
    const Tensor& w = n.src[0];
    const quant::Type wt = w.type;
    if (!cpu::supports_weight_type(wt))
        return Status::error(std::string("mat_mul: no CPU kernel for ") + dtype_name(w.type));
    if (w.nb[1] != w.row_bytes()) return Status::error("mat_mul: weight rows must be dense");
    MatMulArgs args{&n, wt, static_cast<size_t>(w.ne[0]),
                    cpu::activation_row_bytes(wt, static_cast<size_t>(w.ne[0])),
                    scratch.activation_rows()};
    const MatMulArgs* a = &args;
    const size_t n_tok = static_cast<size_t>(n.src[1].ne[1]);
    const Scratch::Prepared prepared{n.src[1], wt};
    if (!scratch.prepared.serves(prepared)) {  // else the previous MatMul left these rows ready
        pool.parallel_for(n_tok, grain_for(args.k), [a](size_t b, size_t e, int) {
            for (size_t t = b; t < e; ++t)
                cpu::quantize_activation(a->wt, f32_row(a->n->src[1], static_cast<int64_t>(t)),
                                         a->k, a->xq + t * a->xq_stride);
        });
        scratch.prepared = prepared;
    }
    const size_t rows = static_cast<size_t>(w.ne[1]);
    // Enough rows per chunk to amortise the hand-off, few enough to balance the threads.
    const size_t grain = std::max(grain_for(args.k * n_tok),
                                  std::min<size_t>(64, rows / (4 * size_t(pool.size())) + 1));
    auto* wbuf = dynamic_cast<CpuWeightBuffer*>(w.buffer);
    if (const cpu::PackedWeight* pw = wbuf ? wbuf->packed(w, pool) : nullptr) {
        // Chunks of whole 16-row groups, so no group is decoded by two threads.
        const size_t g = cpu::kPackRows;
        size_t grain_groups = (grain + g - 1) / g;
        if (n_tok <= kShortStepTokens) {
            const size_t chunks = short_step_chunks(pw->bytes, size_t(pool.size()));
            grain_groups = std::max(grain_groups, (pw->groups() + chunks - 1) / chunks);
        }
        pool.parallel_for(pw->groups(), grain_groups, [a, pw](size_t b, size_t e, int) {
            mat_mul_rows(*a->n, pw, a->xq, a->xq_stride, b * cpu::kPackRows, e * cpu::kPackRows);
        });
        return Status::ok();
    }
    pool.parallel_for(rows, grain, [a](size_t b, size_t e, int) {
        mat_mul_rows(*a->n, nullptr, a->xq, a->xq_stride, b, e);
    });
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
                              cpu::silu_mul(f32_row(np->src[0], r), f32_row(np->src[1], r),
                                            f32_row(np->dst, r),
                                            static_cast<size_t>(np->dst.ne[0]));
                          }
                      });
}

// The row arithmetic is cpu::rms_norm_row's (kernels.h): double sums of squares in sixteen
// partial sums, which vectors hold (one running sum made each row a chain of dependent adds:
// 2,048 for tinyllama, ~2 us), the same bits on every ISA.
void rms_norm(const Node& n, cpu::ThreadPool& pool) {
    const Node* np = &n;
    pool.parallel_for(static_cast<size_t>(n.dst.ne[1]), grain_for(size_t(n.dst.ne[0])),
                      [np](size_t b, size_t e, int) {
                          const float* w = f32_row(np->src[1], 0);
                          const auto len = static_cast<size_t>(np->dst.ne[0]);
                          for (size_t t = b; t < e; ++t) {
                              const int64_t r = static_cast<int64_t>(t);
                              cpu::rms_norm_row(f32_row(np->src[0], r), w, np->eps,
                                                f32_row(np->dst, r), len);
                          }
                      });
}

struct ThreadArgs {
    const Node* n;
    Scratch* scratch;
    const KvLookup* lookup;
};

bool same_rope(const Scratch::RopeFor& a, const Scratch::RopeFor& b) {
    return a.graph == b.graph && a.pos == b.pos && a.freq_factors == b.freq_factors &&
           a.tokens == b.tokens && a.p.n_rot == b.p.n_rot && a.p.freq_base == b.p.freq_base &&
           a.p.freq_scale == b.p.freq_scale && a.p.attn_factor == b.p.attn_factor;
}

// The angle table of a Rope node's tokens into scratch.rope_table, unless the graph's previous
// Rope node left the same one there: cos and sin in double of pos * scale * base^(-2i / n_rot)
// (divided by the frequency factor), per token and pair. Made again by each of tinyllama's 44
// Rope nodes, it took 0.44 ms of a 25 ms step of eight sequences (0.12 ms with the reuse).
void rope_angles(const Node& n, cpu::ThreadPool& pool, Scratch& scratch) {
    const RopeParams& p = n.rope;
    const Scratch::RopeFor want{
        scratch.graph, n.src[1].buffer->host_data() + n.src[1].offset,
        n.src[2].valid() ? n.src[2].buffer->host_data() + n.src[2].offset : nullptr, n.src[0].ne[2],
        p};
    if (same_rope(scratch.rope_for, want)) return;
    struct Args {
        const Node* n;
        float* table;
    } args{&n, scratch.rope_table.data()};
    const Args* a = &args;  // one pointer: the std::function stores it without allocating
    pool.parallel_for(
        static_cast<size_t>(n.src[0].ne[2]), grain_for(size_t(p.n_rot) * 32),
        [a](size_t b, size_t e, int) {
            const RopeParams& rp = a->n->rope;
            const int32_t* pos = i32_data(a->n->src[1]);
            const float* ff = a->n->src[2].valid() ? f32_row(a->n->src[2], 0) : nullptr;
            const int64_t half = rp.n_rot / 2;
            for (size_t t = b; t < e; ++t) {
                float* cs = a->table + t * size_t(2 * half);
                for (int64_t i = 0; i < half; ++i) {
                    double theta =
                        double(pos[t]) * double(rp.freq_scale) *
                        std::pow(double(rp.freq_base), -2.0 * double(i) / double(rp.n_rot));
                    if (ff) theta /= double(ff[i]);
                    cs[2 * i] = static_cast<float>(std::cos(theta) * double(rp.attn_factor));
                    cs[2 * i + 1] = static_cast<float>(std::sin(theta) * double(rp.attn_factor));
                }
            }
        });
    scratch.rope_for = want;
}

void rope(const Node& n, cpu::ThreadPool& pool, Scratch& scratch) {
    rope_angles(n, pool, scratch);
    ThreadArgs args{&n, &scratch, nullptr};
    const ThreadArgs* a = &args;
    const size_t work = size_t(n.src[0].ne[0] * n.src[0].ne[1]) * 4;
    pool.parallel_for(
        static_cast<size_t>(n.src[0].ne[2]), grain_for(work), [a](size_t b, size_t e, int) {
            const Node& nd = *a->n;
            const float* table = a->scratch->rope_table.data();
            const RopeParams& p = nd.rope;
            const int64_t half = p.n_rot / 2;
            for (size_t t = b; t < e; ++t) {
                const float* cs = table + t * size_t(2 * half);  // shared by every head
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
                    cpu::f32_to_f16(x, reinterpret_cast<uint16_t*>(dst),
                                    static_cast<size_t>(cache.ne[0]));
                } else if (cache.type == DType::F32) {
                    std::copy(x, x + cache.ne[0], reinterpret_cast<float*>(dst));
                } else {  // Q8_0 / Q4_0: quantized once here, decoded in the attention loop
                    quant::quantize_row(cache.type, x, dst, static_cast<size_t>(cache.ne[0]));
                }
            }
        });
    return Status::ok();
}

}  // namespace

size_t activation_bytes(const Node& n) {
    if (n.op == Op::MoeMatMul) return moe_activation_bytes(n);
    if (n.op != Op::MatMul) return 0;
    const quant::Type wt = n.src[0].type;
    if (!cpu::supports_weight_type(wt)) return 0;
    return cpu::activation_row_bytes(wt, static_cast<size_t>(n.src[0].ne[0])) *
           static_cast<size_t>(n.src[1].ne[1]);
}

size_t per_thread_floats(const Node& n) {
    if (n.op == Op::Attention) return attention_per_thread_floats(n);
    return 0;
}

size_t rope_table_floats(const Node& n) {
    if (n.op != Op::Rope) return 0;
    return static_cast<size_t>(n.src[0].ne[2]) * static_cast<size_t>(n.rope.n_rot / 2) * 2;
}

bool same_view(const Tensor& a, const Tensor& b) {
    if (a.buffer != b.buffer || a.offset != b.offset || a.type != b.type) return false;
    for (int d = 0; d < 4; ++d)
        if (a.ne[d] != b.ne[d] || a.nb[d] != b.nb[d]) return false;
    return true;
}

bool overlap(const Tensor& a, const Tensor& b) {
    if (a.buffer != b.buffer) return false;
    const size_t a1 = a.offset + a.span_bytes(), b1 = b.offset + b.span_bytes();
    return a.offset < b1 && b.offset < a1;
}

bool Scratch::Prepared::serves(const Prepared& want) const {
    return rows.valid() && same_view(rows, want.rows) && cpu::same_activation_rows(wt, want.wt);
}

void Scratch::forget_prepared_if_written(const Tensor& dst) {
    if (prepared.rows.valid() && overlap(dst, prepared.rows)) forget_prepared();
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
        case Op::ArgMax:
            argmax(n, pool);
            return Status::ok();
    }
    return Status::error("unknown op");
}

}  // namespace hearth::backend::cpu_ops
