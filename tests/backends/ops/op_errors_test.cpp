// Malformed graphs and bad index values fail with a Status on every device the registry finds
// (cpu, ref, and each GPU plugin's devices: vulkan0 on lavapipe here, cuda0 on a GPU machine),
// never crash; index errors found on a device (token ids, expert ids, KV cells) name the value,
// and the stream stays usable after one.
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "op_test_util.h"

namespace hearth::backend::test {
namespace {

class OpErrors : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        dev_ = create_device(GetParam());
        ASSERT_TRUE(dev_) << GetParam();
        stream_ = std::move(dev_->create_stream({2}).value());
    }
    std::unique_ptr<Device> dev_;
    std::unique_ptr<Stream> stream_;
};

INSTANTIATE_TEST_SUITE_P(Devices, OpErrors, ::testing::ValuesIn(registry_devices()),
                         [](const auto& info) { return info.param; });

TEST_P(OpErrors, TokenIdOutOfRange) {
    const float table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    auto t = upload(*dev_, DType::F32, {2, 4}, table);
    auto y = upload(*dev_, DType::F32, {2, 2}, nullptr);
    for (int32_t bad : {4, -1, std::numeric_limits<int32_t>::min()}) {
        const int32_t ids[] = {1, bad};
        auto i = upload(*dev_, DType::I32, {2}, ids);
        Graph g;
        g.get_rows(y.t, t.t, i.t, "embd");
        const Status s = stream_->compute(g);
        EXPECT_FALSE(s.is_ok());
        EXPECT_NE(s.message().find("token id " + std::to_string(bad)), std::string::npos)
            << s.message();
    }
    // The stream stays usable after an index error.
    const int32_t good[] = {1, 3};
    auto i2 = upload(*dev_, DType::I32, {2}, good);
    Graph g2;
    g2.get_rows(y.t, t.t, i2.t, "embd");
    ASSERT_TRUE(stream_->compute(g2).is_ok());
    EXPECT_EQ(download_f32(y.t), (std::vector<float>{3, 4, 7, 8}));
}

TEST_P(OpErrors, ExpertIdOutOfRange) {
    const int32_t ids[] = {0, 4};  // only experts 0..3 exist
    auto w = upload(*dev_, DType::F32, {32, 8, 4}, nullptr);
    auto x = upload(*dev_, DType::F32, {32, 1, 1}, nullptr);
    auto id = upload(*dev_, DType::I32, {2, 1}, ids);
    auto y = upload(*dev_, DType::F32, {8, 2, 1}, nullptr);
    Graph g;
    g.moe_mat_mul(y.t, w.t, x.t, id.t, "moe");
    const Status st = stream_->compute(g);
    EXPECT_FALSE(st.is_ok());
    EXPECT_NE(st.message().find("expert id 4"), std::string::npos) << st.message();
    const int32_t negative[] = {-1, 0};
    auto id2 = upload(*dev_, DType::I32, {2, 1}, negative);
    Graph g2;
    g2.moe_mat_mul(y.t, w.t, x.t, id2.t, "moe");
    const Status st2 = stream_->compute(g2);
    EXPECT_FALSE(st2.is_ok());
    EXPECT_NE(st2.message().find("expert id -1"), std::string::npos) << st2.message();
    // A prefill-sized batch (grouped by expert on Vulkan) with one bad id among good ones.
    std::vector<int32_t> many(2 * 12);
    for (size_t i = 0; i < many.size(); ++i) many[i] = int32_t(i % 4);
    many[17] = 7;
    auto id3 = upload(*dev_, DType::I32, {2, 12}, many.data());
    auto x3 = upload(*dev_, DType::F32, {32, 1, 12}, nullptr);
    auto y3 = upload(*dev_, DType::F32, {8, 2, 12}, nullptr);
    Graph g3;
    g3.moe_mat_mul(y3.t, w.t, x3.t, id3.t, "moe");
    const Status st3 = stream_->compute(g3);
    EXPECT_FALSE(st3.is_ok());
    EXPECT_NE(st3.message().find("expert id 7"), std::string::npos) << st3.message();
    // A shape that does not match is refused before running.
    auto narrow = upload(*dev_, DType::F32, {16, 1, 1}, nullptr);
    Graph bad;
    bad.moe_mat_mul(y.t, w.t, narrow.t, id.t, "moe");
    EXPECT_FALSE(stream_->compute(bad).is_ok());
}

