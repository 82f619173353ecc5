// gemv / gemm of every weight type on every ISA this CPU runs, against float64 dot products of
// the reference-dequantized weights (quant_ref) and the prepared activation's values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <tuple>

#include "kernels/kernels_internal.h"
#include "kernels_test_util.h"

namespace hearth::cpu {
namespace {

using quant::Type;
using test::random_activation;
using test::random_weights;
using test::ref_dot;

using Path = test::IsaPath;
constexpr auto runnable_paths = [] { return test::isa_paths(); };
constexpr auto path_name = test::isa_path_name;

// Row lengths with odd block counts and tails: one block, a few, many.
std::vector<size_t> shapes_k(Type t) {
    if (quant::traits(t).block_size == 256) return {256, 768, 2304};
    if (!quant::traits(t).is_quantized) return {7, 33, 100, 288, 1029, 2080};  // any k, tails
    return {32, 96, 288, 1056, 2080};
}

// Tolerance: float32 accumulation in any order over k terms.
double tolerance(const test::RefDot& r, size_t k) {
    return 2e-6 * std::sqrt(static_cast<double>(k)) * r.abs_sum + 1e-30;
}

class KernelsTest : public ::testing::TestWithParam<std::tuple<Path, Type>> {
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

    // Reference-dequantized weights (quant_ref), rows x k.
    std::vector<float> ref_weights(const std::vector<uint8_t>& w, size_t rows, size_t k) const {
        std::vector<float> f(rows * k);
        const size_t rb = quant::row_bytes(type(), k);
        for (size_t r = 0; r < rows; ++r) quant::dequantize_row(type(), &w[r * rb], &f[r * k], k);
        return f;
    }
    // Prepared activation rows (n of them, stride bytes apart) and the values they stand for.
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

private:
    Isa saved_ = Isa::Scalar;
    bool saved_vnni_ = true;
};

TEST_P(KernelsTest, GemvMatchesReferenceOnRowSlices) {
    std::mt19937 rng(1234 + static_cast<unsigned>(type()));
    for (size_t k : shapes_k(type())) {
        const size_t rows = 37;
        const auto w = random_weights(type(), rows, k, rng);
        const auto wf = ref_weights(w, rows, k);
        std::vector<uint8_t> xq;
        std::vector<float> xv;
        size_t stride = 0;
        prepare(k, 1, rng, xq, stride, xv);
        for (auto [r0, r1] : {std::pair<size_t, size_t>{0, rows}, {5, 6}, {3, 20}, {17, 37}}) {
            std::vector<float> out(r1 - r0 + 2, 12345.0f);  // guard after the slice
            gemv(type(), w.data(), k, r0, r1, xq.data(), out.data());
            for (size_t r = r0; r < r1; ++r) {
                const auto ref = ref_dot(&wf[r * k], xv.data(), k);
                EXPECT_NEAR(out[r - r0], ref.value, tolerance(ref, k))
                    << "k=" << k << " row=" << r << " slice=[" << r0 << "," << r1 << ")";
            }
            EXPECT_EQ(out[r1 - r0], 12345.0f) << "gemv wrote past its slice";
        }
    }
}

TEST_P(KernelsTest, GemmMatchesReferenceForOneTo17Tokens) {
    std::mt19937 rng(99 + static_cast<unsigned>(type()));
    const auto ks = shapes_k(type());
    for (size_t n = 1; n <= 17; ++n) {
        const size_t k = ks[n % ks.size()];
        const size_t rows = 21 + n % 5;
        const auto w = random_weights(type(), rows, k, rng);
        const auto wf = ref_weights(w, rows, k);
        std::vector<uint8_t> xq;
        std::vector<float> xv;
        size_t stride = 0;
        prepare(k, n, rng, xq, stride, xv);
        const size_t r0 = n % 4, r1 = rows - n % 3;
        const size_t y_stride = rows + 3;
        std::vector<float> y(n * y_stride, 12345.0f);
        gemm(type(), w.data(), k, r0, r1, xq.data(), stride, n, y.data(), y_stride);
        for (size_t j = 0; j < n; ++j)
            for (size_t r = 0; r < y_stride; ++r) {
                const float got = y[j * y_stride + r];
                if (r < r0 || r >= r1) {
                    EXPECT_EQ(got, 12345.0f) << "gemm wrote outside rows [r0, r1)";
                    continue;
                }
                const auto ref = ref_dot(&wf[r * k], &xv[j * k], k);
                EXPECT_NEAR(got, ref.value, tolerance(ref, k))
                    << "n=" << n << " token=" << j << " row=" << r << " k=" << k;
            }
    }
}

TEST_P(KernelsTest, GemmEqualsGemvPerToken) {
    std::mt19937 rng(7 + static_cast<unsigned>(type()));
    const size_t k = shapes_k(type()).back(), rows = 19, n = 9;
    const auto w = random_weights(type(), rows, k, rng);
    std::vector<uint8_t> xq;
    std::vector<float> xv;
    size_t stride = 0;
    prepare(k, n, rng, xq, stride, xv);
    std::vector<float> y(n * rows);
    gemm(type(), w.data(), k, 0, rows, xq.data(), stride, n, y.data(), rows);
    for (size_t j = 0; j < n; ++j) {
        std::vector<float> out(rows);
        gemv(type(), w.data(), k, 0, rows, &xq[j * stride], out.data());
        for (size_t r = 0; r < rows; ++r) {
            const float a = out[r], b = y[j * rows + r];
            EXPECT_NEAR(a, b, 1e-4f * (std::fabs(a) + 1.0f)) << "token=" << j << " row=" << r;
        }
    }
}

TEST_P(KernelsTest, ActivationValuesStayWithinHalfAStep) {
    std::mt19937 rng(5);
    const size_t k = shapes_k(type()).back();
    auto x = random_activation(k, rng);
    x[3] = 0.0f;
    std::vector<uint8_t> xq(activation_row_bytes(type(), k));
    std::vector<float> xv(k);
    quantize_activation(type(), x.data(), k, xq.data());
    dequantize_activation(type(), xq.data(), k, xv.data());
    const size_t block = quant::traits(type()).is_quantized ? quant::traits(type()).block_size : 1;
    for (size_t b = 0; b < k / block; ++b) {
        float amax = 0.0f;
        for (size_t i = 0; i < block; ++i) amax = std::max(amax, std::fabs(x[b * block + i]));
        const float step = block == 1 ? 0.0f : amax / 127.0f;
        for (size_t i = 0; i < block; ++i)
            EXPECT_NEAR(xv[b * block + i], x[b * block + i], 0.5001f * step + 1e-7f);
    }
    EXPECT_EQ(xv[3], 0.0f);
}

std::vector<std::tuple<Path, Type>> all_cases() {
    std::vector<std::tuple<Path, Type>> out;
    for (const Path& p : runnable_paths())
        for (Type t : test::weight_types()) out.emplace_back(p, t);
    return out;
}

INSTANTIATE_TEST_SUITE_P(AllIsasAllTypes, KernelsTest, ::testing::ValuesIn(all_cases()),
                         [](const auto& info) {
                             return path_name(std::get<0>(info.param)) + "_" +
                                    std::string(quant::traits(std::get<1>(info.param)).name);
                         });

}  // namespace
}  // namespace hearth::cpu

