// Calibration forward pass (see awq_forward.h). Written for clarity, threaded only where the
// time goes (the matrix products go through the CPU kernels with float32 weights).
#include "model/awq_forward.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "kernels/kernels.h"

namespace hearth::model {

void matmul_f32(cpu::ThreadPool& pool, const float* w, size_t n, size_t k, const float* x,
                size_t n_tok, float* y) {
    const size_t rb = cpu::activation_row_bytes(quant::Type::F32, k);
    std::vector<std::byte> xq(rb * n_tok);
    for (size_t t = 0; t < n_tok; ++t)
        cpu::quantize_activation(quant::Type::F32, x + t * k, k, xq.data() + t * rb);
    pool.parallel_for(n, 8, [&](size_t b, size_t e, int) {
        cpu::gemm(quant::Type::F32, w, k, b, e, xq.data(), rb, n_tok, y, n);
    });
}

void rms_norm_rows(const float* x, const float* weight, size_t n_tok, size_t n, float eps,
                   float* out) {
    for (size_t t = 0; t < n_tok; ++t) {
        double ss = 0;
        for (size_t i = 0; i < n; ++i) ss += double(x[t * n + i]) * x[t * n + i];
        const float r = float(1.0 / std::sqrt(ss / double(n) + eps));
        for (size_t i = 0; i < n; ++i) out[t * n + i] = x[t * n + i] * r * weight[i];
    }
}

namespace {

void add_bias(std::vector<float>& y, const std::vector<float>& b, size_t n_tok) {
    if (b.empty()) return;
    for (size_t t = 0; t < n_tok; ++t)
        for (size_t i = 0; i < b.size(); ++i) y[t * b.size() + i] += b[i];
}

// Rotates the first n_rot dims of every head of x [n_tok][n_heads * head_dim].
void rope(const ModelConfig& c, std::vector<float>& x, size_t n_tok, size_t n_heads) {
    const size_t hd = c.head_dim, half = c.rope.n_rot / 2;
    std::vector<double> inv_freq(half);
    for (size_t i = 0; i < half; ++i) {
        double f = std::pow(double(c.rope.freq_base), -2.0 * double(i) / double(c.rope.n_rot));
        f *= c.rope.freq_scale;
        if (!c.rope_freq_factors.empty()) f /= c.rope_freq_factors[i];
        inv_freq[i] = f;
    }
    for (size_t t = 0; t < n_tok; ++t)
        for (size_t h = 0; h < n_heads; ++h) {
            float* v = x.data() + (t * n_heads + h) * hd;
            for (size_t i = 0; i < half; ++i) {
                const double a = double(t) * inv_freq[i];
                const float cs = float(std::cos(a)), sn = float(std::sin(a));
                const size_t i0 = c.rope.mode == RopeMode::RotateHalf ? i : 2 * i;
                const size_t i1 = c.rope.mode == RopeMode::RotateHalf ? i + half : 2 * i + 1;
                const float x0 = v[i0], x1 = v[i1];
                v[i0] = x0 * cs - x1 * sn;
                v[i1] = x0 * sn + x1 * cs;
            }
        }
}

}  // namespace

void layer_forward(const ModelConfig& c, const LayerWeightsF32& w, std::vector<float>& h,
                   size_t n_tok, LayerActivations& acts, cpu::ThreadPool& pool) {
    const size_t E = c.n_embd, hd = c.head_dim, hdv = c.head_dim_v, F = c.n_ff;
    const size_t nh = c.n_head, nkv = c.n_head_kv, qd = c.q_width(), kd = c.kv_width(),
                 vd = c.v_width(), od = nh * hdv;
    acts.attn_in.resize(n_tok * E);
    rms_norm_rows(h.data(), w.attn_norm.data(), n_tok, E, c.rms_eps, acts.attn_in.data());
    std::vector<float> q(n_tok * qd), k(n_tok * kd), v(n_tok * vd);
    matmul_f32(pool, w.q.data(), qd, E, acts.attn_in.data(), n_tok, q.data());
    matmul_f32(pool, w.k.data(), kd, E, acts.attn_in.data(), n_tok, k.data());
    matmul_f32(pool, w.v.data(), vd, E, acts.attn_in.data(), n_tok, v.data());
    add_bias(q, w.bq, n_tok);
    add_bias(k, w.bk, n_tok);
    add_bias(v, w.bv, n_tok);
    rope(c, q, n_tok, nh);
    rope(c, k, n_tok, nkv);

    acts.o_in.assign(n_tok * od, 0.0f);
    const float scale = 1.0f / std::sqrt(float(hd));
    const size_t group = nh / nkv;
    pool.parallel_for(nh, 1, [&](size_t b, size_t e, int) {
        std::vector<float> p(n_tok);
        for (size_t head = b; head < e; ++head) {
            const size_t kvh = head / group;
            for (size_t t = 0; t < n_tok; ++t) {
                const float* qt = q.data() + (t * nh + head) * hd;
                float mx = -INFINITY;
                for (size_t s = 0; s <= t; ++s) {
                    const float* ks = k.data() + (s * nkv + kvh) * hd;
                    float d = 0;
                    for (size_t i = 0; i < hd; ++i) d += qt[i] * ks[i];
                    p[s] = d * scale;
                    mx = std::max(mx, p[s]);
                }
                double sum = 0;
                for (size_t s = 0; s <= t; ++s) sum += p[s] = std::exp(p[s] - mx);
                float* out = acts.o_in.data() + (t * nh + head) * hdv;
                for (size_t s = 0; s <= t; ++s) {
                    const float pw = float(p[s] / sum);
                    const float* vs = v.data() + (s * nkv + kvh) * hdv;
                    for (size_t i = 0; i < hdv; ++i) out[i] += pw * vs[i];
                }
            }
        }
    });

    std::vector<float> tmp(n_tok * E);
    matmul_f32(pool, w.o.data(), E, od, acts.o_in.data(), n_tok, tmp.data());
    add_bias(tmp, w.bo, n_tok);
    for (size_t i = 0; i < h.size(); ++i) h[i] += tmp[i];

    acts.ffn_in.resize(n_tok * E);
    rms_norm_rows(h.data(), w.ffn_norm.data(), n_tok, E, c.rms_eps, acts.ffn_in.data());
    std::vector<float> g(n_tok * F);
    acts.down_in.resize(n_tok * F);
    matmul_f32(pool, w.gate.data(), F, E, acts.ffn_in.data(), n_tok, g.data());
    matmul_f32(pool, w.up.data(), F, E, acts.ffn_in.data(), n_tok, acts.down_in.data());
    for (size_t i = 0; i < g.size(); ++i) acts.down_in[i] *= g[i] / (1.0f + std::exp(-g[i]));
    matmul_f32(pool, w.down.data(), E, F, acts.down_in.data(), n_tok, tmp.data());
    for (size_t i = 0; i < h.size(); ++i) h[i] += tmp[i];
}

}  // namespace hearth::model