TEST_P(OpErrors, ShapeMismatch) {
    auto w = upload(*dev_, DType::F32, {4, 3}, nullptr);
    auto x = upload(*dev_, DType::F32, {5, 1}, nullptr);
    auto y = upload(*dev_, DType::F32, {3, 1}, nullptr);
    Graph g;
    g.mat_mul(y.t, w.t, x.t, "mm");
    EXPECT_FALSE(stream_->compute(g).is_ok());
}

TEST_P(OpErrors, TensorOutsideBuffer) {
    auto w = upload(*dev_, DType::F32, {4, 3}, nullptr);
    auto x = upload(*dev_, DType::F32, {4, 1}, nullptr);
    auto y = upload(*dev_, DType::F32, {3, 1}, nullptr);
    Tensor big = w.t;
    big.ne[1] = 1000;  // claims more rows than its buffer holds
    Graph g;
    g.mat_mul(y.t, big, x.t, "mm");
    y.t.ne[0] = 1000;
    EXPECT_FALSE(stream_->compute(g).is_ok());
}

TEST_P(OpErrors, WriteToReadOnlyWeights) {
    const float data[4] = {1, 2, 3, 4};
    auto ro = dev_->import_host(std::as_bytes(std::span(data)));
    ASSERT_TRUE(ro.is_ok());
    Tensor t = Tensor::dense(ro->get(), 0, DType::F32, {4});
    Graph g;
    g.add(t, t, t, "add");
    EXPECT_FALSE(stream_->compute(g).is_ok());
    EXPECT_FALSE((*ro)->write(0, std::as_bytes(std::span(data))).is_ok());
}

TEST_P(OpErrors, KvPositionsOutsideCache) {
    auto kc = upload(*dev_, DType::F16, {8, 16}, nullptr);
    auto a = upload(*dev_, DType::F32, {8, 1}, nullptr);
    const int32_t pos[] = {16};
    const int32_t table[] = {0, 1, 2, 3};
    auto p = upload(*dev_, DType::I32, {1}, pos);
    auto bt = upload(*dev_, DType::I32, {4, 1}, table);
    Graph g;
    g.kv_append(kc.t, a.t, {p.t, bt.t, Tensor{}}, 4, "k");  // block 4 of 4 cells: beyond
    EXPECT_FALSE(stream_->compute(g).is_ok());
    const int32_t bad_table[] = {0, 9, 2, 3};  // entry 9 * 4 cells > 16
    auto bt2 = upload(*dev_, DType::I32, {4, 1}, bad_table);
    const int32_t pos2[] = {5};
    auto p2 = upload(*dev_, DType::I32, {1}, pos2);
    Graph g2;
    g2.kv_append(kc.t, a.t, {p2.t, bt2.t, Tensor{}}, 4, "k");
    EXPECT_FALSE(stream_->compute(g2).is_ok());
}

// A decode step whose block table points outside the cache fails, and the next step on the same
// stream is right: on a GPU the step's cells are split into chunks whose last one to finish
// merges them, counted per (head, token), so a failed step must leave the counts as it found
// them (256 cells: 7 chunks of 32 for position 200).
TEST_P(OpErrors, AttentionOverABadBlockFailsAndTheNextStepIsRight) {
    const int64_t hd = 64, H = 4, Hkv = 2, cells = 256, bs = 16;
    std::mt19937 rng(11);
    const auto kf = random_floats(rng, size_t(hd * Hkv * cells));
    const auto vf = random_floats(rng, size_t(hd * Hkv * cells));
    const auto qf = random_floats(rng, size_t(hd * H));
    const int32_t pos[] = {200};
    std::vector<int32_t> table(cells / bs), bad(cells / bs);
    for (size_t i = 0; i < table.size(); ++i) table[i] = bad[i] = int32_t(i);
    bad[5] = 99;  // cells 80..95 of the sequence: block 99 of 16
    const KvParams kvp{int32_t(bs), 0.125f, 0.f, 0};
    auto attend = [&](Device& d, Stream& s, const std::vector<int32_t>& tab,
                      std::vector<float>* out) {
        auto kc = upload(d, DType::F32, {hd * Hkv, cells}, kf.data());
        auto vc = upload(d, DType::F32, {hd * Hkv, cells}, vf.data());
        auto q = upload(d, DType::F32, {hd, H, 1}, qf.data());
        auto p = upload(d, DType::I32, {1}, pos);
        auto t = upload(d, DType::I32, {int64_t(tab.size()), 1}, tab.data());
        auto y = upload(d, DType::F32, {hd, H, 1}, nullptr);
        Graph g;
        g.attention(y.t, q.t, kc.t, vc.t, {p.t, t.t, Tensor{}}, kvp, "attention");
        const Status st = s.compute(g);
        if (out && st.is_ok()) *out = download_f32(y.t);
        return st;
    };
    const Status st = attend(*dev_, *stream_, bad, nullptr);
    EXPECT_FALSE(st.is_ok());
    EXPECT_NE(st.message().find("outside the cache"), std::string::npos) << st.message();
    auto ref = create_device("ref");
    ASSERT_TRUE(ref);
    auto ref_stream = std::move(ref->create_stream({1}).value());
    std::vector<float> want, got;
    ASSERT_TRUE(attend(*ref, *ref_stream, table, &want).is_ok());
    for (int i = 0; i < 2; ++i) {
        ASSERT_TRUE(attend(*dev_, *stream_, table, &got).is_ok()) << "step " << i;
        EXPECT_LT(max_rel(got, want), 1e-5) << "step " << i << ": " << worst_at(got, want);
    }
}

