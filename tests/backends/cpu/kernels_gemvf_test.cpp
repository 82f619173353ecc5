// The decode kernel of float weights (kernels_x86_gemvf.inc: F32 / F16 / BF16, rows walked four
// at a time) on every ISA path this CPU runs: against float64 dot products for row counts that
// are and are not multiples of the row group, single rows, slices starting anywhere, row
// lengths with vector and block tails, and a 152k-row output; and bit-identical whatever rows
// a call groups together (a row's result must not depend on how the rows were split across
// threads or calls: the per-row reduction order is fixed).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <tuple>

#include "kernels/kernels_internal.h"
#include "kernels_test_util.h"

namespace hearth::cpu {
namespace {

using quant::Type;

using Path = test::IsaPath;

class GemvFloatTest : public ::testing::TestWithParam<std::tuple<Path, Type>> {
protected:
    void SetUp() override {
        saved_ = active_isa();
        saved_vnni_ = detail::allow_avx512vnni(std::get<0>(GetParam()).vnni);
        ASSERT_TRUE(force_isa(std::get<0>(GetParam()).isa));
    }
    void TearDown() override {
        force_isa(saved_);
        detail::allow_avx512vnni(saved_vnni_);
    }
    Type type() const { return std::get<1>(GetParam()); }

    // gemv of rows [r0, r1) checked against float64 over the reference-decoded weights.
    void check(const std::vector<uint8_t>& w, size_t rows, size_t k, size_t r0, size_t r1,
               const std::vector<float>& x) {
        std::vector<float> out(r1 - r0 + 1, 12345.0f);  // guard after the slice
        gemv(type(), w.data(), k, r0, r1, x.data(), out.data());
        const size_t rb = quant::row_bytes(type(), k);
        std::vector<float> wf(k);
        for (size_t r = r0; r < r1; ++r) {
            quant::dequantize_row(type(), &w[r * rb], wf.data(), k);
            const auto ref = test::ref_dot(wf.data(), x.data(), k);
            ASSERT_NEAR(out[r - r0], ref.value, 2e-6 * std::sqrt(double(k)) * ref.abs_sum + 1e-30)
                << "k=" << k << " rows=" << rows << " row=" << r << " slice=[" << r0 << "," << r1
                << ")";
        }
        EXPECT_EQ(out[r1 - r0], 12345.0f) << "gemv wrote past its slice";
    }

private:
    Isa saved_ = Isa::Scalar;
    bool saved_vnni_ = true;
};

TEST_P(GemvFloatTest, RowCountsAndSlicesAgainstReference) {
    std::mt19937 rng(4242 + static_cast<unsigned>(type()));
    // k: below one vector, one vector plus a tail, not a whole 4-vector step, whole steps,
    // the 1.1B model's widths.
    for (size_t k : {size_t{5}, size_t{17}, size_t{40}, size_t{128}, size_t{200}, size_t{2048},
                     size_t{5632}}) {
        for (size_t rows : {size_t{1}, size_t{2}, size_t{3}, size_t{4}, size_t{5}, size_t{7},
                            size_t{9}, size_t{13}}) {
            const auto w = test::random_weights(type(), rows, k, rng);
            const auto x = test::random_activation(k, rng);
            check(w, rows, k, 0, rows, x);
            if (rows > 2) check(w, rows, k, 1, rows - 1, x);  // starts off the row group
            check(w, rows, k, rows - 1, rows, x);             // one row
        }
    }
}

// An output projection of a 152k vocabulary: every row right, nothing written past the end.
TEST_P(GemvFloatTest, OutputOf152kRows) {
    std::mt19937 rng(7 + static_cast<unsigned>(type()));
    const size_t rows = 152064 + 3, k = 72;  // not a multiple of the 4-row group
    const auto w = test::random_weights(type(), rows, k, rng);
    const auto x = test::random_activation(k, rng);
    check(w, rows, k, 0, rows, x);
}

// A row's value is bit-identical however the rows are grouped: one call for all rows, one
// call per row, and calls split at every offset 0..4 (rows walked 4 at a time, 1 at a time,
// and mixed).
TEST_P(GemvFloatTest, RowResultDoesNotDependOnTheSplit) {
    std::mt19937 rng(99 + static_cast<unsigned>(type()));
    for (size_t k : {size_t{33}, size_t{2048}, size_t{2080}}) {
        const size_t rows = 23;
        const auto w = test::random_weights(type(), rows, k, rng);
        const auto x = test::random_activation(k, rng);
        std::vector<float> all(rows);
        gemv(type(), w.data(), k, 0, rows, x.data(), all.data());
        for (size_t r = 0; r < rows; ++r) {
            float one = 0.0f;
            gemv(type(), w.data(), k, r, r + 1, x.data(), &one);
            ASSERT_EQ(std::memcmp(&one, &all[r], sizeof(float)), 0)
                << "k=" << k << " row=" << r << ": " << one << " vs " << all[r];
        }
        for (size_t split = 1; split <= 4; ++split) {
            std::vector<float> parts(rows);
            gemv(type(), w.data(), k, 0, split, x.data(), parts.data());
            gemv(type(), w.data(), k, split, rows, x.data(), parts.data() + split);
            ASSERT_EQ(std::memcmp(parts.data(), all.data(), rows * sizeof(float)), 0)
                << "k=" << k << " split=" << split;
        }
    }
}

std::vector<std::tuple<Path, Type>> cases() {
    std::vector<std::tuple<Path, Type>> out;
    for (const Path& p : test::isa_paths())
        for (Type t : {Type::F32, Type::F16, Type::BF16}) out.emplace_back(p, t);
    return out;
}

INSTANTIATE_TEST_SUITE_P(AllIsas, GemvFloatTest, ::testing::ValuesIn(cases()),
                         [](const auto& info) {
                             return test::isa_path_name(std::get<0>(info.param)) + "_" +
                                    std::string(quant::traits(std::get<1>(info.param)).name);
                         });

}  // namespace
}  // namespace hearth::cpu
