// Decode-shaped attention on every device against the reference ops: one to three tokens over
// a cache long enough that GPU backends split its cells (flash-decoding) and merge the parts,
// for each KV type and the head sizes whose V rows a GPU lane loads whole (64, 128, 256) as
// well as one it does not (48); and the forward pass's order of RoPE (Q, K) then KvAppend (K,
// V) then Attention, which a backend may run as one launch.
#include <gtest/gtest.h>

#include <numeric>

#include "op_test_util.h"

namespace hearth::backend::test {
namespace {

class OpDecodeAttention : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Devices, OpDecodeAttention, ::testing::ValuesIn(registry_devices()),
                         [](const auto& info) { return info.param; });

// A 70-token prefill, then steps of 1, 3 and 1 tokens over 8 shuffled blocks of 16 cells.
TEST_P(OpDecodeAttention, SplitCellsOverLongCacheEveryKvTypeAndHeadSize) {
    for (DType kv : {DType::F32, DType::F16, DType::Q8_0, DType::Q4_0}) {
        for (int64_t hd : {64, 128, 256, 48}) {
            if (kv != DType::F32 && kv != DType::F16 && hd % 32 != 0) continue;
            SCOPED_TRACE(std::string(dtype_name(kv)) + " hd=" + std::to_string(hd));
            const int32_t table[] = {6, 2, 7, 0, 5, 1, 4, 3};
            Case c = [&](Device& d, Stream& s) {
                return attention_steps(d, s, kv, hd, 4, 2, 16, table,
                                       {{0, 70}, {70, 1}, {71, 3}, {74, 1}}, 33);
            };
            const auto r = run_both(GetParam(), c, 2);
            EXPECT_LT(max_rel(r.dev, r.ref), 1e-5) << worst_at(r.dev, r.ref);
        }
    }
}

// RoPE of Q and K in place, K's and V's appends, attention: a prefill of 9 tokens, then one
// token, then two; both RoPE modes, full and partial rotation. The outputs compared are the
// attention's, the rotated K and both caches.
TEST_P(OpDecodeAttention, RopeThenAppendThenAttendAsTheForwardPassOrdersThem) {
    const int64_t hd = 64, H = 4, Hkv = 2;
    const int32_t bs = 8;
    const int32_t table[] = {2, 0, 3, 1};
    for (DType kv : {DType::F32, DType::F16, DType::Q8_0}) {
        for (RopeMode mode : {RopeMode::Adjacent, RopeMode::RotateHalf}) {
            for (int32_t n_rot : {64, 32}) {
                SCOPED_TRACE(std::string(dtype_name(kv)) + " n_rot " + std::to_string(n_rot) +
                             (mode == RopeMode::Adjacent ? " adjacent" : " rotate-half"));
                Case c = [&](Device& d, Stream& s) {
                    std::mt19937 rng(41);
                    auto kc = upload(d, kv, {hd * Hkv, 4 * bs}, nullptr);
                    auto vc = upload(d, kv, {hd * Hkv, 4 * bs}, nullptr);
                    auto bt = upload(d, DType::I32, {4, 1}, table);
                    const RopeParams rp{mode, n_rot, 500000.f, 1.f, 1.f};
                    std::vector<float> out;
                    for (auto [first, n] : {std::pair<int32_t, int64_t>{0, 9}, {9, 1}, {10, 2}}) {
                        std::vector<int32_t> pos(static_cast<size_t>(n));
                        std::iota(pos.begin(), pos.end(), first);
                        const auto kf = random_floats(rng, size_t(hd * Hkv * n));
                        const auto vf = random_floats(rng, size_t(hd * Hkv * n));
                        const auto qf = random_floats(rng, size_t(hd * H * n), 2.f);
                        auto k = upload(d, DType::F32, {hd * Hkv, n}, kf.data());
                        auto v = upload(d, DType::F32, {hd * Hkv, n}, vf.data());
                        auto q = upload(d, DType::F32, {hd, H, n}, qf.data());
                        auto p = upload(d, DType::I32, {n}, pos.data());
                        auto y = upload(d, DType::F32, {hd, H, n}, nullptr);
                        const Tensor k3 = k.t.reshaped({hd, Hkv, n});
                        const KvIndex idx{p.t, bt.t, Tensor{}};
                        Graph g;
                        g.rope(q.t, q.t, p.t, Tensor{}, rp, "rope_q");
                        g.rope(k3, k3, p.t, Tensor{}, rp, "rope_k");
                        g.kv_append(kc.t, k.t, idx, bs, "k_cache");
                        g.kv_append(vc.t, v.t, idx, bs, "v_cache");
                        g.attention(y.t, q.t, kc.t, vc.t, idx, {bs, 1.f / std::sqrt(float(hd))},
                                    "attention");
                        const Status st = s.compute(g);
                        EXPECT_TRUE(st.is_ok()) << st.message();
                        for (const Tensor* t : {&y.t, &k.t}) {
                            const auto o = download_f32(*t);
                            out.insert(out.end(), o.begin(), o.end());
                        }
                    }
                    for (const Tensor* t : {&kc.t, &vc.t}) {
                        const auto o = download_f32(*t);
                        out.insert(out.end(), o.begin(), o.end());
                    }
                    return out;
                };
                const auto r = run_both(GetParam(), c, 2);
                EXPECT_LT(max_rel(r.dev, r.ref), 1e-5) << worst_at(r.dev, r.ref);
            }
        }
    }
}

}  // namespace
}  // namespace hearth::backend::test
