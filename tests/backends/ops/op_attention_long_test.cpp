// Attention over a long paged history on the CPU backend against the reference device, on every
// ISA this CPU runs: a new turn's prefill (more tokens than one work item holds) and a decode
// step over hundreds of cells, for each KV type, with qwen2.5-0.5b's group of 7 heads.
#include <gtest/gtest.h>

#include <numeric>
#include <string>

#include "cpu/cpu_device.h"
#include "cpu/kernels/kernels.h"
#include "op_test_util.h"
#include "ref/ref_device.h"

namespace hearth::backend::test {
namespace {

double max_rel_err(const std::vector<float>& a, const std::vector<float>& b) {
    double mx = 0, ref = 1e-30;
    for (size_t i = 0; i < a.size(); ++i) {
        mx = std::max(mx, std::fabs(double(a[i]) - b[i]));
        ref = std::max(ref, std::fabs(double(b[i])));
    }
    return mx / ref;
}

// Steps of (first position, tokens) on one sequence of a cache of 32 blocks of 16 cells.
std::vector<float> run_steps(Device& d, Stream& s, DType kv, int64_t hd, int64_t H, int64_t Hkv,
                             std::initializer_list<std::pair<int64_t, int64_t>> steps) {
    const int32_t bs = 16, blocks = 32;
    std::vector<int32_t> table(blocks);
    for (int32_t b = 0; b < blocks; ++b) table[size_t(b)] = (b * 7) % blocks;  // shuffled
    std::mt19937 rng(5);
    auto kc = upload(d, kv, {hd * Hkv, bs * blocks}, nullptr);
    auto vc = upload(d, kv, {hd * Hkv, bs * blocks}, nullptr);
    auto bt = upload(d, DType::I32, {blocks, 1}, table.data());
    std::vector<float> out;
    for (auto [first, n] : steps) {
        std::vector<int32_t> pos(static_cast<size_t>(n));
        std::iota(pos.begin(), pos.end(), static_cast<int32_t>(first));
        const auto kf = random_floats(rng, size_t(hd * Hkv * n));
        const auto vf = random_floats(rng, size_t(hd * Hkv * n));
        const auto qf = random_floats(rng, size_t(hd * H * n), 2.f);
        auto k = upload(d, DType::F32, {hd * Hkv, n}, kf.data());
        auto v = upload(d, DType::F32, {hd * Hkv, n}, vf.data());
        auto q = upload(d, DType::F32, {hd, H, n}, qf.data());
        auto p = upload(d, DType::I32, {n}, pos.data());
        auto y = upload(d, DType::F32, {hd, H, n}, nullptr);
        const KvIndex idx{p.t, bt.t, Tensor{}};
        Graph g;
        g.kv_append(kc.t, k.t, idx, bs, "k");
        g.kv_append(vc.t, v.t, idx, bs, "v");
        g.attention(y.t, q.t, kc.t, vc.t, idx, {bs, 1.f / std::sqrt(float(hd))}, "attn");
        const Status st = s.compute(g);
        EXPECT_TRUE(st.is_ok()) << st.message();
        const auto o = download_f32(y.t);
        out.insert(out.end(), o.begin(), o.end());
    }
    return out;
}

TEST(OpAttentionLong, NewTurnAndDecodeOverLongHistoryEveryKvTypeAndIsa) {
    const cpu::Isa saved = cpu::active_isa();
    // History of 300, a new turn of 41 tokens (three work items of 18 tokens x 7 heads), then
    // two decode steps.
    const auto steps = {std::pair<int64_t, int64_t>{0, 300}, {300, 41}, {341, 1}, {342, 1}};
    for (DType kv : {DType::F32, DType::F16, DType::Q8_0, DType::Q4_0}) {
        auto ref = make_ref_device();
        auto rs = ref->create_stream({1});
        const auto r = run_steps(*ref, **rs, kv, 64, 14, 2, steps);
        for (cpu::Isa isa : {cpu::Isa::Scalar, cpu::Isa::Avx2, cpu::Isa::Avx512}) {
            if (!cpu::force_isa(isa)) continue;
            SCOPED_TRACE(std::string(dtype_name(kv)) + " " + std::string(cpu::isa_name(isa)));
            auto cpu = make_cpu_device();
            auto cs = cpu->create_stream({2});
            const auto c = run_steps(*cpu, **cs, kv, 64, 14, 2, steps);
            ASSERT_EQ(r.size(), c.size());
            EXPECT_LT(max_rel_err(c, r), 1e-5);
        }
    }
    cpu::force_isa(saved);
}

}  // namespace
}  // namespace hearth::backend::test
