// Batch invariance of the matrix kernels (the rule in kernels.h): on every ISA path this CPU runs
// and for every weight type, the result for (row r, token t) is bit-identical whether t is
// multiplied alone (gemv, or gemm / gemm_packed with one token) or as one of n tokens of a call,
// wherever t falls in the call's tiles and token chunks, and however the rows are split into
// slices (threads). Speculative verification and batched decode rely on it: the logits of a
// token must not depend on how many other tokens share the step. The packed cases include the
// AMX-INT8 path where this CPU has it: it must give the VNNI kernel's bits, in its first token
// chunk and past it (257 tokens).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <tuple>

#include "kernels/kernels_internal.h"
#include "kernels/packed.h"
#include "kernels_test_util.h"

namespace hearth::cpu {
namespace {

using quant::Type;

using Path = test::IsaPath;
constexpr auto path_name = test::isa_path_name;

// Token counts: decode (1), verification and batched decode (2..9, 16, 17), prefill chunks and
// their neighbours (64, 65: one whole 64-token chunk, then a chunk of one; 257: past the AMX
// path's 256-token chunk).
constexpr size_t kCounts[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17, 64, 65, 257};
constexpr size_t kMaxTokens = 257;

// Row length with several 32-block chunks and an odd block count (32-blocks), several
// super-blocks (256), or a float tail (float types).
size_t k_for(Type t) {
    if (quant::traits(t).block_size == 256) return 1280;
    if (!quant::traits(t).is_quantized) return 1029;
    return 2080;
}

std::string hex(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    char buf[16];
    std::snprintf(buf, sizeof buf, "%08x", u);
    return buf;
}

class InvarianceTest : public ::testing::TestWithParam<std::tuple<Path, Type>> {
protected:
    void SetUp() override {
        saved_ = active_isa();
        saved_vnni_ = detail::allow_avx512vnni(std::get<0>(GetParam()).vnni);
        saved_amx_ = detail::allow_amx(std::get<0>(GetParam()).amx);
        ASSERT_TRUE(force_isa(std::get<0>(GetParam()).isa));
        ASSERT_EQ(amx_active(), std::get<0>(GetParam()).amx);
        std::mt19937 rng(4321 + static_cast<unsigned>(type()));
        k_ = k_for(type());
        w_ = test::random_weights(type(), kRows, k_, rng);
        stride_ = activation_row_bytes(type(), k_);
        xq_.assign(kMaxTokens * stride_, 0);
        for (size_t j = 0; j < kMaxTokens; ++j) {
            const auto x = test::random_activation(k_, rng);
            quantize_activation(type(), x.data(), k_, &xq_[j * stride_]);
        }
        // Each token alone: the decode path.
        alone_.assign(kMaxTokens * kRows, 0.0f);
        for (size_t j = 0; j < kMaxTokens; ++j)
            gemv(type(), w_.data(), k_, 0, kRows, &xq_[j * stride_], &alone_[j * kRows]);
    }
    void TearDown() override {
        force_isa(saved_);
        detail::allow_avx512vnni(saved_vnni_);
        detail::allow_amx(saved_amx_);
    }
    Type type() const { return std::get<1>(GetParam()); }

    // y holds n tokens' rows (stride kRows); each must equal the token's alone_ row bit for bit.
    void expect_same(const std::vector<float>& y, size_t n, const std::string& what) const {
        size_t bad = 0;
        for (size_t j = 0; j < n; ++j)
            for (size_t r = 0; r < kRows; ++r) {
                const float a = alone_[j * kRows + r], b = y[j * kRows + r];
                if (std::memcmp(&a, &b, 4) != 0 && ++bad <= 3)
                    ADD_FAILURE() << what << ": n=" << n << " token " << j << " row " << r
                                  << ": alone " << a << " (" << hex(a) << "), in the batch " << b
                                  << " (" << hex(b) << ")";
            }
        EXPECT_EQ(bad, 0u) << what << ", n=" << n;
    }

