#include "synthetic_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "runtime/forward.h"
#include "runtime/kv_cache.h"
#include "runtime/placement.h"

namespace hearth::runtime::test {

namespace {

struct Builder {
    SyntheticModel& m;
    quant::Type wtype;
    std::mt19937& rng;
    const SyntheticModel* base;
    std::optional<quant::Type> v_down_type = std::nullopt;  // attn_v and ffn_down

    void add(const std::string& name, std::vector<int64_t> ne, bool matrix, float scale,
             float mean = 0.f) {
        const size_t k = static_cast<size_t>(ne[0]);
        size_t rows = 1;
        for (size_t i = 1; i < ne.size(); ++i) rows *= static_cast<size_t>(ne[i]);
        std::vector<float> f(k * rows);
        if (base) {
            f = base->values.at(name);
        } else {
            std::normal_distribution<float> d(mean, scale);
            for (auto& x : f) x = d(rng);
        }
        const bool v_down = name.ends_with("attn_v.weight") || name.ends_with("ffn_down.weight");
        const quant::Type t = !matrix || base         ? quant::Type::F32
                              : v_down && v_down_type ? *v_down_type
                                                      : wtype;
        const size_t rb = quant::row_bytes(t, k);
        // Tensors start at 64-byte multiples, as in a GGUF data section.
        const size_t off = (m.blob.size() + 63) / 64 * 64;
        m.blob.resize(off + rb * rows);
        std::vector<float> decoded(f.size());
        for (size_t r = 0; r < rows; ++r) {
            quant::quantize_row(t, f.data() + r * k, m.blob.data() + off + r * rb, k);
            quant::dequantize_row(t, m.blob.data() + off + r * rb, decoded.data() + r * k, k);
        }
        TensorSource::Entry e;
        e.name = name;
        e.type = t;
        for (size_t i = 0; i < ne.size(); ++i) e.ne[i] = ne[i];
        e.offset = off;
        m.source.tensors.push_back(e);
        m.values[name] = std::move(decoded);
    }
};

}  // namespace

SyntheticModel make_synthetic(Arch arch, quant::Type wtype, uint32_t seed,
                              const SyntheticModel* as_f32_of) {
    return make_synthetic(arch, wtype, std::nullopt, seed, as_f32_of);
}

SyntheticModel make_synthetic(Arch arch, quant::Type wtype, std::optional<quant::Type> v_down_type,
                              uint32_t seed, const SyntheticModel* as_f32_of) {
    SyntheticModel m;
    ModelConfig& p = m.params;
    p.arch = arch;
    p.arch_name = arch == Arch::Llama ? "llama" : "qwen2";
    p.n_vocab = 300;
    p.n_embd = 256;
    p.n_layer = 2;
    p.n_head = 8;
    p.n_head_kv = 2;
    p.head_dim = p.head_dim_v = 32;
    p.n_ff = 512;
    p.n_ctx_train = 256;
    p.rms_eps = 1e-5f;
    p.rope.n_rot = 32;
    if (arch == Arch::Llama) {
        p.rope.mode = backend::RopeMode::Adjacent;
        p.rope.freq_base = 10000.f;
        p.rope.freq_scale = 0.5f;
    } else {
        p.rope.mode = backend::RopeMode::RotateHalf;
        p.rope.freq_base = 1e6f;
    }
    std::mt19937 rng(seed);
    Builder b{m, wtype, rng, as_f32_of, v_down_type};
    const int64_t E = p.n_embd, V = p.n_vocab, Q = p.q_width(), KV = p.kv_width(), F = p.n_ff;
    const float se = 1.f / std::sqrt(float(E)), sf = 1.f / std::sqrt(float(F));
    b.add("token_embd.weight", {E, V}, true, 1.f);
    b.add("output_norm.weight", {E}, false, 0.1f, 1.f);
    if (arch == Arch::Llama) {
        b.add("output.weight", {E, V}, true, se);
        b.add("rope_freqs.weight", {p.rope.n_rot / 2}, false, 0.5f, 2.f);
        // Factors are >= 1 in real files: fold the draws into [1, 3].
        auto& rf = m.values["rope_freqs.weight"];
        const auto& e = m.source.tensors.back();
        if (!as_f32_of)
            for (auto& x : rf) x = 1.f + std::fabs(x - 2.f) * 2.f;
        std::memcpy(m.blob.data() + e.offset, rf.data(), rf.size() * sizeof(float));
    }
    for (int64_t l = 0; l < p.n_layer; ++l) {
        const std::string pre = "blk." + std::to_string(l) + ".";
        b.add(pre + "attn_norm.weight", {E}, false, 0.1f, 1.f);
        b.add(pre + "attn_q.weight", {E, Q}, true, se);
        b.add(pre + "attn_k.weight", {E, KV}, true, se);
        b.add(pre + "attn_v.weight", {E, KV}, true, se);
        if (arch == Arch::Qwen2) {
            b.add(pre + "attn_q.bias", {Q}, false, 0.2f);
            b.add(pre + "attn_k.bias", {KV}, false, 0.2f);
            b.add(pre + "attn_v.bias", {KV}, false, 0.2f);
        }
        b.add(pre + "attn_output.weight", {Q, E}, true, se);
        b.add(pre + "ffn_norm.weight", {E}, false, 0.1f, 1.f);
        b.add(pre + "ffn_gate.weight", {E, F}, true, se);
        b.add(pre + "ffn_up.weight", {E, F}, true, se);
        b.add(pre + "ffn_down.weight", {F, E}, true, sf);
    }
    m.source.bytes = std::span<const std::byte>(m.blob);
    return m;
}

namespace {

using Mat = std::vector<double>;

// y[T][rows] = W[rows][k] x[T][k]
std::vector<Mat> matmul(const std::vector<float>& w, const std::vector<Mat>& x, size_t rows) {
    std::vector<Mat> y;
    for (const Mat& xr : x) {
        Mat out(rows, 0.0);
        const size_t k = xr.size();
        for (size_t i = 0; i < rows; ++i) {
            double s = 0;
            for (size_t j = 0; j < k; ++j) s += double(w[i * k + j]) * xr[j];
            out[i] = s;
        }
        y.push_back(std::move(out));
    }
    return y;
}

Mat rms_norm(const Mat& x, const std::vector<float>& w, double eps) {
    double ss = 0;
    for (double v : x) ss += v * v;
    const double scale = 1.0 / std::sqrt(ss / double(x.size()) + eps);
    Mat y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] * scale * double(w[i]);
    return y;
}

void rope(Mat& x, size_t n_heads, const ModelConfig& p, int64_t pos,
          const std::vector<float>* factors) {
    const size_t hd = static_cast<size_t>(p.head_dim), half = size_t(p.rope.n_rot) / 2;
    for (size_t h = 0; h < n_heads; ++h) {
        double* v = x.data() + h * hd;
        for (size_t i = 0; i < half; ++i) {
            double theta = double(pos) * double(p.rope.freq_scale) *
                           std::pow(double(p.rope.freq_base), -2.0 * double(i) / p.rope.n_rot);
            if (factors) theta /= double((*factors)[i]);
            const bool adj = p.rope.mode == backend::RopeMode::Adjacent;
            const size_t i0 = adj ? 2 * i : i, i1 = adj ? 2 * i + 1 : i + half;
            const double a = v[i0], b = v[i1];
            v[i0] = a * std::cos(theta) - b * std::sin(theta);
            v[i1] = a * std::sin(theta) + b * std::cos(theta);
        }
    }
}

}  // namespace

