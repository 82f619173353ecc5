// Packed Q4_0 / Q8_0 weights (kernels/packed.h) on every ISA path this CPU runs: gemm_packed
// against float64 dot products of the reference-dequantized weights, against the unpacked
// kernel of the same path, on row counts that are not a multiple of the 16-row group, single
// rows, row slices that start and end inside a group, 1..9 tokens and more than one token
// chunk, and a 152k-row output.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>

#include "kernels/kernels_internal.h"
#include "kernels/packed.h"
#include "kernels_test_util.h"

namespace hearth::cpu {
namespace {

using quant::Type;
using test::random_activation;
using test::random_weights;
using test::ref_dot;

// An ISA; for AVX-512 also whether its VNNI variant and the AMX-INT8 prefill may run. The AMX
// path is listed only where the CPU and OS run it (AMX_Absent says so where not).
struct Path {
    Isa isa;
    bool vnni;
    bool amx;
};

bool amx_here() {
    const bool had = detail::allow_amx(true);
    const bool has = detail::cpu_has_amx();
    detail::allow_amx(had);
    return has;
}

std::vector<Path> paths() {
    std::vector<Path> out;
    for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Neon})
        if (isa_supported(isa)) out.push_back({isa, false, false});
    if (isa_supported(Isa::Avx512)) {
        const bool had = detail::allow_avx512vnni(true);
        if (detail::cpu_has_avx512vnni()) {
            out.push_back({Isa::Avx512, true, false});
            if (amx_here()) out.push_back({Isa::Avx512, true, true});
        }
        detail::allow_avx512vnni(had);
    }
    return out;
}

std::string path_name(const Path& p) {
    return std::string(isa_name(p.isa)) + (p.vnni ? "vnni" : "") + (p.amx ? "amx" : "");
}

double tolerance(const test::RefDot& r, size_t k) {
    return 2e-6 * std::sqrt(static_cast<double>(k)) * r.abs_sum + 1e-30;
}

std::unique_ptr<PackedWeight> pack_all(Type t, const std::vector<uint8_t>& w, size_t k,
                                       size_t rows) {
    auto pw = make_packed(t, w.data(), k, rows);
    if (pw) pack_groups(*pw, 0, pw->groups());
    return pw;
}

class PackedTest : public ::testing::TestWithParam<std::tuple<Path, Type>> {
protected:
    void SetUp() override {
        saved_ = active_isa();
        saved_vnni_ = detail::allow_avx512vnni(std::get<0>(GetParam()).vnni);
        saved_amx_ = detail::allow_amx(std::get<0>(GetParam()).amx);
        ASSERT_TRUE(force_isa(std::get<0>(GetParam()).isa));
        ASSERT_EQ(amx_active(), std::get<0>(GetParam()).amx);
    }
    void TearDown() override {
        force_isa(saved_);
        detail::allow_avx512vnni(saved_vnni_);
        detail::allow_amx(saved_amx_);
    }
    Type type() const { return std::get<1>(GetParam()); }

