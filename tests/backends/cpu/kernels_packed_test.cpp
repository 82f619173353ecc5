// Packed Q4_0 / Q5_0 / Q8_0 / Q4_K / Q6_K / F16 / BF16 weights (kernels/packed.h, packed_k.h) on
// every ISA path this CPU runs: gemm_packed against float64 dot products of the
// reference-dequantized weights, against the unpacked kernel of the same path, on row counts that
// are not a multiple of the 16-row group, single rows, row slices that start and end inside a
// group, odd block counts, 1..9 tokens and more than one token chunk, and a 152k-row output. The
// K-quant and 16-bit float kernels also give every token bit-identical results whatever the number
// of tokens in the call, and F16 / BF16 the unpacked kernel's bits (they pack only for the AVX-512
// kernels).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/kernels_internal.h"
#include "kernels/packed.h"
#include "kernels_test_util.h"
#include "quant/quant_type.h"

namespace hearth::cpu {
namespace {

using quant::Type;
using test::random_activation;
using test::random_weights;
using test::ref_dot;

// The AMX path is listed only where the CPU and OS run it (AMX_Absent says so where not).
using Path = test::IsaPath;
constexpr auto paths = [] { return test::isa_paths(true); };
constexpr auto path_name = test::isa_path_name;

bool amx_here() {
    const bool had = detail::allow_amx(true);
    const bool has = detail::cpu_has_amx();
    detail::allow_amx(had);
    return has;
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
        if (two_byte() && std::get<0>(GetParam()).isa != Isa::Avx512) {
            EXPECT_FALSE(packable(type(), 64));
            GTEST_SKIP() << "F16 / BF16 pack only for the AVX-512 kernels";
        }
    }
    void TearDown() override {
        force_isa(saved_);
        detail::allow_avx512vnni(saved_vnni_);
        detail::allow_amx(saved_amx_);
    }
    Type type() const { return std::get<1>(GetParam()); }
    bool two_byte() const { return type() == Type::F16 || type() == Type::BF16; }
    // Row lengths are written for 32-element blocks; K-quants get as many 256-element blocks.
    // (2080, 65 blocks, becomes 2816, 11 super-blocks, to keep the reference fast).
    size_t kk(size_t k) const {
        if (quant::traits(type()).block_size != 256) return k;
        return k == 2080 ? 2816 : k * 8;
    }

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
                if (two_byte() && got != plain[j * ys + r] && ++bad <= 5)
                    ADD_FAILURE() << "token " << j << " row " << r << ": packed " << got
                                  << " is not the unpacked kernel's " << plain[j * ys + r];
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
            const size_t k = kk(ks[i++ % 4]);
            check(rows, k, n, 0, rows, rng);
        }
}

TEST_P(PackedTest, RowSlicesInsideGroups) {
    std::mt19937 rng(77);
    const size_t rows = 83, k = kk(288);
    for (size_t n : {1, 3, 8})
        for (auto [r0, r1] :
             {std::pair<size_t, size_t>{5, 6}, {3, 20}, {17, 83}, {16, 32}, {9, 71}, {0, 83}})
            check(rows, k, n, r0, r1, rng);
}

// A short step (1 to 8 tokens) over many row groups is cut into runs of units read side by side
// (kernels_x86_packed.inc): run lengths with 0 to 3 units left over, slices that start and end
// inside groups. Under both software prefetches of one-token tiles (into L2, into L1
// non-temporally: the compiler gives each its own copy of the loops).
TEST_P(PackedTest, ShortStepsOverManyRowGroups) {
    const bool saved = detail::g_stream_prefetch_nta;
    for (bool nta : {false, true}) {
        SCOPED_TRACE(nta ? "prefetch nta" : "prefetch l2");
        detail::set_stream_prefetch_nta(nta);
        std::mt19937 rng(13);
        const size_t k = kk(288);
        for (size_t n = 1; n <= 8; ++n)
            for (auto [rows, r0, r1] : {std::tuple<size_t, size_t, size_t>{147, 0, 147},
                                        {363, 7, 358},
                                        {16 * 24, 16, 16 * 23},
                                        {16 * 37 + 9, 40, 16 * 37 + 9}})
                check(rows, k, n, r0, r1, rng);
    }
    detail::set_stream_prefetch_nta(saved);
}

// 16-token multiples and their neighbours: whole AMX tiles, and tiles plus a VNNI tail.
TEST_P(PackedTest, TileSizedTokenCounts) {
    std::mt19937 rng(21);
    for (size_t n : {15, 16, 17, 32, 33, 48, 64, 80})
        check(37, kk(n % 2 ? 96 : 2080), n, 0, 37, rng);
}