std::vector<std::vector<double>> reference_forward(const SyntheticModel& m,
                                                   const std::vector<int32_t>& tokens) {
    const ModelConfig& p = m.params;
    const auto& W = m.values;
    const size_t E = size_t(p.n_embd), T = tokens.size(), hd = size_t(p.head_dim);
    const size_t H = size_t(p.n_head), Hkv = size_t(p.n_head_kv);
    const auto* factors = W.count("rope_freqs.weight") ? &W.at("rope_freqs.weight") : nullptr;
    std::vector<Mat> x(T, Mat(E));
    for (size_t t = 0; t < T; ++t)
        for (size_t i = 0; i < E; ++i)
            x[t][i] = W.at("token_embd.weight")[size_t(tokens[t]) * E + i];
    for (int64_t l = 0; l < p.n_layer; ++l) {
        const std::string pre = "blk." + std::to_string(l) + ".";
        std::vector<Mat> xn(T);
        for (size_t t = 0; t < T; ++t)
            xn[t] = rms_norm(x[t], W.at(pre + "attn_norm.weight"), p.rms_eps);
        auto q = matmul(W.at(pre + "attn_q.weight"), xn, H * hd);
        auto k = matmul(W.at(pre + "attn_k.weight"), xn, Hkv * hd);
        auto v = matmul(W.at(pre + "attn_v.weight"), xn, Hkv * hd);
        for (size_t t = 0; t < T; ++t) {
            if (W.count(pre + "attn_q.bias")) {
                for (size_t i = 0; i < q[t].size(); ++i) q[t][i] += W.at(pre + "attn_q.bias")[i];
                for (size_t i = 0; i < k[t].size(); ++i) k[t][i] += W.at(pre + "attn_k.bias")[i];
                for (size_t i = 0; i < v[t].size(); ++i) v[t][i] += W.at(pre + "attn_v.bias")[i];
            }
            rope(q[t], H, p, int64_t(t), factors);
            rope(k[t], Hkv, p, int64_t(t), factors);
        }
        std::vector<Mat> att(T, Mat(H * hd, 0.0));
        for (size_t t = 0; t < T; ++t) {
            for (size_t h = 0; h < H; ++h) {
                const size_t kh = h / (H / Hkv);
                std::vector<double> s(t + 1);
                double mx = -1e300;
                for (size_t j = 0; j <= t; ++j) {
                    double d = 0;
                    for (size_t i = 0; i < hd; ++i) d += q[t][h * hd + i] * k[j][kh * hd + i];
                    s[j] = d / std::sqrt(double(hd));
                    mx = std::max(mx, s[j]);
                }
                double sum = 0;
                for (double& e : s) sum += (e = std::exp(e - mx));
                for (size_t j = 0; j <= t; ++j)
                    for (size_t i = 0; i < hd; ++i)
                        att[t][h * hd + i] += s[j] / sum * v[j][kh * hd + i];
            }
        }
        auto o = matmul(W.at(pre + "attn_output.weight"), att, E);
        for (size_t t = 0; t < T; ++t)
            for (size_t i = 0; i < E; ++i) x[t][i] += o[t][i];
        for (size_t t = 0; t < T; ++t)
            xn[t] = rms_norm(x[t], W.at(pre + "ffn_norm.weight"), p.rms_eps);
        auto g = matmul(W.at(pre + "ffn_gate.weight"), xn, size_t(p.n_ff));
        auto u = matmul(W.at(pre + "ffn_up.weight"), xn, size_t(p.n_ff));
        for (size_t t = 0; t < T; ++t)
            for (size_t i = 0; i < g[t].size(); ++i)
                g[t][i] = g[t][i] / (1.0 + std::exp(-g[t][i])) * u[t][i];
        auto d = matmul(W.at(pre + "ffn_down.weight"), g, E);
        for (size_t t = 0; t < T; ++t)
            for (size_t i = 0; i < E; ++i) x[t][i] += d[t][i];
    }
    std::vector<Mat> xn(T);
    for (size_t t = 0; t < T; ++t) xn[t] = rms_norm(x[t], W.at("output_norm.weight"), p.rms_eps);
    const auto& out = W.count("output.weight") ? W.at("output.weight") : W.at("token_embd.weight");
    return matmul(out, xn, size_t(p.n_vocab));
}

