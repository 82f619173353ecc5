#include "ref/ref_ops.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/host_access.h"
#include "core/kv_lookup.h"
#include "quant/attn_query.h"
#include "quant/quant_ref.h"

namespace hearth::backend::ref {

namespace {

using quant::dequantize_row;

Status get_rows(const Node& n) {
    const Tensor& table = n.src[0];
    const int32_t* ids = i32_data(n.src[1]);
    for (int64_t t = 0; t < n.dst.ne[1]; ++t) {
        if (ids[t] < 0 || ids[t] >= table.ne[1])
            return Status::error("get_rows: token id " + std::to_string(ids[t]) +
                                 " outside the vocabulary of " + std::to_string(table.ne[1]));
        dequantize_row(table.type, row_ptr(table, ids[t]), f32_row(n.dst, t),
                       static_cast<size_t>(table.ne[0]));
    }
    return Status::ok();
}

Status mat_mul(const Node& n) {
    const Tensor& w = n.src[0];
    const Tensor& x = n.src[1];
    const int64_t k = w.ne[0];
    std::vector<float> wrow(static_cast<size_t>(k));
    for (int64_t i = 0; i < w.ne[1]; ++i) {
        dequantize_row(w.type, row_ptr(w, i), wrow.data(), static_cast<size_t>(k));
        for (int64_t t = 0; t < x.ne[1]; ++t) {
            const float* xr = f32_row(x, t);
            double sum = 0;
            for (int64_t j = 0; j < k; ++j) sum += double(wrow[j]) * double(xr[j]);
            f32_row(n.dst, t)[i] = static_cast<float>(sum);
        }
    }
    return Status::ok();
}

Status add(const Node& n) {
    const Tensor& a = n.src[0];
    const Tensor& b = n.src[1];
    for (int64_t t = 0; t < a.ne[1]; ++t) {
        const float* ar = f32_row(a, t);
        const float* br = f32_row(b, b.ne[1] == 1 ? 0 : t);
        float* d = f32_row(n.dst, t);
        for (int64_t i = 0; i < a.ne[0]; ++i) d[i] = ar[i] + br[i];
    }
    return Status::ok();
}

Status swiglu(const Node& n) {
    for (int64_t t = 0; t < n.src[0].ne[1]; ++t) {
        const float* g = f32_row(n.src[0], t);
        const float* u = f32_row(n.src[1], t);
        float* d = f32_row(n.dst, t);
        for (int64_t i = 0; i < n.dst.ne[0]; ++i) {
            const double x = g[i];
            d[i] = static_cast<float>(x / (1.0 + std::exp(-x)) * double(u[i]));
        }
    }
    return Status::ok();
}

Status rms_norm(const Node& n) {
    const Tensor& a = n.src[0];
    const float* w = f32_row(n.src[1], 0);
    for (int64_t t = 0; t < a.ne[1]; ++t) {
        const float* x = f32_row(a, t);
        double ss = 0;
        for (int64_t i = 0; i < a.ne[0]; ++i) ss += double(x[i]) * double(x[i]);
        const double scale = 1.0 / std::sqrt(ss / double(a.ne[0]) + double(n.eps));
        float* d = f32_row(n.dst, t);
        for (int64_t i = 0; i < a.ne[0]; ++i)
            d[i] = static_cast<float>(double(x[i]) * scale * double(w[i]));
    }
    return Status::ok();
}

Status rope(const Node& n) {
    const Tensor& a = n.src[0];
    const int32_t* pos = i32_data(n.src[1]);
    const float* ff = n.src[2].valid() ? f32_row(n.src[2], 0) : nullptr;
    const RopeParams& p = n.rope;
    const int64_t half = p.n_rot / 2;
    std::vector<float> row(static_cast<size_t>(a.ne[0]));
    for (int64_t t = 0; t < a.ne[2]; ++t) {
        for (int64_t h = 0; h < a.ne[1]; ++h) {
            const float* x = f32_row(a, h, t);
            std::copy(x, x + a.ne[0], row.begin());
            float* d = f32_row(n.dst, h, t);
            std::copy(row.begin(), row.end(), d);  // dims past n_rot pass through
            for (int64_t i = 0; i < half; ++i) {
                double theta = double(pos[t]) * double(p.freq_scale) *
                               std::pow(double(p.freq_base), -2.0 * double(i) / double(p.n_rot));
                if (ff) theta /= double(ff[i]);
                const double c = std::cos(theta) * double(p.attn_factor),
                             s = std::sin(theta) * double(p.attn_factor);
                const int64_t i0 = p.mode == RopeMode::Adjacent ? 2 * i : i;
                const int64_t i1 = p.mode == RopeMode::Adjacent ? 2 * i + 1 : i + half;
                const double x0 = row[i0], x1 = row[i1];
                d[i0] = static_cast<float>(x0 * c - x1 * s);
                d[i1] = static_cast<float>(x0 * s + x1 * c);
            }
        }
    }
    return Status::ok();
}

// A cache row decoded to floats (F32, F16 or a block format).
void load_row(DType type, const std::byte* row, int64_t n, std::vector<float>& out) {
    out.resize(static_cast<size_t>(n));
    dequantize_row(type, row, out.data(), static_cast<size_t>(n));
}

Status kv_append(const Node& n) {
    const Tensor& cache = n.dst;
    auto lookup = KvLookup::make(n.kv, n.kvp.block_size, cache.ne[1]);
    if (!lookup) return lookup.status();
    for (int64_t t = 0; t < n.src[0].ne[1]; ++t) {
        const float* x = f32_row(n.src[0], t);
        std::byte* dst = row_ptr(cache, lookup->cell(lookup->seq(t), lookup->position(t)));
        quant::quantize_row(cache.type, x, dst, static_cast<size_t>(cache.ne[0]));
    }
    return Status::ok();
}

Status attention(const Node& n) {
    const Tensor& q = n.src[0];
    const Tensor& kc = n.src[1];
    const Tensor& vc = n.src[2];
    auto lookup = KvLookup::make(n.kv, n.kvp.block_size, kc.ne[1]);
    if (!lookup) return lookup.status();
    const int64_t hd = q.ne[0];
    const int64_t group = q.ne[1] / (kc.ne[0] / hd);
    std::vector<double> scores, out(static_cast<size_t>(hd));
    std::vector<float> kr, vr;
    // The query as the scores use it: over a Q8_0 / Q4_0 cache rounded first
    // (quant/attn_query.h), qv then holding what its codes stand for (code * d, the scale
    // applied before the rounding); otherwise as given, the scale applied to the dot product.
    const bool int_scores = quant::attention_int_scores(kc.type, hd);
    const double dot_scale = int_scores ? 1.0 : double(n.kvp.scale);
    std::vector<double> qv(static_cast<size_t>(hd));
    for (int64_t t = 0; t < q.ne[2]; ++t) {
        const int64_t s = lookup->seq(t);
        const int64_t n_kv = int64_t(lookup->position(t)) + 1;
        // Sliding window: only the last `window` positions; the rest get weight 0.
        const int64_t j0 = n.kvp.window > 0 ? std::max<int64_t>(0, n_kv - n.kvp.window) : 0;
        const double cap = n.kvp.softcap;
        scores.assign(static_cast<size_t>(n_kv), 0.0);
        for (int64_t h = 0; h < q.ne[1]; ++h) {
            const float* qr = f32_row(q, h, t);
            const int64_t off = (h / group) * hd;
            constexpr size_t kBlock = quant::kAttnQueryBlock;
            for (size_t b = 0; int_scores && b < size_t(hd) / kBlock; ++b) {
                int8_t codes[kBlock];
                const float d = quant::attention_query_block(qr + kBlock * b, n.kvp.scale, codes);
                for (size_t i = 0; i < kBlock; ++i)
                    qv[kBlock * b + i] = double(codes[i]) * double(d);
            }
            for (int64_t i = 0; !int_scores && i < hd; ++i) qv[size_t(i)] = double(qr[i]);
            double mx = -INFINITY;
            for (int64_t j = j0; j < n_kv; ++j) {
                load_row(kc.type, row_ptr(kc, lookup->cell(s, j)), kc.ne[0], kr);
                double dot = 0;
                for (int64_t i = 0; i < hd; ++i) dot += qv[size_t(i)] * double(kr[size_t(off + i)]);
                double sc = dot * dot_scale;
                if (cap > 0) sc = cap * std::tanh(sc / cap);
                scores[size_t(j)] = sc;
                mx = std::max(mx, sc);
            }
            double sum = 0;
            for (int64_t j = j0; j < n_kv; ++j)
                sum += (scores[size_t(j)] = std::exp(scores[size_t(j)] - mx));
            std::fill(out.begin(), out.end(), 0.0);
            for (int64_t j = j0; j < n_kv; ++j) {
                load_row(vc.type, row_ptr(vc, lookup->cell(s, j)), vc.ne[0], vr);
                for (int64_t i = 0; i < hd; ++i)
                    out[size_t(i)] += scores[size_t(j)] / sum * double(vr[size_t(off + i)]);
            }
            float* d = f32_row(n.dst, h, t);
            for (int64_t i = 0; i < hd; ++i) d[i] = static_cast<float>(out[size_t(i)]);
        }
    }
    return Status::ok();
}

Status elementwise(const Node& n) {
    constexpr double kC = 0.79788456080286535588;  // sqrt(2 / pi)
    for (int64_t t = 0; t < n.dst.ne[1]; ++t) {
        const float* a = f32_row(n.src[0], t);
        float* d = f32_row(n.dst, t);
        for (int64_t i = 0; i < n.dst.ne[0]; ++i) {
            const double x = a[i];
            double y = 0;
            if (n.op == Op::GeGlu)
                y = 0.5 * x * (1.0 + std::tanh(kC * (x + 0.044715 * x * x * x))) *
                    double(f32_row(n.src[1], t)[i]);
            else if (n.op == Op::Scale)
                y = x * double(n.alpha);
            else
                y = double(n.alpha) * std::tanh(x / double(n.alpha));
            d[i] = static_cast<float>(y);
        }
    }
    return Status::ok();
}

Status moe_route(const Node& n) {
    const Tensor& lg = n.src[0];
    const int64_t n_exp = lg.ne[0];
    std::vector<double> p(static_cast<size_t>(n_exp));
    for (int64_t t = 0; t < lg.ne[1]; ++t) {
        const float* x = f32_row(lg, t);
        double mx = -INFINITY, sum = 0;
        for (int64_t e = 0; e < n_exp; ++e) mx = std::max(mx, double(x[e]));
        for (int64_t e = 0; e < n_exp; ++e) sum += (p[size_t(e)] = std::exp(double(x[e]) - mx));
        std::vector<bool> taken(static_cast<size_t>(n_exp), false);
        std::vector<int32_t> pick;
        double chosen = 0;
        for (int32_t j = 0; j < n.k; ++j) {  // k passes: the largest not yet taken, lowest id
            int32_t best = -1;
            for (int32_t e = 0; e < n_exp; ++e)
                if (!taken[size_t(e)] && (best < 0 || p[size_t(e)] > p[size_t(best)])) best = e;
            taken[size_t(best)] = true;
            pick.push_back(best);
            chosen += p[size_t(best)] / sum;
        }
        float* w = f32_row(n.dst, t);
        auto* ids = reinterpret_cast<int32_t*>(row_ptr(n.aux, t));
        for (int32_t j = 0; j < n.k; ++j) {
            ids[j] = pick[size_t(j)];
            const double pj = p[size_t(pick[size_t(j)])] / sum;
            w[j] = static_cast<float>(n.renorm ? pj / chosen : pj);
        }
    }
    return Status::ok();
}

Status moe_mat_mul(const Node& n) {
    const Tensor& w = n.src[0];
    const Tensor& x = n.src[1];
    const Tensor& ids = n.src[2];
    const int64_t k = w.ne[0];
    std::vector<float> wrow(static_cast<size_t>(k));
    for (int64_t t = 0; t < ids.ne[1]; ++t) {
        const int32_t* id = reinterpret_cast<const int32_t*>(row_ptr(ids, t));
        for (int64_t j = 0; j < ids.ne[0]; ++j) {
            if (id[j] < 0 || id[j] >= w.ne[2])
                return Status::error("moe_mat_mul: expert id " + std::to_string(id[j]) +
                                     " outside 0.." + std::to_string(w.ne[2] - 1));
            const float* xr = f32_row(x, x.ne[1] == 1 ? 0 : j, t);
            float* d = f32_row(n.dst, j, t);
            for (int64_t i = 0; i < w.ne[1]; ++i) {
                dequantize_row(w.type, row_ptr(w, i, id[j]), wrow.data(), static_cast<size_t>(k));
                double sum = 0;
                for (int64_t c = 0; c < k; ++c) sum += double(wrow[size_t(c)]) * double(xr[c]);
                d[i] = static_cast<float>(sum);
            }
        }
    }
    return Status::ok();
}

Status moe_combine(const Node& n) {
    const Tensor& a = n.src[0];
    for (int64_t t = 0; t < n.dst.ne[1]; ++t) {
        const float* w = f32_row(n.src[1], t);
        float* d = f32_row(n.dst, t);
        for (int64_t i = 0; i < a.ne[0]; ++i) {
            double sum = 0;
            for (int64_t j = 0; j < a.ne[1]; ++j) sum += double(w[j]) * double(f32_row(a, j, t)[i]);
            d[i] = static_cast<float>(sum);
        }
    }
    return Status::ok();
}

// The definition of ArgMax: NaN below every number, the first of equal values.
Status argmax(const Node& n) {
    const Tensor& a = n.src[0];
    int32_t* out = reinterpret_cast<int32_t*>(row_ptr(n.dst, 0));
    for (int64_t t = 0; t < a.ne[1]; ++t) {
        const float* x = f32_row(a, t);
        int64_t best = 0;
        for (int64_t i = 1; i < a.ne[0]; ++i)
            if (!std::isnan(x[i]) && (std::isnan(x[best]) || x[i] > x[best])) best = i;
        *reinterpret_cast<int32_t*>(reinterpret_cast<std::byte*>(out) +
                                    static_cast<size_t>(t) * n.dst.nb[1]) =
            static_cast<int32_t>(best);
    }
    return Status::ok();
}

}  // namespace

Status run_node(const Node& n) {
    switch (n.op) {
        case Op::GetRows:
            return get_rows(n);
        case Op::MatMul:
            return mat_mul(n);
        case Op::Add:
            return add(n);
        case Op::RmsNorm:
            return rms_norm(n);
        case Op::Rope:
            return rope(n);
        case Op::KvAppend:
            return kv_append(n);
        case Op::Attention:
            return attention(n);
        case Op::SwiGlu:
            return swiglu(n);
        case Op::GeGlu:
        case Op::Scale:
        case Op::SoftCap:
            return elementwise(n);
        case Op::MoeRoute:
            return moe_route(n);
        case Op::MoeMatMul:
            return moe_mat_mul(n);
        case Op::MoeCombine:
            return moe_combine(n);
        case Op::ArgMax:
            return argmax(n);
    }
    return Status::error("unknown op");
}

}  // namespace hearth::backend::ref