TEST_P(PackedTest, ManyTokensCrossChunks) {
    std::mt19937 rng(5);
    check(40, kk(96), 70, 0, 40, rng);  // more than one 64-token chunk, a 6-token tail
    check(19, kk(2080), 131, 2, 19, rng);
}

TEST_P(PackedTest, VocabularySizedOutput) {
    std::mt19937 rng(8);
    const size_t rows = 152064 + 7;  // not a multiple of 16
    check(rows, kk(32), 1, 0, rows, rng);
    check(rows, kk(32), 3, 100003, rows, rng);
}

// A token's results do not depend on the other tokens of the call: the same rows for 1 token
// and for 2..9, 16, 17, 64, 65 tokens are bit-identical (the K-quant kernels share one per-block
// accumulation order across tile shapes).
TEST_P(PackedTest, TokensAreBatchInvariant) {
    if (quant::traits(type()).block_size != 256 && !two_byte())
        GTEST_SKIP() << "Q4_0 / Q5_0 / Q8_0: PackedInvarianceTest, kernels_invariance_test.cpp";
    std::mt19937 rng(99);
    const size_t rows = 37, k = kk(96), n_max = 65;
    const auto w = random_weights(type(), rows, k, rng);
    std::vector<uint8_t> xq;
    std::vector<float> xv;
    size_t stride = 0;
    prepare(k, n_max, rng, xq, stride, xv);
    auto pw = pack_all(type(), w, k, rows);
    ASSERT_TRUE(pw);
    std::vector<float> one(n_max * rows);
    for (size_t j = 0; j < n_max; ++j)
        gemm_packed(*pw, 0, rows, &xq[j * stride], stride, 1, &one[j * rows], rows);
    for (size_t n : {2, 3, 4, 5, 6, 7, 8, 9, 16, 17, 64, 65}) {
        std::vector<float> y(n * rows);
        gemm_packed(*pw, 0, rows, xq.data(), stride, n, y.data(), rows);
        for (size_t j = 0; j < n; ++j)
            EXPECT_EQ(std::memcmp(&y[j * rows], &one[j * rows], rows * sizeof(float)), 0)
                << "token " << j << " of " << n << " differs from the same token alone";
    }
}

