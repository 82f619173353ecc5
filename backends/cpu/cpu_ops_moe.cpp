// The CPU ops added for Gemma (GeGLU, scaling, soft-capping) and mixture-of-experts models
// (routing, per-expert matrix products that read only the chosen experts, the weighted sum).
#include <algorithm>
#include <cmath>
#include <string>

#include "core/host_access.h"
#include "cpu/cpu_ops.h"
#include "cpu/kernels/kernels.h"

namespace hearth::backend::cpu_ops {

namespace {

// GELU, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
inline float gelu_tanh(float x) {
    constexpr float kC = 0.7978845608028654f;  // sqrt(2 / pi)
    return 0.5f * x * (1.f + std::tanh(kC * (x + 0.044715f * x * x * x)));
}

}  // namespace

void elementwise(const Node& n, cpu::ThreadPool& pool) {
    const Node* np = &n;
    pool.parallel_for(static_cast<size_t>(n.dst.ne[1]), grain_for(size_t(n.dst.ne[0]) * 8),
                      [np](size_t b, size_t e, int) {
                          const int64_t len = np->dst.ne[0];
                          const float alpha = np->alpha;
                          for (size_t t = b; t < e; ++t) {
                              const int64_t r = static_cast<int64_t>(t);
                              const float* a = f32_row(np->src[0], r);
                              float* d = f32_row(np->dst, r);
                              if (np->op == Op::GeGlu) {
                                  const float* u = f32_row(np->src[1], r);
                                  for (int64_t i = 0; i < len; ++i) d[i] = gelu_tanh(a[i]) * u[i];
                              } else if (np->op == Op::Scale) {
                                  for (int64_t i = 0; i < len; ++i) d[i] = a[i] * alpha;
                              } else {
                                  for (int64_t i = 0; i < len; ++i)
                                      d[i] = alpha * std::tanh(a[i] / alpha);
                              }
                          }
                      });
}

Status moe_route(const Node& n, cpu::ThreadPool&) {
    // Tiny (n_expert values per token): one thread.
    const Tensor& lg = n.src[0];
    const int64_t n_exp = lg.ne[0], k = n.k;
    std::vector<float> p(static_cast<size_t>(n_exp));
    std::vector<int32_t> order(static_cast<size_t>(n_exp));
    for (int64_t t = 0; t < lg.ne[1]; ++t) {
        const float* x = f32_row(lg, t);
        float mx = -INFINITY;
        for (int64_t e = 0; e < n_exp; ++e) mx = std::max(mx, x[e]);
        double sum = 0;
        for (int64_t e = 0; e < n_exp; ++e) sum += (p[size_t(e)] = std::exp(x[e] - mx));
        for (auto& v : p) v = static_cast<float>(v / sum);
        for (int64_t e = 0; e < n_exp; ++e) order[size_t(e)] = static_cast<int32_t>(e);
        std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int32_t a, int32_t b) {
            return p[size_t(a)] > p[size_t(b)] || (p[size_t(a)] == p[size_t(b)] && a < b);
        });
        double chosen = 0;
        for (int64_t j = 0; j < k; ++j) chosen += p[size_t(order[size_t(j)])];
        float* w = f32_row(n.dst, t);
        auto* ids = reinterpret_cast<int32_t*>(row_ptr(n.aux, t));
        for (int64_t j = 0; j < k; ++j) {
            ids[j] = order[size_t(j)];
            const double pj = p[size_t(order[size_t(j)])];
            w[j] = static_cast<float>(n.renorm ? pj / chosen : pj);
        }
    }
    return Status::ok();
}

size_t moe_activation_bytes(const Node& n) {
    const quant::Type wt = n.src[0].type;
    if (!cpu::supports_weight_type(wt)) return 0;
    const size_t stride = cpu::activation_row_bytes(wt, static_cast<size_t>(n.src[0].ne[0]));
    const size_t x_rows = static_cast<size_t>(n.src[1].ne[1] * n.src[1].ne[2]);
    const size_t pairs = static_cast<size_t>(n.src[2].ne[0] * n.src[2].ne[1]);
    return stride * (x_rows + pairs);  // every input row, then one expert's gathered rows
}

namespace {

struct MoeArgs {
    const Node* n;
    quant::Type wt;
    size_t k;          // input row length
    size_t xq_stride;  // bytes of a prepared activation row
    std::byte* xq;     // prepared input rows, row (t * kx + j)
    std::byte* gathered;
    const std::byte* w;    // the expert's first weight row
    const int32_t* pairs;  // this expert's pairs, each t * k_used + j (token t, slot j)
    size_t n_pairs;
    float* y;  // gemm output [n_pairs][m]
    // Kept here so the parallel_for lambdas capture one pointer (std::function then stores it
    // without a heap allocation per expert and step).
    size_t m = 0;                    // output rows
    int64_t k_used = 1;              // experts per token
    float* out1 = nullptr;           // one pair: its output row
    const std::byte* xq1 = nullptr;  // one pair: its prepared input row
};

}  // namespace