    std::vector<float> ref_weights(const std::vector<uint8_t>& w, size_t rows, size_t k) const {
        std::vector<float> f(rows * k);
        const size_t rb = quant::row_bytes(type(), k);
        for (size_t r = 0; r < rows; ++r) quant::dequantize_row(type(), &w[r * rb], &f[r * k], k);
        return f;
    }
    void prepare(size_t k, size_t n, std::mt19937& rng, std::vector<uint8_t>& xq, size_t& stride,
                 std::vector<float>& xv) const {
        stride = activation_row_bytes(type(), k);
        xq.assign(n * stride, 0);
        xv.assign(n * k, 0.0f);
        for (size_t j = 0; j < n; ++j) {
            const auto x = random_activation(k, rng);
            quantize_activation(type(), x.data(), k, &xq[j * stride]);
            dequantize_activation(type(), &xq[j * stride], k, &xv[j * k]);
        }
    }
    // gemm_packed over rows [r0, r1) of a rows x k weight with n tokens, against the reference
    // and against the unpacked gemm of this path; rows outside the slice stay untouched.
    void check(size_t rows, size_t k, size_t n, size_t r0, size_t r1, std::mt19937& rng) const {
        SCOPED_TRACE("rows=" + std::to_string(rows) + " k=" + std::to_string(k) +
                     " n=" + std::to_string(n) + " slice=[" + std::to_string(r0) + "," +
                     std::to_string(r1) + ")");
        const auto w = random_weights(type(), rows, k, rng);
        const auto wf = ref_weights(w, rows, k);
        std::vector<uint8_t> xq;
        std::vector<float> xv;
        size_t stride = 0;
        prepare(k, n, rng, xq, stride, xv);
        auto pw = pack_all(type(), w, k, rows);
        ASSERT_TRUE(pw);
        const size_t ys = rows + 5;
        std::vector<float> y(n * ys, 12345.0f), plain(n * ys, 12345.0f);
        gemm_packed(*pw, r0, r1, xq.data(), stride, n, y.data(), ys);
        gemm(type(), w.data(), k, r0, r1, xq.data(), stride, n, plain.data(), ys);
        size_t bad = 0;
        for (size_t j = 0; j < n; ++j)
            for (size_t r = 0; r < ys; ++r) {
                const float got = y[j * ys + r];
                if (r < r0 || r >= r1) {
                    EXPECT_EQ(got, 12345.0f)
                        << "wrote outside the slice: token " << j << " row " << r;
                    continue;
                }
                const auto ref = ref_dot(&wf[r * k], &xv[j * k], k);
                const double tol = tolerance(ref, k);
                if (std::fabs(got - ref.value) > tol ||
                    std::fabs(got - plain[j * ys + r]) > 2 * tol) {
                    if (++bad <= 5)
                        ADD_FAILURE() << "token " << j << " row " << r << ": packed " << got
                                      << ", unpacked " << plain[j * ys + r] << ", reference "
                                      << ref.value << " (tolerance " << tol << ")";
                }
            }
        EXPECT_EQ(bad, 0u);
    }

private:
    Isa saved_ = Isa::Scalar;
    bool saved_vnni_ = true;
    bool saved_amx_ = true;
};

TEST_P(PackedTest, OneToNineTokensOnOddShapes) {
    std::mt19937 rng(31 + static_cast<unsigned>(type()));
    const size_t ks[] = {32, 96, 288, 2080};
    const size_t rows_list[] = {1, 5, 16, 17, 37, 67};
    size_t i = 0;
    for (size_t n = 1; n <= 9; ++n)
        for (size_t rows : rows_list) {
            const size_t k = ks[i++ % 4];
            check(rows, k, n, 0, rows, rng);
        }
}

TEST_P(PackedTest, RowSlicesInsideGroups) {
    std::mt19937 rng(77);
    const size_t rows = 83, k = 288;
    for (size_t n : {1, 3, 8})
        for (auto [r0, r1] :
             {std::pair<size_t, size_t>{5, 6}, {3, 20}, {17, 83}, {16, 32}, {9, 71}, {0, 83}})
            check(rows, k, n, r0, r1, rng);
}

// 16-token multiples and their neighbours: whole AMX tiles, and tiles plus a VNNI tail.
TEST_P(PackedTest, TileSizedTokenCounts) {
    std::mt19937 rng(21);
    for (size_t n : {15, 16, 17, 32, 33, 48, 64, 80}) check(37, n % 2 ? 96 : 2080, n, 0, 37, rng);
}

TEST_P(PackedTest, ManyTokensCrossChunks) {
    std::mt19937 rng(5);
    check(40, 96, 70, 0, 40, rng);  // more than one 64-token chunk, a 6-token tail
    check(19, 2080, 131, 2, 19, rng);
}