std::vector<std::tuple<Path, Type>> all_cases() {
    std::vector<std::tuple<Path, Type>> out;
    for (const Path& p : paths())
        for (Type t :
             {Type::Q4_0, Type::Q5_0, Type::Q8_0, Type::Q4_K, Type::Q6_K, Type::F16, Type::BF16})
            out.emplace_back(p, t);
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

TEST(Packed, OnlyPackedTypesWithWholeBlocks) {
    EXPECT_TRUE(packable(Type::Q4_0, 64));
    EXPECT_TRUE(packable(Type::Q8_0, 32));
    EXPECT_TRUE(packable(Type::Q5_0, 896));
    EXPECT_FALSE(packable(Type::Q5_0, 48));
    EXPECT_FALSE(packable(Type::Q5_1, 64));
    EXPECT_TRUE(packable(Type::Q4_K, 256));
    EXPECT_TRUE(packable(Type::Q6_K, 512));
    EXPECT_FALSE(packable(Type::Q4_0, 48));
    EXPECT_FALSE(packable(Type::Q4_K, 128));
    EXPECT_FALSE(packable(Type::Q6_K, 0));
    EXPECT_FALSE(packable(Type::Q5_K, 256));
    EXPECT_FALSE(packable(Type::F32, 64));
    EXPECT_FALSE(packable(Type::F16, 72));  // not whole 16-element pieces
    EXPECT_FALSE(packable(Type::BF16, 40));
    const Isa saved = active_isa();
    if (force_isa(Isa::Avx512)) {
        EXPECT_TRUE(packable(Type::F16, 64));
        EXPECT_TRUE(packable(Type::BF16, 64));
    }
    if (force_isa(Isa::Avx2)) {
        EXPECT_FALSE(packable(Type::F16, 64)) << "no AVX2 kernel reads it";
        EXPECT_FALSE(packable(Type::BF16, 64)) << "no AVX2 kernel reads it";
    }
    force_isa(saved);
    std::vector<uint8_t> w(176 * 4);
    EXPECT_FALSE(make_packed(Type::Q5_K, w.data(), 256, 1));
    EXPECT_FALSE(make_packed(Type::Q4_K, w.data(), 128, 1));
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

// unpack_row gives back every row's file bytes, for every packed type: random bytes (every bit of
// Q5_0's qh and Q6_K's ql / qh in play), 37 rows (a group cut short), two K-quant super-blocks.
TEST(Packed, UnpackRowGivesBackTheFileRow) {
    const Isa saved = active_isa();
    std::mt19937 rng(6);
    const size_t k = 512, rows = 37;
    for (Type t :
         {Type::Q4_0, Type::Q5_0, Type::Q8_0, Type::Q4_K, Type::Q6_K, Type::F16, Type::BF16}) {
        const bool two_byte = t == Type::F16 || t == Type::BF16;
        if (two_byte && !force_isa(Isa::Avx512)) continue;  // they pack only for AVX-512
        const size_t rb = quant::row_bytes(t, k);
        std::vector<uint8_t> w(rows * rb);
        for (auto& b : w) b = static_cast<uint8_t>(rng());
        auto pw = pack_all(t, w, k, rows);
        force_isa(saved);
        ASSERT_TRUE(pw) << quant::traits(t).name;
        std::vector<uint8_t> row(rb);
        for (size_t r = 0; r < rows; ++r) {
            std::fill(row.begin(), row.end(), uint8_t{0xA5});
            unpack_row(*pw, r, row.data());
            ASSERT_EQ(0, std::memcmp(row.data(), &w[r * rb], rb))
                << quant::traits(t).name << " row " << r;
        }
    }
}

// F16: row r of group g is quad r / 4 of the group, and its elements [16 b, 16 b + 16) are the
// 32 bytes at 32 (r % 4) of the quad's piece b; padding rows are zero.
TEST(Packed, F16LayoutMovesRowsIntoQuads) {
    const Isa saved = active_isa();
    if (!force_isa(Isa::Avx512)) GTEST_SKIP() << "F16 packs only for the AVX-512 kernels";
    std::mt19937 rng(4);
    const size_t k = 48, rows = 21, nb = k / 16;
    const auto w = random_weights(Type::F16, rows, k, rng);
    auto pw = pack_all(Type::F16, w, k, rows);
    force_isa(saved);
    ASSERT_TRUE(pw);
    EXPECT_EQ(pw->groups(), 2u);
    EXPECT_EQ(pw->bytes, 2 * 16 * k * 2);
    const size_t quad = nb * 128;
    for (size_t row = 0; row < 32; ++row)
        for (size_t e = 0; e < k; ++e) {
            const size_t g = row / 16, r = row % 16, b = e / 16;
            const uint8_t* at = pw->packed + g * 16 * k * 2 + (r / 4) * quad + b * 128 +
                                (r % 4) * 32 + (e % 16) * 2;
            uint16_t got, want = 0;
            std::memcpy(&got, at, 2);
            if (row < rows) std::memcpy(&want, &w[(row * k + e) * 2], 2);
            ASSERT_EQ(got, want) << "row " << row << " element " << e;
        }
}

// Q5_0: the scales and nibbles move as Q4_0's do, and every code's fifth bit (qh bit e of
// element e) is found in mask 2j + h at bit 4r + t for element 16h + 4j + t; padding rows are
// zero.
TEST(Packed, Q5_0LayoutMovesScalesNibblesAndFifthBits) {
    std::mt19937 rng(5);
    const size_t k = 96, rows = 19, fb = 22, nb = k / 32;
    const auto w = random_weights(Type::Q5_0, rows, k, rng);
    auto pw = pack_all(Type::Q5_0, w, k, rows);
    ASSERT_TRUE(pw);
    EXPECT_EQ(pw->block_bytes, 16 * fb);
    EXPECT_EQ(pw->bytes, 2 * nb * 16 * fb);
    size_t fifth_bits = 0;
    for (size_t g = 0; g < 2; ++g)
        for (size_t b = 0; b < nb; ++b) {
            const uint8_t* blk = pw->packed + (g * nb + b) * pw->block_bytes;
            const uint8_t* masks = blk + 32 + 256;
            for (size_t r = 0; r < 16; ++r) {
                const size_t row = g * 16 + r;
                const uint8_t* src = row < rows ? &w[row * nb * fb + b * fb] : nullptr;
                for (size_t i = 0; i < 2; ++i)
                    ASSERT_EQ(blk[2 * r + i], src ? src[i] : 0) << "row " << row << " scale";
                for (size_t i = 0; i < 16; ++i)
                    ASSERT_EQ(blk[32 + i / 4 * 64 + 4 * r + i % 4], src ? src[6 + i] : 0)
                        << "row " << row << " block " << b << " nibble byte " << i;
                for (size_t e = 0; e < 32; ++e) {
                    const size_t h = e / 16, j = e % 16 / 4, t = e % 4, bit = 4 * r + t;
                    const bool want = src && ((src[2 + e / 8] >> (e % 8)) & 1);
                    const bool got = (masks[(2 * j + h) * 8 + bit / 8] >> (bit % 8)) & 1;
                    ASSERT_EQ(got, want) << "row " << row << " block " << b << " element " << e;
                    fifth_bits += got;
                }
            }
        }
    EXPECT_GT(fifth_bits, 100u) << "random codes should set about half the fifth bits";
}

// Q4_K: every byte of every row's super-block lands where packed_k.h says. Q6_K: the scales
// and d move as bytes, and each code's 6 bits (read from the file as the reference decoder does)
// are found at the documented nibble and bit pair; padding rows are zero.
TEST(Packed, KQuantLayoutMovesTheFileBytes) {
    std::mt19937 rng(4);
    const size_t k = 512, rows = 19, nb = 2;
    {
        const auto w = random_weights(Type::Q4_K, rows, k, rng);
        auto pw = pack_all(Type::Q4_K, w, k, rows);
        ASSERT_TRUE(pw);
        EXPECT_EQ(pw->bytes, 2 * nb * 16 * 144u);
        for (size_t g = 0; g < 2; ++g)
            for (size_t b = 0; b < nb; ++b) {
                const uint8_t* blk = pw->packed + (g * nb + b) * pw->block_bytes;
                for (size_t r = 0; r < 16; ++r) {
                    const size_t row = g * 16 + r;
                    for (size_t i = 0; i < 144; ++i) {
                        size_t at = 0;
                        if (i < 2)
                            at = 2 * r + i;
                        else if (i < 4)
                            at = 32 + 2 * r + i - 2;
                        else if (i < 16)
                            at = 64 + (i - 4) / 4 * 64 + 4 * r + (i - 4) % 4;
                        else
                            at = 256 + (i - 16) / 4 * 64 + 4 * r + (i - 16) % 4;
                        const uint8_t want = row < rows ? w[row * nb * 144 + b * 144 + i] : 0;
                        ASSERT_EQ(blk[at], want)
                            << "Q4_K row " << row << " block " << b << " byte " << i;
                    }
                }
            }
    }
    {
        const auto w = random_weights(Type::Q6_K, rows, k, rng);
        auto pw = pack_all(Type::Q6_K, w, k, rows);
        ASSERT_TRUE(pw);
        EXPECT_EQ(pw->bytes, 2 * nb * 16 * 210u);
        for (size_t g = 0; g < 2; ++g)
            for (size_t b = 0; b < nb; ++b) {
                const uint8_t* blk = pw->packed + (g * nb + b) * pw->block_bytes;
                for (size_t r = 0; r < 16; ++r) {
                    const size_t row = g * 16 + r;
                    const uint8_t* f = row < rows ? &w[row * nb * 210 + b * 210] : nullptr;
                    for (size_t i = 0; i < 2; ++i)
                        ASSERT_EQ(blk[2 * r + i], f ? f[208 + i] : 0) << "Q6_K d, row " << row;
                    for (size_t sg = 0; sg < 16; ++sg)
                        ASSERT_EQ(blk[32 + 16 * sg + r], f ? f[192 + sg] : 0)
                            << "Q6_K scale " << sg << ", row " << row;
                    for (size_t e = 0; e < 256; ++e) {
                        int want = 0;
                        if (f) {  // the file's code, as decode_q6_k reads it
                            const size_t h = e / 128, part = (e % 128) / 32, l = e % 32;
                            const int lo =
                                (f[64 * h + 32 * (part & 1) + l] >> (4 * (part >> 1))) & 15;
                            const int hi = (f[128 + 32 * h + l] >> (2 * part)) & 3;
                            want = lo | (hi << 4);
                        }
                        const size_t grp = e / 16, i = e % 16, t = i % 4, which = i / 4;
                        const uint8_t* o = blk + 288 + 192 * grp + 4 * r + t;
                        const int nib = which % 2 == 0 ? o[0] : o[64];
                        const int lo = (nib >> (which < 2 ? 0 : 4)) & 15;
                        const int hi = (o[128] >> (2 * which)) & 3;
                        ASSERT_EQ(lo | (hi << 4), want) << "Q6_K row " << row << " code " << e;
                    }
                }
            }
    }
}

}  // namespace
}  // namespace hearth::cpu