Status moe_mat_mul(const Node& n, cpu::ThreadPool& pool, Scratch& scratch) {
    const Tensor& W = n.src[0];
    const Tensor& X = n.src[1];
    const Tensor& ids = n.src[2];
    const quant::Type wt = W.type;
    if (!cpu::supports_weight_type(wt))
        return Status::error(std::string("moe_mat_mul: no CPU kernel for ") + dtype_name(W.type));
    if (W.nb[1] != W.row_bytes()) return Status::error("moe_mat_mul: weight rows must be dense");
    const int64_t n_exp = W.ne[2], k_used = ids.ne[0], T = ids.ne[1], kx = X.ne[1];
    const size_t m = static_cast<size_t>(W.ne[1]);
    // Pairs (slot j, token t) grouped by expert: counting sort, stable in (t, j) order.
    std::vector<int32_t>& pairs = scratch.moe_pairs;
    pairs.assign(static_cast<size_t>(k_used * T) + static_cast<size_t>(n_exp) + 1, 0);
    int32_t* start = pairs.data() + k_used * T;  // [n_exp + 1] offsets
    for (int64_t t = 0; t < T; ++t) {
        const int32_t* id = reinterpret_cast<const int32_t*>(row_ptr(ids, t));
        for (int64_t j = 0; j < k_used; ++j) {
            if (id[j] < 0 || id[j] >= n_exp)
                return Status::error("moe_mat_mul: expert id " + std::to_string(id[j]) +
                                     " outside 0.." + std::to_string(n_exp - 1));
            ++start[id[j] + 1];
        }
    }
    for (int64_t e = 0; e < n_exp; ++e) start[e + 1] += start[e];
    {
        std::vector<int32_t> fill(start, start + n_exp);
        for (int64_t t = 0; t < T; ++t) {
            const int32_t* id = reinterpret_cast<const int32_t*>(row_ptr(ids, t));
            for (int64_t j = 0; j < k_used; ++j)
                pairs[size_t(fill[size_t(id[j])]++)] = static_cast<int32_t>(t * k_used + j);
        }
    }

    scratch.forget_prepared();  // (what a MatMul left in the activation rows is overwritten)
    MoeArgs args{&n,
                 wt,
                 static_cast<size_t>(W.ne[0]),
                 cpu::activation_row_bytes(wt, static_cast<size_t>(W.ne[0])),
                 scratch.activation_rows(),
                 nullptr,
                 nullptr,
                 nullptr,
                 0,
                 nullptr};
    args.gathered = args.xq + args.xq_stride * static_cast<size_t>(kx * T);
    const MoeArgs* a = &args;
    // Every input row once (kx = 1: the same row goes to all k experts of a token).
    pool.parallel_for(static_cast<size_t>(kx * T), grain_for(args.k), [a](size_t b, size_t e, int) {
        const Tensor& x = a->n->src[1];
        for (size_t r = b; r < e; ++r) {
            const int64_t kxx = x.ne[1];
            cpu::quantize_activation(
                a->wt, f32_row(x, static_cast<int64_t>(r) % kxx, static_cast<int64_t>(r) / kxx),
                a->k, a->xq + r * a->xq_stride);
        }
    });
    const size_t max_pairs = static_cast<size_t>(k_used * T);
    if (scratch.moe_out.size() < max_pairs * m) scratch.moe_out.resize(max_pairs * m);
    args.y = scratch.moe_out.data();
    for (int64_t e = 0; e < n_exp; ++e) {
        const size_t np = static_cast<size_t>(start[e + 1] - start[e]);
        if (np == 0) continue;  // experts nobody chose are never read
        args.w = row_ptr(W, 0, e);
        args.pairs = pairs.data() + start[e];
        args.n_pairs = np;
        // The input row of pair p: token t = p / k_used, slot j = p % k_used.
        auto x_row = [kx, k_used](int32_t p) {
            const int64_t t = p / k_used, j = p % k_used;
            return static_cast<size_t>(t * kx + (kx == 1 ? 0 : j));
        };
        const size_t grain = std::max(grain_for(args.k * np),
                                      std::min<size_t>(64, m / (4 * size_t(pool.size())) + 1));
        if (np == 1) {
            const int32_t p = args.pairs[0];
            args.out1 = f32_row(n.dst, p % k_used, p / k_used);
            args.xq1 = args.xq + x_row(p) * args.xq_stride;
            pool.parallel_for(m, grain, [a](size_t b, size_t e2, int) {
                cpu::gemv(a->wt, a->w, a->k, b, e2, a->xq1, a->out1 + b);
            });
            continue;
        }
        for (size_t i = 0; i < np; ++i)
            std::copy_n(args.xq + x_row(args.pairs[i]) * args.xq_stride, args.xq_stride,
                        args.gathered + i * args.xq_stride);
        args.m = m;
        args.k_used = k_used;
        pool.parallel_for(m, grain, [a](size_t b, size_t e2, int) {
            const size_t m = a->m;
            const int64_t k_used = a->k_used;
            cpu::gemm(a->wt, a->w, a->k, b, e2, a->gathered, a->xq_stride, a->n_pairs, a->y, m);
            for (size_t i = 0; i < a->n_pairs; ++i) {
                const int32_t p = a->pairs[i];
                float* out = f32_row(a->n->dst, p % k_used, p / k_used);
                std::copy(a->y + i * m + b, a->y + i * m + e2, out + b);
            }
        });
    }
    return Status::ok();
}

void moe_combine(const Node& n, cpu::ThreadPool& pool) {
    const Node* np = &n;
    pool.parallel_for(static_cast<size_t>(n.dst.ne[1]),
                      grain_for(size_t(n.src[0].ne[0] * n.src[0].ne[1])),
                      [np](size_t b, size_t e, int) {
                          const Tensor& a = np->src[0];
                          for (size_t t = b; t < e; ++t) {
                              const int64_t r = static_cast<int64_t>(t);
                              const float* w = f32_row(np->src[1], r);
                              float* d = f32_row(np->dst, r);
                              std::fill(d, d + np->dst.ne[0], 0.f);
                              for (int64_t j = 0; j < a.ne[1]; ++j) {
                                  const float* x = f32_row(a, j, r);
                                  for (int64_t i = 0; i < a.ne[0]; ++i) d[i] += w[j] * x[i];
                              }
                          }
                      });
}

}  // namespace hearth::backend::cpu_ops
