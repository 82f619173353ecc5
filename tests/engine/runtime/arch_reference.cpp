#include "arch_reference.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "quant/quant_ref.h"

namespace hearth::runtime::test {

namespace {

using Vec = std::vector<double>;

// y = W x for W stored as rows of length x.size(), starting at `w`.
Vec matvec(const float* w, size_t rows, const Vec& x) {
    Vec y(rows);
    for (size_t i = 0; i < rows; ++i) {
        double s = 0;
        for (size_t j = 0; j < x.size(); ++j) s += double(w[i * x.size() + j]) * x[j];
        y[i] = s;
    }
    return y;
}

Vec rms(const Vec& x, const float* w, double eps) {
    double ss = 0;
    for (double v : x) ss += v * v;
    const double s = 1.0 / std::sqrt(ss / double(x.size()) + eps);
    Vec y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] * s * double(w[i]);
    return y;
}

void rope(double* v, const backend::RopeParams& p, int64_t pos, const float* factors) {
    const size_t half = size_t(p.n_rot) / 2;
    for (size_t i = 0; i < half; ++i) {
        double theta = double(pos) * double(p.freq_scale) *
                       std::pow(double(p.freq_base), -2.0 * double(i) / double(p.n_rot));
        if (factors) theta /= double(factors[i]);
        const double c = std::cos(theta) * double(p.attn_factor);
        const double s = std::sin(theta) * double(p.attn_factor);
        const bool adj = p.mode == backend::RopeMode::Adjacent;
        const size_t i0 = adj ? 2 * i : i, i1 = adj ? 2 * i + 1 : i + half;
        const double a = v[i0], b = v[i1];
        v[i0] = a * c - b * s;
        v[i1] = a * s + b * c;
    }
}

double silu(double x) {
    return x / (1.0 + std::exp(-x));
}
double gelu_tanh(double x) {
    return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}

}  // namespace

ArchModel decode_arch_model(const gguf::GgufFile& file) {
    ArchModel m;
    m.params = load_supported_config(file).value();
    for (const auto& t : file.tensors()) {
        std::vector<float> v(t.n_elements());
        const size_t rb = quant::row_bytes(t.type, t.ne[0]);
        for (uint64_t r = 0; r < t.n_rows(); ++r)
            quant::dequantize_row(t.type, t.data.data() + r * rb, v.data() + r * t.ne[0], t.ne[0]);
        m.values[std::string(t.name)] = std::move(v);
    }
    return m;
}