// A position past what the block table covers, or a negative one, fails in attention and in
// KvAppend.
TEST_P(OpErrors, PositionsOutsideTheTableFail) {
    const int64_t hd = 32, cells = 64, bs = 16;
    auto kc = upload(*dev_, DType::F32, {hd, cells}, nullptr);
    auto vc = upload(*dev_, DType::F32, {hd, cells}, nullptr);
    auto q = upload(*dev_, DType::F32, {hd, 2, 1}, nullptr);
    auto y = upload(*dev_, DType::F32, {hd, 2, 1}, nullptr);
    auto a = upload(*dev_, DType::F32, {hd, 1}, nullptr);
    const int32_t table[] = {0, 1, 2, 3};
    auto t = upload(*dev_, DType::I32, {4, 1}, table);
    for (int32_t bad_pos : {64, 300, -5}) {
        const int32_t pos[] = {bad_pos};
        auto p = upload(*dev_, DType::I32, {1}, pos);
        Graph g;
        g.attention(y.t, q.t, kc.t, vc.t, {p.t, t.t, Tensor{}},
                    KvParams{int32_t(bs), 0.25f, 0.f, 0}, "attention");
        EXPECT_FALSE(stream_->compute(g).is_ok()) << "attention at " << bad_pos;
        Graph g2;
        g2.kv_append(kc.t, a.t, {p.t, t.t, Tensor{}}, int32_t(bs), "k");
        EXPECT_FALSE(stream_->compute(g2).is_ok()) << "append at " << bad_pos;
    }
}

// A token's sequence id outside the block table's columns fails, in attention and in KvAppend.
TEST_P(OpErrors, ASequenceOutsideTheTableFails) {
    const int64_t hd = 32, H = 2, cells = 64, bs = 16;
    auto kc = upload(*dev_, DType::F32, {hd, cells}, nullptr);
    auto vc = upload(*dev_, DType::F32, {hd, cells}, nullptr);
    auto q = upload(*dev_, DType::F32, {hd, H, 2}, nullptr);
    auto y = upload(*dev_, DType::F32, {hd, H, 2}, nullptr);
    const int32_t pos[] = {3, 40};
    const int32_t table[] = {0, 1, 2, 3, 3, 2, 1, 0};  // two sequences of 4 blocks
    auto p = upload(*dev_, DType::I32, {2}, pos);
    auto t = upload(*dev_, DType::I32, {4, 2}, table);
    for (int32_t bad_seq : {2, 1000, -1}) {
        const int32_t seqs[] = {1, bad_seq};
        auto sq = upload(*dev_, DType::I32, {2}, seqs);
        Graph g;
        g.attention(y.t, q.t, kc.t, vc.t, {p.t, t.t, sq.t}, KvParams{int32_t(bs), 0.25f, 0.f, 0},
                    "attention");
        const Status st = stream_->compute(g);
        EXPECT_FALSE(st.is_ok()) << "sequence " << bad_seq;
        EXPECT_NE(st.message().find("sequence"), std::string::npos) << st.message();
        auto a = upload(*dev_, DType::F32, {hd, 2}, nullptr);
        Graph g2;
        g2.kv_append(kc.t, a.t, {p.t, t.t, sq.t}, int32_t(bs), "k");
        const Status st2 = stream_->compute(g2);
        EXPECT_FALSE(st2.is_ok()) << "append of sequence " << bad_seq;
        EXPECT_NE(st2.message().find("sequence"), std::string::npos) << st2.message();
    }
}

}  // namespace
}  // namespace hearth::backend::test
