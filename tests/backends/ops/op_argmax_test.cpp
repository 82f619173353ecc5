// ArgMax (greedy sampling on the device) on every device the registry finds: exact indices
// against hand-made columns (ties, NaN, -inf, +inf, signed zeros) and against the reference on
// random columns as wide as a 152k vocabulary, several columns at once.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "op_test_util.h"

namespace hearth::backend::test {
namespace {

class OpArgMax : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Devices, OpArgMax, ::testing::ValuesIn(registry_devices()),
                         [](const auto& info) { return info.param; });

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// Runs ArgMax over columns of width n (column-major in `cols`) on a device; the indices come
// back as floats (exact below 2^24) for run_both.
Case argmax_case(const std::vector<float>& cols, int64_t n) {
    return [cols, n](Device& d, Stream& s) {
        const int64_t T = static_cast<int64_t>(cols.size()) / n;
        auto a = upload(d, DType::F32, {n, T}, cols.data());
        auto y = upload(d, DType::I32, {1, T}, nullptr);
        Graph g;
        g.argmax(y.t, a.t, "argmax");
        const Status st = s.compute(g);
        EXPECT_TRUE(st.is_ok()) << st.message();
        std::vector<int32_t> idx(static_cast<size_t>(T), -1);
        (void)y.buffer->read(0, std::as_writable_bytes(std::span(idx)));
        return std::vector<float>(idx.begin(), idx.end());
    };
}

TEST_P(OpArgMax, HandMadeColumnsGiveTheDefinedIndex) {
    struct Col {
        std::vector<float> v;
        float want;
    };
    const std::vector<Col> cols = {
        {{1.f, 3.f, 3.f, 2.f}, 1},             // a tie: the lowest index
        {{kNan, 1.f, 2.f, kNan}, 2},           // NaN is below every number
        {{kNan, kNan, kNan, kNan}, 0},         // only NaN: the first
        {{-kInf, kNan, -kInf, kNan}, 0},       // -inf beats NaN
        {{kNan, -kInf, kNan, -kInf}, 1},       //
        {{-0.f, 0.f, -1.f, -2.f}, 0},          // signed zeros are equal
        {{0.f, -0.f, -1.f, -2.f}, 0},          //
        {{kInf, kNan, kInf, 5.f}, 0},          // +inf
        {{-5.f, -4.f, -3.f, -2.f}, 3},         // the last element
        {{-1e30f, -1e30f, -1e30f, -1e30f}, 0}  // all equal
    };
    std::vector<float> flat;
    std::vector<float> want;
    for (const Col& c : cols) {
        flat.insert(flat.end(), c.v.begin(), c.v.end());
        want.push_back(c.want);
    }
    const auto r = run_both(GetParam(), argmax_case(flat, 4), 2);
    EXPECT_EQ(r.ref, want);
    EXPECT_EQ(r.dev, want);
}

TEST_P(OpArgMax, OneElementColumns) {
    const auto r = run_both(GetParam(), argmax_case({kNan, -kInf, 7.f}, 1), 2);
    EXPECT_EQ(r.ref, (std::vector<float>{0, 0, 0}));
    EXPECT_EQ(r.dev, r.ref);
}

// Random logits as wide as Qwen's vocabulary (151936 rows) and odd widths, several columns:
// column 0 has its maximum twice (the first counts), column 1 NaN sprinkled through it,
// column 2 its maximum in the last element.
TEST_P(OpArgMax, WideColumnsEqualTheReference) {
    for (int64_t n : {151936, 4099, 37, 256, 257}) {
        SCOPED_TRACE("width " + std::to_string(n));
        const int64_t T = 5;
        std::mt19937 rng(static_cast<unsigned>(n));
        auto v = random_floats(rng, static_cast<size_t>(n * T), 3.f);
        auto at = [&](int64_t t, int64_t i) -> float& { return v[static_cast<size_t>(t * n + i)]; };
        at(0, n / 3) = 50.f;
        at(0, n - 1) = 50.f;
        for (int64_t i = 0; i < n; i += 7) at(1, i) = kNan;
        at(2, n - 1) = 60.f;
        at(3, 0) = kNan;  // NaN where a scan starts
        const auto r = run_both(GetParam(), argmax_case(v, n), 2);
        ASSERT_EQ(r.ref.size(), static_cast<size_t>(T));
        EXPECT_EQ(r.ref[0], float(n / 3));
        EXPECT_EQ(r.ref[2], float(n - 1));
        EXPECT_EQ(r.dev, r.ref);
        // The reference against a plain scan.
        for (int64_t t = 0; t < T; ++t) {
            int64_t best = -1;
            for (int64_t i = 0; i < n; ++i)
                if (!std::isnan(at(t, i)) && (best < 0 || at(t, i) > at(t, best))) best = i;
            EXPECT_EQ(r.ref[static_cast<size_t>(t)], float(best < 0 ? 0 : best));
        }
    }
}

TEST(OpArgMaxShapes, BadShapesAreRefused) {
    auto dev = make_ref_device();
    std::vector<float> f(8, 0.f);
    auto a = upload(*dev, DType::F32, {4, 2}, f.data());
    auto y_f32 = upload(*dev, DType::F32, {1, 2}, nullptr);
    auto y_short = upload(*dev, DType::I32, {1, 1}, nullptr);
    auto y_wide = upload(*dev, DType::I32, {2, 2}, nullptr);
    for (const Tensor* y : {&y_f32.t, &y_short.t, &y_wide.t}) {
        Graph g;
        g.argmax(*y, a.t, "argmax");
        EXPECT_FALSE(validate_graph(g).is_ok());
    }
    auto y = upload(*dev, DType::I32, {1, 2}, nullptr);
    Graph ok;
    ok.argmax(y.t, a.t, "argmax");
    EXPECT_TRUE(validate_graph(ok).is_ok());
}

}  // namespace
}  // namespace hearth::backend::test