std::vector<std::vector<double>> arch_reference_forward(const ArchModel& m,
                                                        const std::vector<int32_t>& tokens,
                                                        int64_t n_ctx) {
    const ModelConfig& p = m.params;
    auto W = [&](const std::string& name) -> const float* {
        auto it = m.values.find(name);
        return it == m.values.end() ? nullptr : it->second.data();
    };
    const size_t E = size_t(p.n_embd), T = tokens.size(), hd = size_t(p.head_dim);
    const size_t H = size_t(p.n_head), Hkv = size_t(p.n_head_kv), F = size_t(p.n_ff);
    const size_t Q = H * hd, KV = Hkv * hd;
    const float* factors = W("rope_freqs.weight");
    if (p.longrope())
        factors =
            W(n_ctx > p.rope_orig_ctx ? "rope_factors_long.weight" : "rope_factors_short.weight");
    const double scale = p.attn_scale > 0 ? double(p.attn_scale) : 1.0 / std::sqrt(double(hd));

    std::vector<Vec> x(T, Vec(E));
    for (size_t t = 0; t < T; ++t)
        for (size_t i = 0; i < E; ++i)
            x[t][i] = double(W("token_embd.weight")[size_t(tokens[t]) * E + i]) *
                      (p.embd_scale > 0 ? std::sqrt(double(E)) : 1.0);

    for (int64_t l = 0; l < p.n_layer; ++l) {
        const std::string b = "blk." + std::to_string(l) + ".";
        const bool swa = p.n_swa > 0 && p.swa_period > 0 && l % p.swa_period < p.swa_period - 1;
        std::vector<Vec> q(T), k(T), v(T);
        for (size_t t = 0; t < T; ++t) {
            const Vec xn = rms(x[t], W(b + "attn_norm.weight"), p.rms_eps);
            if (p.fused_qkv) {
                const Vec qkv = matvec(W(b + "attn_qkv.weight"), Q + 2 * KV, xn);
                q[t].assign(qkv.begin(), qkv.begin() + long(Q));
                k[t].assign(qkv.begin() + long(Q), qkv.begin() + long(Q + KV));
                v[t].assign(qkv.begin() + long(Q + KV), qkv.end());
            } else {
                q[t] = matvec(W(b + "attn_q.weight"), Q, xn);
                k[t] = matvec(W(b + "attn_k.weight"), KV, xn);
                v[t] = matvec(W(b + "attn_v.weight"), KV, xn);
            }
            if (const float* bq = W(b + "attn_q.bias")) {
                for (size_t i = 0; i < Q; ++i) q[t][i] += bq[i];
                for (size_t i = 0; i < KV; ++i) k[t][i] += W(b + "attn_k.bias")[i];
                for (size_t i = 0; i < KV; ++i) v[t][i] += W(b + "attn_v.bias")[i];
            }
            if (p.qk_norm) {  // per head, before RoPE
                for (size_t h = 0; h < H; ++h) {
                    Vec head(q[t].begin() + long(h * hd), q[t].begin() + long((h + 1) * hd));
                    head = rms(head, W(b + "attn_q_norm.weight"), p.rms_eps);
                    std::copy(head.begin(), head.end(), q[t].begin() + long(h * hd));
                }
                for (size_t h = 0; h < Hkv; ++h) {
                    Vec head(k[t].begin() + long(h * hd), k[t].begin() + long((h + 1) * hd));
                    head = rms(head, W(b + "attn_k_norm.weight"), p.rms_eps);
                    std::copy(head.begin(), head.end(), k[t].begin() + long(h * hd));
                }
            }
            const backend::RopeParams& rp = swa ? p.rope_swa : p.rope;
            for (size_t h = 0; h < H; ++h) rope(q[t].data() + h * hd, rp, int64_t(t), factors);
            for (size_t h = 0; h < Hkv; ++h) rope(k[t].data() + h * hd, rp, int64_t(t), factors);
        }
        for (size_t t = 0; t < T; ++t) {
            Vec att(Q, 0.0);
            const size_t j0 = swa && t + 1 > size_t(p.n_swa) ? t + 1 - size_t(p.n_swa) : 0;
            for (size_t h = 0; h < H; ++h) {
                const size_t kh = h / (H / Hkv);
                Vec s(t + 1, 0.0);
                double mx = -1e300;
                for (size_t j = j0; j <= t; ++j) {
                    double d = 0;
                    for (size_t i = 0; i < hd; ++i) d += q[t][h * hd + i] * k[j][kh * hd + i];
                    d *= scale;
                    if (p.attn_softcap > 0)
                        d = double(p.attn_softcap) * std::tanh(d / double(p.attn_softcap));
                    s[j] = d;
                    mx = std::max(mx, d);
                }
                double sum = 0;
                for (size_t j = j0; j <= t; ++j) sum += (s[j] = std::exp(s[j] - mx));
                for (size_t j = j0; j <= t; ++j)
                    for (size_t i = 0; i < hd; ++i)
                        att[h * hd + i] += s[j] / sum * v[j][kh * hd + i];
            }
            Vec o = matvec(W(b + "attn_output.weight"), E, att);
            if (p.post_norms) o = rms(o, W(b + "post_attention_norm.weight"), p.rms_eps);
            for (size_t i = 0; i < E; ++i) x[t][i] += o[i];
        }
        for (size_t t = 0; t < T; ++t) {
            const Vec xn = rms(x[t], W(b + "ffn_norm.weight"), p.rms_eps);
            Vec out(E, 0.0);
            if (p.n_expert > 0) {
                const size_t X = size_t(p.n_expert), FE = size_t(p.n_ff_exp);
                const Vec logits = matvec(W(b + "ffn_gate_inp.weight"), X, xn);
                const double mx = *std::max_element(logits.begin(), logits.end());
                Vec prob(X);
                double sum = 0;
                for (size_t e = 0; e < X; ++e) sum += (prob[e] = std::exp(logits[e] - mx));
                for (double& pr : prob) pr /= sum;
                std::vector<size_t> order(X);
                std::iota(order.begin(), order.end(), 0);
                std::stable_sort(order.begin(), order.end(),
                                 [&](size_t a, size_t c) { return prob[a] > prob[c]; });
                double chosen = 0;
                for (int64_t j = 0; j < p.n_expert_used; ++j) chosen += prob[order[size_t(j)]];
                for (int64_t j = 0; j < p.n_expert_used; ++j) {
                    const size_t e = order[size_t(j)];
                    const Vec g = matvec(W(b + "ffn_gate_exps.weight") + e * E * FE, FE, xn);
                    const Vec u = matvec(W(b + "ffn_up_exps.weight") + e * E * FE, FE, xn);
                    Vec a(FE);
                    for (size_t i = 0; i < FE; ++i) a[i] = silu(g[i]) * u[i];
                    const Vec d = matvec(W(b + "ffn_down_exps.weight") + e * FE * E, E, a);
                    for (size_t i = 0; i < E; ++i) out[i] += prob[e] / chosen * d[i];
                }
            } else {
                Vec g, u;
                if (p.fused_gate_up) {
                    const Vec gu = matvec(W(b + "ffn_up.weight"), 2 * F, xn);
                    g.assign(gu.begin(), gu.begin() + long(F));
                    u.assign(gu.begin() + long(F), gu.end());
                } else {
                    g = matvec(W(b + "ffn_gate.weight"), F, xn);
                    u = matvec(W(b + "ffn_up.weight"), F, xn);
                }
                for (size_t i = 0; i < F; ++i)
                    g[i] = (p.gelu_ffn ? gelu_tanh(g[i]) : silu(g[i])) * u[i];
                out = matvec(W(b + "ffn_down.weight"), E, g);
            }
            if (p.post_norms) out = rms(out, W(b + "post_ffw_norm.weight"), p.rms_eps);
            for (size_t i = 0; i < E; ++i) x[t][i] += out[i];
        }
    }
    const float* head = W("output.weight");
    if (!head || p.arch == Arch::Gemma2 || p.arch == Arch::Gemma3) head = W("token_embd.weight");
    std::vector<Vec> logits(T);
    for (size_t t = 0; t < T; ++t) {
        logits[t] = matvec(head, size_t(p.n_vocab), rms(x[t], W("output_norm.weight"), p.rms_eps));
        if (p.final_softcap > 0)
            for (double& z : logits[t])
                z = double(p.final_softcap) * std::tanh(z / double(p.final_softcap));
    }
    return logits;
}

}  // namespace hearth::runtime::test