    static constexpr size_t kRows = 53;  // not a multiple of any row tile or 16-row group
    size_t k_ = 0, stride_ = 0;
    std::vector<uint8_t> w_, xq_;
    std::vector<float> alone_;

private:
    Isa saved_ = Isa::Scalar;
    bool saved_vnni_ = true, saved_amx_ = false;
};

TEST_P(InvarianceTest, GemmOfNTokensEqualsEachTokenAlone) {
    for (size_t n : kCounts) {
        std::vector<float> y(n * kRows, -1.0f);
        gemm(type(), w_.data(), k_, 0, kRows, xq_.data(), stride_, n, y.data(), kRows);
        expect_same(y, n, "gemm");
    }
}

// Rows split as threads split them (any boundary): each slice's rows are the same.
TEST_P(InvarianceTest, RowSlicesGiveTheSameRows) {
    for (size_t n : {size_t{1}, size_t{3}, size_t{8}, size_t{17}}) {
        std::vector<float> y(n * kRows, -1.0f);
        for (auto [r0, r1] :
             {std::pair<size_t, size_t>{0, 1}, {1, 6}, {6, 19}, {19, 20}, {20, 47}, {47, kRows}}) {
            if (n == 1)
                gemv(type(), w_.data(), k_, r0, r1, xq_.data(), y.data() + r0);
            else
                gemm(type(), w_.data(), k_, r0, r1, xq_.data(), stride_, n, y.data(), kRows);
        }
        expect_same(y, n, "row slices");
    }
}

// Packed Q4_0 / Q5_0 / Q8_0 (the AMX path's formats) and Q4_K / Q6_K, every token count, slices
// at group and odd boundaries. A packed matrix is multiplied packed for every token count, so its
// own one-token product is the reference (packed and file-format kernels may round differently
// from each other).
class PackedInvarianceTest : public InvarianceTest {};

TEST_P(PackedInvarianceTest, PackedGemmOfNTokensEqualsEachTokenAlone) {
    ASSERT_TRUE(packable(type(), k_));
    auto pw = make_packed(type(), w_.data(), k_, kRows);
    ASSERT_TRUE(pw);
    pack_groups(*pw, 0, pw->groups());
    for (size_t j = 0; j < kMaxTokens; ++j)
        gemm_packed(*pw, 0, kRows, &xq_[j * stride_], stride_, 1, &alone_[j * kRows], kRows);
    for (size_t n : kCounts) {
        std::vector<float> y(n * kRows, -1.0f);
        gemm_packed(*pw, 0, kRows, xq_.data(), stride_, n, y.data(), kRows);
        expect_same(y, n, "gemm_packed");
        std::vector<float> s(n * kRows, -1.0f);
        for (auto [r0, r1] : {std::pair<size_t, size_t>{0, 16}, {16, 21}, {21, 48}, {48, kRows}})
            gemm_packed(*pw, r0, r1, xq_.data(), stride_, n, s.data(), kRows);
        expect_same(s, n, "gemm_packed row slices");
    }
}

std::vector<std::tuple<Path, Type>> all_cases(const std::vector<Type>& types,
                                              bool with_amx = false) {
    std::vector<std::tuple<Path, Type>> out;
    for (const Path& p : test::isa_paths(with_amx))
        for (Type t : types) out.emplace_back(p, t);
    return out;
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<Path, Type>>& info) {
    return path_name(std::get<0>(info.param)) + "_" +
           std::string(quant::traits(std::get<1>(info.param)).name);
}

INSTANTIATE_TEST_SUITE_P(AllIsasAllTypes, InvarianceTest,
                         ::testing::ValuesIn(all_cases(test::weight_types())), case_name);
INSTANTIATE_TEST_SUITE_P(AllIsas, PackedInvarianceTest,
                         ::testing::ValuesIn(all_cases(
                             {Type::Q4_0, Type::Q5_0, Type::Q8_0, Type::Q4_K, Type::Q6_K}, true)),
                         case_name);

}  // namespace
}  // namespace hearth::cpu
