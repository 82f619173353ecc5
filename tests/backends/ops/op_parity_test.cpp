// Each op on the CPU backend against the reference ops, on random inputs and odd shapes.
#include <gtest/gtest.h>

#include <functional>
#include <numeric>

#include "cpu/cpu_device.h"
#include "op_test_util.h"
#include "ref/ref_device.h"

namespace hearth::backend::test {
namespace {

// Every op case runs on every device the registry finds (cpu, the ref plugin, and GPU
// plugins where they are built and a device is present).
class OpParity : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Devices, OpParity, ::testing::ValuesIn(registry_devices()),
                         [](const auto& info) { return info.param; });

std::vector<float> run(Stream& s, const Graph& g, const Tensor& out) {
    const Status st = s.compute(g);
    EXPECT_TRUE(st.is_ok()) << st.message();
    if (out.type == DType::F16) {
        std::vector<uint16_t> h(static_cast<size_t>(out.n_elements()));
        (void)out.buffer->read(out.offset, std::as_writable_bytes(std::span(h)));
        std::vector<float> f(h.size());
        for (size_t i = 0; i < h.size(); ++i) f[i] = quant::f16_to_f32(h[i]);
        return f;
    }
    if (out.type == DType::Q8_0 || out.type == DType::Q4_0) {  // a quantized KV cache
        std::vector<std::byte> raw(out.span_bytes());
        (void)out.buffer->read(out.offset, std::span(raw));
        std::vector<float> f(static_cast<size_t>(out.n_elements()));
        quant::dequantize_row(out.type, raw.data(), f.data(), f.size());
        return f;
    }
    return download_f32(out);
}

const quant::Type kWeightTypes[] = {
    quant::Type::F32,  quant::Type::F16,    quant::Type::BF16,   quant::Type::Q4_0,
    quant::Type::Q4_1, quant::Type::Q5_0,   quant::Type::Q5_1,   quant::Type::Q8_0,
    quant::Type::Q2_K, quant::Type::Q3_K,   quant::Type::Q4_K,   quant::Type::Q5_K,
    quant::Type::Q6_K, quant::Type::IQ4_NL, quant::Type::IQ4_XS,
};

TEST_P(OpParity, MatMulEveryWeightType) {
    int tested = 0;
    for (quant::Type wt : kWeightTypes) {
        if (!quant::can_quantize(wt)) continue;
        ++tested;
        double worst = 0;
        const int64_t bs = quant::traits(wt).block_size;
        for (int64_t k : {bs, 2 * bs > 256 ? 512 : int64_t(96), int64_t(512)}) {
            if (k % bs) continue;
            // Batches of 16 or more columns take the GPU backends' tiled kernels (tiles of 64
            // rows x 32 columns on Vulkan, 64 x 64 on CUDA): sizes that are not multiples. CUDA's
            // dp4a decode kernel gives a row 4, 2 or 1 warps as the matrix has fewer than 2048,
            // fewer than 4096 or more rows: the tall cases, for its formats only (quantizing
            // them for every format would make this test twenty times slower).
            const bool dp4a_fmt = wt == quant::Type::Q4_0 || wt == quant::Type::Q8_0 ||
                                  wt == quant::Type::Q4_K || wt == quant::Type::Q6_K;
            for (auto [m, T] : {std::pair<int64_t, int64_t>{1, 1},
                                {7, 1},
                                {33, 3},
                                {65, 17},
                                {130, 45},
                                {2050, 2},
                                {4099, 1}}) {
                if (m > 1000 && !(dp4a_fmt && k == 512)) continue;
                SCOPED_TRACE(std::string(quant::traits(wt).name) + " k=" + std::to_string(k) +
                             " m=" + std::to_string(m) + " T=" + std::to_string(T));
                Case c = [&](Device& d, Stream& s) {
                    std::mt19937 rng(42);
                    const auto wf = random_floats(rng, size_t(k * m));
                    const auto wb = encode_rows(wt, wf, size_t(k));
                    const auto xf = random_floats(rng, size_t(k * T));
                    auto w = upload(d, wt, {k, m}, wb.data());
                    auto x = upload(d, DType::F32, {k, T}, xf.data());
                    auto y = upload(d, DType::F32, {m, T}, nullptr);
                    Graph g;
                    g.mat_mul(y.t, w.t, x.t, "mm");
                    return run(s, g, y.t);
                };
                const auto r = run_both(GetParam(), c, 2);
                // Quantized weights meet 8-bit activations on the CPU: a small, bounded error.
                const bool exact_act =
                    wt == quant::Type::F32 || wt == quant::Type::F16 || wt == quant::Type::BF16;
                const double e = nmse(r.dev, r.ref);
                EXPECT_LT(e, exact_act ? 1e-10 : 1e-3);
                worst = std::max(worst, e);
            }
        }
        std::printf("[ info ] mat_mul %-6s worst NMSE vs reference %.2e\n",
                    quant::traits(wt).name.data(), worst);
    }
    EXPECT_GE(tested, 11);  // Q2_K, Q3_K, IQ4_* have no reference quantizer yet
}

TEST_P(OpParity, GetRowsEveryWeightType) {
    for (quant::Type wt : kWeightTypes) {
        if (!quant::can_quantize(wt)) continue;
        const int64_t k = quant::traits(wt).block_size == 256 ? 256 : 64;
        SCOPED_TRACE(quant::traits(wt).name);
        Case c = [&](Device& d, Stream& s) {
            std::mt19937 rng(7);
            const auto tf = random_floats(rng, size_t(k * 11));
            const auto tb = encode_rows(wt, tf, size_t(k));
            const int32_t ids[] = {3, 0, 10, 3, 7};
            auto table = upload(d, wt, {k, 11}, tb.data());
            auto id = upload(d, DType::I32, {5}, ids);
            auto y = upload(d, DType::F32, {k, 5}, nullptr);
            Graph g;
            g.get_rows(y.t, table.t, id.t, "get_rows");
            return run(s, g, y.t);
        };
        const auto r = run_both(GetParam(), c, 2);
        EXPECT_EQ(r.dev, r.ref);
    }
}

TEST_P(OpParity, ElementwiseAndNorm) {
    for (auto [n, T] : {std::pair<int64_t, int64_t>{1, 1}, {7, 3}, {64, 1}, {4097, 5}}) {
        SCOPED_TRACE("n=" + std::to_string(n) + " T=" + std::to_string(T));
        for (int op = 0; op < 4; ++op) {
            Case c = [&](Device& d, Stream& s) {
                std::mt19937 rng(11);
                const auto af = random_floats(rng, size_t(n * T), 3.f);
                const auto bf = random_floats(rng, size_t(n * T));
                auto a = upload(d, DType::F32, {n, T}, af.data());
                auto b = upload(d, DType::F32, {n, op == 1 ? 1 : T}, bf.data());
                auto y = upload(d, DType::F32, {n, T}, nullptr);
                Graph g;
                if (op == 0 || op == 1) g.add(y.t, a.t, b.t, "add");
                if (op == 2) g.rms_norm(y.t, a.t, b.t.rows(0, 1), 1e-5f, "norm");
                if (op == 3) g.swiglu(y.t, a.t, b.t, "swiglu");
                return run(s, g, y.t);
            };
            const auto r = run_both(GetParam(), c, 2);
            EXPECT_LT(max_rel(r.dev, r.ref), 1e-6) << "op " << op;
        }
    }
}

TEST_P(OpParity, RopeBothModes) {
    for (RopeMode mode : {RopeMode::Adjacent, RopeMode::RotateHalf}) {
        for (auto [d_head, n_rot, ff] :
             {std::tuple<int64_t, int32_t, bool>{8, 8, false}, {64, 64, true}, {80, 32, false}}) {
            const int64_t H = 3, T = 5;
            SCOPED_TRACE("mode " + std::to_string(int(mode)) + " d=" + std::to_string(d_head) +
                         " n_rot=" + std::to_string(n_rot));
            Case c = [&](Device& d, Stream& s) {
                std::mt19937 rng(5);
                const auto xf = random_floats(rng, size_t(d_head * H * T));
                std::vector<float> fac(size_t(n_rot / 2));
                for (size_t i = 0; i < fac.size(); ++i) fac[i] = 1.f + float(i % 3);
                const int32_t pos[] = {0, 1, 17, 300, 4095};
                auto x = upload(d, DType::F32, {d_head, H, T}, xf.data());
                auto p = upload(d, DType::I32, {T}, pos);
                auto f = upload(d, DType::F32, {n_rot / 2}, fac.data());
                RopeParams rp{mode, n_rot, 500000.f, 0.5f};
                Graph g;
                g.rope(x.t, x.t, p.t, ff ? f.t : Tensor{}, rp, "rope");
                return run(s, g, x.t);
            };
            const auto r = run_both(GetParam(), c, 2);
            EXPECT_LT(max_rel(r.dev, r.ref), 1e-5);
        }
    }
}

// A graph's Rope nodes share one angle table on the CPU while positions and parameters agree:
// nodes with the same ones, another base, other positions, and the same graph run again after
// its positions changed (a decode step's graph with the next position) must each rotate by
// their own angles.
TEST_P(OpParity, RopeAnglesFollowPositionsAndParameters) {
    const int64_t dh = 64, H = 2, T = 3;
    Case c = [&](Device& d, Stream& s) {
        std::mt19937 rng(9);
        std::vector<Owned> xs;
        for (int i = 0; i < 4; ++i) {
            const auto xf = random_floats(rng, size_t(dh * H * T));
            xs.push_back(upload(d, DType::F32, {dh, H, T}, xf.data()));
        }
        const int32_t pos1[] = {5, 6, 7}, pos2[] = {100, 2, 9}, pos3[] = {8, 9, 10};
        auto p1 = upload(d, DType::I32, {T}, pos1);
        auto p2 = upload(d, DType::I32, {T}, pos2);
        const RopeParams a{RopeMode::Adjacent, 64, 10000.f, 1.f};
        const RopeParams b{RopeMode::Adjacent, 64, 500000.f, 1.f};
        Graph g;
        g.rope(xs[0].t, xs[0].t, p1.t, Tensor{}, a, "a");
        g.rope(xs[1].t, xs[1].t, p1.t, Tensor{}, a, "a again");
        g.rope(xs[2].t, xs[2].t, p1.t, Tensor{}, b, "another base");
        g.rope(xs[3].t, xs[3].t, p2.t, Tensor{}, a, "other positions");
        std::vector<float> out;
        for (int round = 0; round < 2; ++round) {
            if (round == 1) {
                EXPECT_TRUE(
                    p1.t.buffer->write(p1.t.offset, std::as_bytes(std::span(pos3))).is_ok());
            }
            EXPECT_TRUE(s.compute(g).is_ok());
            for (const Owned& x : xs) {
                const auto v = download_f32(x.t);
                out.insert(out.end(), v.begin(), v.end());
            }
        }
        return out;
    };
    const auto r = run_both(GetParam(), c, 2);
    EXPECT_LT(max_rel(r.dev, r.ref), 1e-5);
}

// KV append into a shuffled block table (paged), then attention over it; F32, F16, Q8_0 and
// Q4_0 caches, GQA, two sequences in one batch. Quantized caches need rows of whole 32-blocks;
// hd=8 with 4 KV heads puts several heads in one block (stories260K's shape).
TEST_P(OpParity, KvAppendAndAttention) {
    for (DType kv : {DType::F32, DType::F16, DType::Q8_0, DType::Q4_0}) {
        for (auto [hd, H, Hkv] : {std::tuple<int64_t, int64_t, int64_t>{8, 2, 2},
                                  {8, 8, 4},
                                  {16, 8, 2},
                                  {64, 6, 1},
                                  {48, 4, 2}}) {
            if (kv != DType::F32 && kv != DType::F16 && (hd * Hkv) % 32 != 0) continue;
            SCOPED_TRACE(std::string(dtype_name(kv)) + " hd=" + std::to_string(hd) +
                         " H=" + std::to_string(H) + " Hkv=" + std::to_string(Hkv));
            const int32_t bs = 4, blocks = 6;
            const int64_t cells = bs * blocks;
            // seq 0 gets positions 0..6, seq 1 positions 0..4.
            const std::vector<int32_t> pos = {0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4};
            const std::vector<int32_t> seq = {0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1};
            const int32_t table[] = {5, 2, 0, 1, 3, 4};  // [3 blocks, 2 seqs]
            const int64_t T = int64_t(pos.size());
            Case c = [&](Device& d, Stream& s) {
                std::mt19937 rng(9);
                const auto kf = random_floats(rng, size_t(hd * Hkv * T));
                const auto vf = random_floats(rng, size_t(hd * Hkv * T));
                const auto qf = random_floats(rng, size_t(hd * H * T), 2.f);
                auto k = upload(d, DType::F32, {hd * Hkv, T}, kf.data());
                auto v = upload(d, DType::F32, {hd * Hkv, T}, vf.data());
                auto q = upload(d, DType::F32, {hd, H, T}, qf.data());
                auto kc = upload(d, kv, {hd * Hkv, cells}, nullptr);
                auto vc = upload(d, kv, {hd * Hkv, cells}, nullptr);
                auto p = upload(d, DType::I32, {T}, pos.data());
                auto sq = upload(d, DType::I32, {T}, seq.data());
                auto bt = upload(d, DType::I32, {3, 2}, table);
                auto y = upload(d, DType::F32, {hd, H, T}, nullptr);
                const KvIndex idx{p.t, bt.t, sq.t};
                Graph g;
                g.kv_append(kc.t, k.t, idx, bs, "k");
                g.kv_append(vc.t, v.t, idx, bs, "v");
                g.attention(y.t, q.t, kc.t, vc.t, idx, {bs, 1.f / std::sqrt(float(hd))}, "attn");
                auto out = run(s, g, y.t);
                const auto cache = run(s, Graph{}, kc.t);  // the cache contents too
                out.insert(out.end(), cache.begin(), cache.end());
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

// A prefill longer than the CPU's token tiles and cell chunks (16): 40 tokens of one sequence
// at positions 9..48 over a cache whose first 9 positions were written by an earlier step.
TEST_P(OpParity, LongPrefillAttentionOverEveryKvType) {
    for (DType kv : {DType::F32, DType::F16, DType::Q8_0, DType::Q4_0}) {
        SCOPED_TRACE(dtype_name(kv));
        const int64_t hd = 64, H = 8, Hkv = 2;
        const int32_t bs = 16;
        const int32_t table[] = {3, 0, 2, 1};  // 4 blocks, one sequence
        Case c = [&](Device& d, Stream& s) {
            return attention_steps(d, s, kv, hd, H, Hkv, bs, table, {{0, 9}, {9, 40}}, 21);
        };
        const auto r = run_both(GetParam(), c, 2);
        EXPECT_LT(max_rel(r.dev, r.ref), 1e-5) << worst_at(r.dev, r.ref);
    }
}

}  // namespace
}  // namespace hearth::backend::test