SplitRun run_split(const SyntheticModel& m, backend::Device& cpu, backend::Device* accel, int64_t n,
                   bool head, const std::vector<int32_t>& prompt, int steps,
                   backend::DType kv_type) {
    Placement pl{&cpu, accel, n, head};
    auto w = bind_weights(m.params, m.source, pl);
    EXPECT_TRUE(w.is_ok()) << (w ? "" : w.error_message());
    if (!w) return {};
    std::vector<backend::Device*> layer_dev;
    for (int64_t l = 0; l < m.params.n_layer; ++l)
        layer_dev.push_back(&w->placement.layer_device(l));
    auto kv = KvCache::create(cpu, m.params, 64, kv_type, layer_dev);
    EXPECT_TRUE(kv.is_ok());
    auto fw = Forward::create(cpu, m.params, *w, 64, 8, 2);
    EXPECT_TRUE(fw.is_ok());
    if (!kv || !fw) return {};
    SplitRun r;
    auto out = (*fw)->step(prompt, **kv);
    for (int i = 0; out && i <= steps; ++i) {
        r.logits.emplace_back(out->begin(), out->end());
        if (i == steps) break;
        const int32_t next =
            static_cast<int32_t>(std::max_element(out->begin(), out->end()) - out->begin());
        r.tokens.push_back(next);
        out = (*fw)->step(std::span(&next, 1), **kv);
    }
    EXPECT_TRUE(out.is_ok()) << (out ? "" : out.error_message());
    // The same greedy run with each token picked on the device that runs the output head
    // (ArgMax: one integer read back per step) gives the same tokens.
    auto kv2 = KvCache::create(cpu, m.params, 64, kv_type, layer_dev);
    auto fw2 = Forward::create(cpu, m.params, *w, 64, 8, 2);
    EXPECT_TRUE(kv2.is_ok() && fw2.is_ok());
    if (!kv2 || !fw2 || steps <= 0) return r;
    auto picked = (*fw2)->step_argmax(prompt, **kv2);
    for (int i = 0; picked && i < steps; ++i) {
        r.device_tokens.push_back(*picked);
        if (i + 1 == steps) break;
        const int32_t tok = *picked;
        picked = (*fw2)->step_argmax(std::span(&tok, 1), **kv2);
    }
    EXPECT_TRUE(picked.is_ok()) << (picked ? "" : picked.error_message());
    EXPECT_EQ(r.device_tokens, r.tokens) << "greedy tokens picked on the device";
    EXPECT_EQ((*fw2)->read_back().logits_rows, 0u);
    EXPECT_EQ((*fw2)->read_back().token_ids, r.device_tokens.size());
    return r;
}

double rel_diff(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) return 1e9;
    double mx = 0, ref = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        mx = std::max(mx, double(std::fabs(a[i] - b[i])));
        ref = std::max(ref, double(std::fabs(b[i])));
    }
    return mx / ref;
}

}  // namespace hearth::runtime::test