TEST_P(PackedTest, VocabularySizedOutput) {
    std::mt19937 rng(8);
    const size_t rows = 152064 + 7;  // not a multiple of 16
    check(rows, 32, 1, 0, rows, rng);
    check(rows, 32, 3, 100003, rows, rng);
}

std::vector<std::tuple<Path, Type>> all_cases() {
    std::vector<std::tuple<Path, Type>> out;
    for (const Path& p : paths())
        for (Type t : {Type::Q4_0, Type::Q8_0}) out.emplace_back(p, t);
    return out;
}

INSTANTIATE_TEST_SUITE_P(AllIsas, PackedTest, ::testing::ValuesIn(all_cases()),
                         [](const auto& info) {
                             return path_name(std::get<0>(info.param)) + "_" +
                                    std::string(quant::traits(std::get<1>(info.param)).name);
                         });

TEST(Packed, AmxPresenceIsReported) {
    if (!amx_here()) {
        std::printf("[ info ] AMX-INT8 absent or not granted here: the AMX cases are skipped\n");
        GTEST_SKIP() << "AMX-INT8 absent or not granted by the OS";
    }
    const Isa saved = active_isa();
    const bool had = detail::allow_amx(true);
    ASSERT_TRUE(force_isa(Isa::Avx512));
    EXPECT_TRUE(amx_active());
    detail::allow_amx(false);
    EXPECT_FALSE(amx_active()) << "turning AMX off must leave the VNNI kernels";
    ASSERT_TRUE(force_isa(Isa::Avx2));
    detail::allow_amx(true);
    EXPECT_FALSE(amx_active()) << "AMX runs only on the AVX-512 path";
    force_isa(saved);
    detail::allow_amx(had);
}

TEST(Packed, OnlyQ4_0AndQ8_0WithWholeBlocks) {
    EXPECT_TRUE(packable(Type::Q4_0, 64));
    EXPECT_TRUE(packable(Type::Q8_0, 32));
    EXPECT_FALSE(packable(Type::Q4_0, 48));
    EXPECT_FALSE(packable(Type::Q4_K, 256));
    EXPECT_FALSE(packable(Type::F16, 64));
    std::vector<uint8_t> w(18 * 4);
    EXPECT_FALSE(make_packed(Type::Q4_K, w.data(), 256, 1));
    EXPECT_FALSE(make_packed(Type::Q4_0, w.data(), 64, 0));
    EXPECT_FALSE(make_packed(Type::Q4_0, nullptr, 64, 2));
}

// The packed bytes are the file's bytes moved: every scale and code piece of every row lands
// where the layout of packed.h says, padding rows are zero.
TEST(Packed, LayoutMovesTheFileBytes) {
    std::mt19937 rng(3);
    for (Type t : {Type::Q4_0, Type::Q8_0}) {
        const size_t k = 96, rows = 19, fb = t == Type::Q4_0 ? 18 : 34, nb = k / 32;
        const auto w = random_weights(t, rows, k, rng);
        auto pw = pack_all(t, w, k, rows);
        ASSERT_TRUE(pw);
        EXPECT_EQ(pw->groups(), 2u);
        EXPECT_EQ(pw->bytes, 2 * nb * 16 * fb);
        for (size_t g = 0; g < 2; ++g)
            for (size_t b = 0; b < nb; ++b) {
                const uint8_t* blk = pw->packed + (g * nb + b) * pw->block_bytes;
                for (size_t r = 0; r < 16; ++r) {
                    const size_t row = g * 16 + r;
                    for (size_t i = 0; i < fb; ++i) {
                        const size_t at =
                            i < 2 ? 2 * r + i : 32 + (i - 2) / 4 * 64 + 4 * r + (i - 2) % 4;
                        const uint8_t want = row < rows ? w[row * nb * fb + b * fb + i] : 0;
                        ASSERT_EQ(blk[at], want)
                            << "row " << row << " block " << b << " byte " << i;
                    }
                }
            }
    }
}

}  // namespace
}  // namespace hearth::cpu