namespace hearth::cpu {
namespace {

// Every path prepares exactly the bytes of the scalar path (rows may cross ISAs), including
// blocks with zeros, NaN, infinities and huge values.
TEST(KernelsActivation, EveryPathPreparesTheScalarBytes) {
    // 2048: whole groups of sixteen blocks (the AVX-512 Q8x32 path's unit); 2208: five left over
    for (const size_t k : {size_t{2048}, size_t{2208}}) {
        std::mt19937 rng(11);
        auto x = test::random_activation(k, rng);
        for (size_t i = 256; i < 512; ++i) x[i] = 0.0f;
        x[600] = std::nanf("");
        x[900] = std::numeric_limits<float>::infinity();
        x[1300] = -3e38f;
        x[1301] = 3e38f;
        x[1700] = 1e-40f;  // subnormal
        if (k > 2048) x[2100] = -std::nanf("");
        const Isa saved = active_isa();
        for (Type t : {Type::Q4_0, Type::Q4_K, Type::F16}) {
            if (k % quant::traits(t).block_size != 0) continue;
            const size_t bytes = activation_row_bytes(t, k);
            ASSERT_TRUE(force_isa(Isa::Scalar));
            std::vector<uint8_t> want(bytes);
            quantize_activation(t, x.data(), k, want.data());
            for (const Path& p : runnable_paths()) {
                const bool had = detail::allow_avx512vnni(p.vnni);
                ASSERT_TRUE(force_isa(p.isa));
                std::vector<uint8_t> got(bytes, 0xAB);
                quantize_activation(t, x.data(), k, got.data());
                detail::allow_avx512vnni(had);
                EXPECT_EQ(got, want) << path_name(p) << " " << quant::traits(t).name << " k=" << k;
            }
        }
        force_isa(saved);
    }
}

}  // namespace
}  // namespace hearth::cpu
