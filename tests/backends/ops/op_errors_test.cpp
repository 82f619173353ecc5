// Malformed graphs and bad index values fail with a Status on every backend, never crash.
#include <gtest/gtest.h>

#include "cpu/cpu_device.h"
#include "op_test_util.h"
#include "ref/ref_device.h"

namespace hearth::backend::test {
namespace {

class OpErrors : public ::testing::TestWithParam<bool> {
protected:
    void SetUp() override {
        dev_ = GetParam() ? make_cpu_device() : make_ref_device();
        stream_ = std::move(dev_->create_stream({2}).value());
    }
    std::unique_ptr<Device> dev_;
    std::unique_ptr<Stream> stream_;
};

TEST_P(OpErrors, TokenIdOutOfRange) {
    const float table[8] = {};
    const int32_t ids[] = {1, 4};
    auto t = upload(*dev_, DType::F32, {2, 4}, table);
    auto i = upload(*dev_, DType::I32, {2}, ids);
    auto y = upload(*dev_, DType::F32, {2, 2}, nullptr);
    Graph g;
    g.get_rows(y.t, t.t, i.t, "embd");
    const Status s = stream_->compute(g);
    EXPECT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("token id 4"), std::string::npos) << s.message();
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

INSTANTIATE_TEST_SUITE_P(Backends, OpErrors, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "cpu" : "ref"; });

}  // namespace
}  // namespace hearth::backend::test
