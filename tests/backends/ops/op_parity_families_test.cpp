// The ops added for the Gemma, Phi-3 and mixture-of-experts families on the CPU backend against
// the reference ops: GeGLU, scale, soft-cap, RoPE's attention factor, sliding-window and
// soft-capped attention over a paged cache, expert routing, the expert matrix product (every
// weight format, decode and grouped prefill) and the weighted sum.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "cpu/cpu_device.h"
#include "op_test_util.h"
#include "ref/ref_device.h"

namespace hearth::backend::test {
namespace {

// Every op case runs on every device the registry finds (cpu, the ref plugin, and GPU
// plugins where they are built and a device is present).
class OpParityFamilies : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Devices, OpParityFamilies, ::testing::ValuesIn(registry_devices()),
                         [](const auto& info) { return info.param; });

std::vector<float> run(Stream& s, const Graph& g, const Tensor& out) {
    const Status st = s.compute(g);
    EXPECT_TRUE(st.is_ok()) << st.message();
    return download_f32(out);
}

TEST_P(OpParityFamilies, GeGluScaleSoftCap) {
    for (auto [n, T] : {std::pair<int64_t, int64_t>{1, 1}, {7, 3}, {4097, 5}}) {
        std::mt19937 rng(3);
        const auto af = random_floats(rng, size_t(n * T), 4.f);
        const auto bf = random_floats(rng, size_t(n * T));
        for (int op = 0; op < 3; ++op) {
            SCOPED_TRACE("op " + std::to_string(op) + " n=" + std::to_string(n));
            Case c = [&](Device& d, Stream& s) {
                auto a = upload(d, DType::F32, {n, T}, af.data());
                auto b = upload(d, DType::F32, {n, T}, bf.data());
                auto y = upload(d, DType::F32, {n, T}, nullptr);
                Graph g;
                if (op == 0) g.geglu(y.t, a.t, b.t, "geglu");
                if (op == 1) g.scale(y.t, a.t, 8.f, "scale");
                if (op == 2) g.softcap(y.t, a.t, 5.f, "softcap");
                return run(s, g, y.t);
            };
            const auto r = run_both(GetParam(), c, 2);
            // GeGLU's 1 + tanh cancels for negative inputs, and soft-cap's tanh(z) written with
            // exp on a GPU cancels near 0: a small output carries the absolute error of a float
            // tanh (an ulp of 1) scaled by a * b or by the cap. So the error is measured against
            // that scale, not against the output (the one element of n = 1 was 5e-6 off relative
            // to itself on NVIDIA's Vulkan driver, an H200).
            double scale = op == 2 ? 5.0 : 0.0;
            for (size_t i = 0; op == 0 && i < af.size(); ++i)
                scale = std::max(scale, std::fabs(double(af[i]) * bf[i]));
            if (op == 1) {
                EXPECT_LT(max_rel(r.dev, r.ref), 1e-6);
            } else {
                double worst = 0;
                for (size_t i = 0; i < r.dev.size(); ++i)
                    worst = std::max(worst, std::fabs(double(r.dev[i]) - r.ref[i]));
                EXPECT_LT(worst / scale, 1e-6) << worst_at(r.dev, r.ref);
            }
            if (op == 2) {  // capped: every value strictly inside (-5, 5)
                for (float v : r.dev) EXPECT_LT(std::fabs(v), 5.f);
            }
        }
    }
}

TEST_P(OpParityFamilies, RopeAttentionFactorPartialRotary) {
    const int64_t hd = 16, H = 3, T = 4;
    Case c = [&](Device& d, Stream& s) {
        std::mt19937 rng(5);
        const auto xf = random_floats(rng, size_t(hd * H * T));
        const float fac[] = {1.f, 2.f, 4.f, 8.f, 12.f, 16.f};
        const int32_t pos[] = {0, 3, 100, 511};
        auto x = upload(d, DType::F32, {hd, H, T}, xf.data());
        auto p = upload(d, DType::I32, {T}, pos);
        auto f = upload(d, DType::F32, {6}, fac);
        RopeParams rp{RopeMode::RotateHalf, 12, 10000.f, 1.f, 1.2247449f};
        Graph g;
        g.rope(x.t, x.t, p.t, f.t, rp, "rope");
        auto out = run(s, g, x.t);
        out.insert(out.end(), xf.begin(), xf.end());
        return out;
    };
    const auto r = run_both(GetParam(), c, 2);
    EXPECT_LT(max_rel(r.dev, r.ref), 1e-5);
    // Dims 12..15 of each head pass through untouched; position 0 is scaled by the factor.
    const size_t n = size_t(hd * H * T);
    for (size_t i = 0; i < n; ++i) {
        if (i % hd >= 12) {
            EXPECT_EQ(r.dev[i], r.dev[n + i]);
        }
        if (i < size_t(hd) && i % hd < 12) {
            EXPECT_NEAR(r.dev[i], 1.2247449f * r.dev[n + i], 1e-5);
        }
    }
}

// A sliding window of 5 and a soft-cap over a shuffled (paged) block table, across several
// token tiles: positions 0..39 in one batch, then 40..44 one at a time.
TEST_P(OpParityFamilies, SlidingWindowSoftCapAttention) {
    for (DType kv : {DType::F32, DType::F16, DType::Q8_0}) {
        for (int32_t window : {0, 5, 16, 100}) {
            SCOPED_TRACE(std::string(dtype_name(kv)) + " window " + std::to_string(window));
            const int64_t hd = 32, H = 4, Hkv = 2;
            const int32_t bs = 8;
            const int32_t table[] = {4, 1, 5, 0, 3, 2};
            Case c = [&](Device& d, Stream& s) {
                std::mt19937 rng(17);
                auto kc = upload(d, kv, {hd * Hkv, 6 * bs}, nullptr);
                auto vc = upload(d, kv, {hd * Hkv, 6 * bs}, nullptr);
                auto bt = upload(d, DType::I32, {6, 1}, table);
                std::vector<float> out;
                for (auto [first, n] :
                     {std::pair<int64_t, int64_t>{0, 40}, {40, 1}, {41, 1}, {42, 3}}) {
                    std::vector<int32_t> pos(static_cast<size_t>(n));
                    std::iota(pos.begin(), pos.end(), static_cast<int32_t>(first));
                    const auto kf = random_floats(rng, size_t(hd * Hkv * n));
                    const auto vf = random_floats(rng, size_t(hd * Hkv * n));
                    const auto qf = random_floats(rng, size_t(hd * H * n), 3.f);
                    auto k = upload(d, DType::F32, {hd * Hkv, n}, kf.data());
                    auto v = upload(d, DType::F32, {hd * Hkv, n}, vf.data());
                    auto q = upload(d, DType::F32, {hd, H, n}, qf.data());
                    auto p = upload(d, DType::I32, {n}, pos.data());
                    auto y = upload(d, DType::F32, {hd, H, n}, nullptr);
                    const KvIndex idx{p.t, bt.t, Tensor{}};
                    KvParams kp{bs, 1.f / std::sqrt(float(hd)), 2.f, window};
                    Graph g;
                    g.kv_append(kc.t, k.t, idx, bs, "k");
                    g.kv_append(vc.t, v.t, idx, bs, "v");
                    g.attention(y.t, q.t, kc.t, vc.t, idx, kp, "attn");
                    const auto o = run(s, g, y.t);
                    out.insert(out.end(), o.begin(), o.end());
                }
                return out;
            };
            for (int threads : {1, 2}) {
                const auto r = run_both(GetParam(), c, threads);
                EXPECT_LT(max_rel(r.dev, r.ref), 1e-5)
                    << threads << " threads, " << worst_at(r.dev, r.ref);
            }
        }
    }
}

// With a window of 1 every token sees only itself: the output is its own V row.
TEST(OpParityFamiliesOnCpu, WindowOfOneSeesOnlyItself) {
    const int64_t hd = 8, T = 6;
    auto dev = make_cpu_device();
    auto s = dev->create_stream({2});
    std::mt19937 rng(1);
    const auto kf = random_floats(rng, size_t(hd * T)), vf = random_floats(rng, size_t(hd * T));
    const auto qf = random_floats(rng, size_t(hd * T));
    std::vector<int32_t> pos(T);
    std::iota(pos.begin(), pos.end(), 0);
    const int32_t table[] = {0};
    auto k = upload(*dev, DType::F32, {hd, T}, kf.data());
    auto v = upload(*dev, DType::F32, {hd, T}, vf.data());
    auto q = upload(*dev, DType::F32, {hd, 1, T}, qf.data());
    auto kc = upload(*dev, DType::F32, {hd, 16}, nullptr);
    auto vc = upload(*dev, DType::F32, {hd, 16}, nullptr);
    auto p = upload(*dev, DType::I32, {T}, pos.data());
    auto bt = upload(*dev, DType::I32, {1, 1}, table);
    auto y = upload(*dev, DType::F32, {hd, 1, T}, nullptr);
    const KvIndex idx{p.t, bt.t, Tensor{}};
    Graph g;
    g.kv_append(kc.t, k.t, idx, 16, "k");
    g.kv_append(vc.t, v.t, idx, 16, "v");
    g.attention(y.t, q.t, kc.t, vc.t, idx, {16, 1.f, 0.f, 1}, "attn");
    ASSERT_TRUE((*s)->compute(g).is_ok());
    const auto out = download_f32(y.t);
    for (size_t i = 0; i < out.size(); ++i) EXPECT_NEAR(out[i], vf[i], 1e-6);
}

TEST(OpParityFamiliesOnCpu, MoeRouteTopKAndRenormalisation) {
    const int64_t X = 8, T = 5;
    for (int32_t k : {1, 2, 8}) {
        for (bool renorm : {true, false}) {
            std::vector<float> wr, wc;
            std::vector<int32_t> ir, ic;
            for (bool cpu : {false, true}) {
                auto d = cpu ? make_cpu_device() : make_ref_device();
                auto s = d->create_stream({2});
                std::mt19937 rng(8);
                auto lf = random_floats(rng, size_t(X * T), 2.f);
                lf[3] = lf[5] = 9.f;  // an exact tie in token 0: the lower id comes first
                auto l = upload(*d, DType::F32, {X, T}, lf.data());
                auto w = upload(*d, DType::F32, {k, T}, nullptr);
                auto ids = upload(*d, DType::I32, {k, T}, nullptr);
                Graph g;
                g.moe_route(w.t, ids.t, l.t, k, renorm, "route");
                ASSERT_TRUE((*s)->compute(g).is_ok());
                (cpu ? wc : wr) = download_f32(w.t);
                std::vector<int32_t> iv(size_t(k * T));
                (void)ids.buffer->read(0, std::as_writable_bytes(std::span(iv)));
                (cpu ? ic : ir) = iv;
            }
            EXPECT_EQ(ic, ir);
            EXPECT_LT(max_rel(wc, wr), 1e-6);
            EXPECT_EQ(ic[0], 3);
            if (k > 1) {
                EXPECT_EQ(ic[1], 5);
            }
            for (int64_t t = 0; t < T; ++t) {
                double sum = 0;
                for (int32_t j = 0; j < k; ++j) sum += wc[size_t(t * k + j)];
                if (renorm || k == X) {
                    EXPECT_NEAR(sum, 1.0, 1e-6);
                }
                for (int32_t j = 1; j < k; ++j)
                    EXPECT_GE(wc[size_t(t * k + j - 1)], wc[size_t(t * k + j)]);
            }
        }
    }
}

// Routing on every device: top-k of the softmax with an exact tie (lower id first), with and
// without renormalisation; the ids are compared as floats after the weights.
TEST_P(OpParityFamilies, MoeRouteTopK) {
    const int64_t X = 8, T = 5;
    for (int32_t k : {1, 2, 8}) {
        for (bool renorm : {true, false}) {
            SCOPED_TRACE("k " + std::to_string(k) + (renorm ? " renorm" : ""));
            Case c = [&](Device& d, Stream& s) {
                std::mt19937 rng(8);
                auto lf = random_floats(rng, size_t(X * T), 2.f);
                lf[3] = lf[5] = 9.f;
                auto l = upload(d, DType::F32, {X, T}, lf.data());
                auto w = upload(d, DType::F32, {k, T}, nullptr);
                auto ids = upload(d, DType::I32, {k, T}, nullptr);
                Graph g;
                g.moe_route(w.t, ids.t, l.t, k, renorm, "route");
                auto out = run(s, g, w.t);
                std::vector<int32_t> iv(size_t(k * T));
                (void)ids.buffer->read(0, std::as_writable_bytes(std::span(iv)));
                for (int32_t v : iv) out.push_back(float(v));
                return out;
            };
            const auto r = run_both(GetParam(), c, 2);
            ASSERT_EQ(r.dev.size(), r.ref.size());
            for (size_t i = size_t(k * T); i < r.ref.size(); ++i) EXPECT_EQ(r.dev[i], r.ref[i]);
            EXPECT_LT(max_rel(r.dev, r.ref), 1e-6);
        }
    }
}

const quant::Type kWeightTypes[] = {
    quant::Type::F32,  quant::Type::F16,    quant::Type::BF16,   quant::Type::Q4_0,
    quant::Type::Q4_1, quant::Type::Q5_0,   quant::Type::Q5_1,   quant::Type::Q8_0,
    quant::Type::Q2_K, quant::Type::Q3_K,   quant::Type::Q4_K,   quant::Type::Q5_K,
    quant::Type::Q6_K, quant::Type::IQ4_NL, quant::Type::IQ4_XS,
};

// Expert products for every weight format: decode (one token), prefills whose tokens share
// experts (9 tokens; 40, where expert 4 has 39 slots: more than one 32-slot tile of Vulkan's
// grouped kernel), shared input rows (X [n, 1, T]) and per-slot rows (X [n, k, T]); then the
// weighted sum.
TEST_P(OpParityFamilies, MoeMatMulEveryWeightType) {
    int tested = 0;
    for (quant::Type wt : kWeightTypes) {
        if (!quant::can_quantize(wt)) continue;
        ++tested;
        const int64_t n = quant::traits(wt).block_size == 256 ? 256 : 64;
        const int64_t m = 24, X = 6, k = 2;
        for (int64_t T : {int64_t(1), int64_t(9), int64_t(40)}) {
            for (bool per_slot : {false, true}) {
                SCOPED_TRACE(std::string(quant::traits(wt).name) + " T=" + std::to_string(T) +
                             (per_slot ? " per-slot" : " shared"));
                Case c = [&](Device& d, Stream& s) {
                    std::mt19937 rng(13);
                    const auto wf = random_floats(rng, size_t(n * m * X));
                    const auto wb = encode_rows(wt, wf, size_t(n));
                    const int64_t kx = per_slot ? k : 1;
                    const auto xf = random_floats(rng, size_t(n * kx * T));
                    // Token t: first expert 0, 2 or 5 (shared by several tokens), second
                    // 1 (token 1 only) or 4; expert 3 is never chosen.
                    std::vector<int32_t> ids(size_t(k * T));
                    for (int64_t t = 0; t < T; ++t) {
                        ids[size_t(t * k)] = t % 3 == 0 ? 0 : t % 3 == 1 ? 2 : 5;
                        ids[size_t(t * k + 1)] = t == 1 ? 1 : 4;
                    }
                    std::vector<float> wts(size_t(k * T));
                    for (size_t i = 0; i < wts.size(); ++i) wts[i] = i % 2 ? 0.25f : 0.75f;
                    auto w = upload(d, wt, {n, m, X}, wb.data());
                    auto x = upload(d, DType::F32, {n, kx, T}, xf.data());
                    auto id = upload(d, DType::I32, {k, T}, ids.data());
                    auto rw = upload(d, DType::F32, {k, T}, wts.data());
                    auto y = upload(d, DType::F32, {m, k, T}, nullptr);
                    auto sum = upload(d, DType::F32, {m, T}, nullptr);
                    Graph g;
                    g.moe_mat_mul(y.t, w.t, x.t, id.t, "moe");
                    g.moe_combine(sum.t, y.t, rw.t, "combine");
                    auto out = run(s, g, y.t);
                    const auto sv = download_f32(sum.t);
                    out.insert(out.end(), sv.begin(), sv.end());
                    return out;
                };
                const auto r = run_both(GetParam(), c, 2);
                const bool exact_act =
                    wt == quant::Type::F32 || wt == quant::Type::F16 || wt == quant::Type::BF16;
                EXPECT_LT(nmse(r.dev, r.ref), exact_act ? 1e-10 : 1e-3);
            }
        }
    }
    EXPECT_GE(tested, 11);
}

}  // namespace
}  // namespace hearth::backend::test
