// AWQ scale search (see awq_search.h).
#include "model/awq_search.h"

#include <algorithm>
#include <cmath>

#include "kernels/kernels.h"
#include "model/awq_forward.h"
#include "quant/quant_ref.h"

namespace hearth::model {

std::vector<float> channel_mean_abs(const float* x, size_t n_tok, size_t k) {
    std::vector<double> acc(k, 0.0);
    for (size_t t = 0; t < n_tok; ++t)
        for (size_t i = 0; i < k; ++i) acc[i] += std::fabs(x[t * k + i]);
    std::vector<float> out(k);
    for (size_t i = 0; i < k; ++i) out[i] = float(acc[i] / double(std::max<size_t>(n_tok, 1)));
    return out;
}

std::vector<float> awq_scales(std::span<const float> act_mean, float alpha) {
    std::vector<float> s(act_mean.size(), 1.0f);
    if (alpha == 0.0f || s.empty()) return s;
    float lo = INFINITY, hi = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        s[i] = std::max(std::pow(std::max(act_mean[i], 1e-8f), alpha), 1e-4f);
        lo = std::min(lo, s[i]);
        hi = std::max(hi, s[i]);
    }
    const float norm = std::sqrt(lo * hi);
    if (!(norm > 0) || !std::isfinite(norm)) return std::vector<float>(s.size(), 1.0f);
    for (auto& v : s) v /= norm;
    return s;
}

namespace {

// Rows [r] of the error matrix D = W - Q(W diag(s)) diag(s)^-1, into d [rows.size()][k].
void error_rows(std::span<const float* const> rows, size_t k, std::span<const float> s,
                quant::Type qtype, float* d, cpu::ThreadPool& pool) {
    const size_t rb = quant::row_bytes(qtype, k);
    pool.parallel_for(rows.size(), 4, [&](size_t b, size_t e, int) {
        std::vector<float> tmp(k);
        std::vector<std::byte> q(rb);
        for (size_t r = b; r < e; ++r) {
            const float* w = rows[r];
            for (size_t i = 0; i < k; ++i) tmp[i] = s.empty() ? w[i] : w[i] * s[i];
            quant::quantize_row(qtype, tmp.data(), q.data(), k);
            quant::dequantize_row(qtype, q.data(), tmp.data(), k);
            float* dr = d + r * k;
            for (size_t i = 0; i < k; ++i) dr[i] = w[i] - (s.empty() ? tmp[i] : tmp[i] / s[i]);
        }
    });
}

double error_of(std::span<const float* const> rows, size_t k, const float* x, size_t n_tok,
                std::span<const float> s, quant::Type qtype, cpu::ThreadPool& pool) {
    std::vector<float> d(rows.size() * k), y(rows.size() * n_tok);
    error_rows(rows, k, s, qtype, d.data(), pool);
    matmul_f32(pool, d.data(), rows.size(), k, x, n_tok, y.data());
    double e = 0;
    for (float v : y) e += double(v) * v;
    return e;
}

}  // namespace

ScaleSearch search_scales(std::span<const MatrixRef> mats, size_t k, const float* x, size_t n_tok,
                          std::span<const float> act_mean, quant::Type qtype,
                          const AwqSearchOptions& opt, cpu::ThreadPool& pool) {
    std::vector<const float*> rows;
    for (const auto& m : mats) {
        const size_t n = std::min(m.rows, opt.max_rows);
        for (size_t i = 0; i < n; ++i) rows.push_back(m.w + (i * m.rows / n) * k);
    }
    const size_t nt = std::min(n_tok, opt.max_tokens);
    std::vector<float> xs(nt * k);
    for (size_t j = 0; j < nt; ++j) std::copy_n(x + (j * n_tok / nt) * k, k, xs.data() + j * k);

    ScaleSearch best;
    best.scales.assign(k, 1.0f);
    best.err_rtn = best.err_best = error_of(rows, k, xs.data(), nt, {}, qtype, pool);
    for (int g = 1; g < opt.n_grid; ++g) {
        const float alpha = float(g) / float(opt.n_grid);
        auto s = awq_scales(act_mean, alpha);
        const double e = error_of(rows, k, xs.data(), nt, s, qtype, pool);
        if (e < best.err_best) {
            best.err_best = e;
            best.alpha = alpha;
            best.scales = std::move(s);
        }
    }
    return best;
}

double quantized_output_error(std::span<const MatrixRef> mats, size_t k, const float* x,
                              size_t n_tok, std::span<const float> s, quant::Type qtype,
                              cpu::ThreadPool& pool) {
    double e = 0;
    for (const auto& m : mats) {
        std::vector<const float*> rows(m.rows);
        for (size_t r = 0; r < m.rows; ++r) rows[r] = m.w + r * k;
        e += error_of(rows, k, x, n_tok, s, qtype, pool);
    }
    return e;
}

void quantize_scaled(const float* w, size_t rows, size_t k, std::span<const float> s,
                     quant::Type qtype, std::byte* dst, cpu::ThreadPool& pool) {
    const size_t rb = quant::row_bytes(qtype, k);
    pool.parallel_for(rows, 4, [&](size_t b, size_t e, int) {
        std::vector<float> tmp(k);
        for (size_t r = b; r < e; ++r) {
            const float* wr = w + r * k;
            for (size_t i = 0; i < k; ++i) tmp[i] = s.empty() ? wr[i] : wr[i] * s[i];
            quant::quantize_row(qtype, tmp.data(), dst + r * rb, k);
        }
    });
}

}  // namespace hearth::model
