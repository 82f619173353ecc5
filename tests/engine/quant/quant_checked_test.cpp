// The size-checked dequantize()/quantize() wrappers: wrong sizes, unsupported and unknown types
// give an error naming the problem and write nothing; valid calls agree with the raw routines.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <vector>

#include "quant/quant_ref.h"

namespace hearth::quant {
namespace {

constexpr std::byte kFill{0xAB};

// Every type the table knows, and whether the references cover it.
constexpr Type kAllTypes[] = {Type::F32,    Type::F16,   Type::BF16, Type::Q4_0, Type::Q4_1,
                              Type::Q5_0,   Type::Q5_1,  Type::Q8_0, Type::Q8_1, Type::Q2_K,
                              Type::Q3_K,   Type::Q4_K,  Type::Q5_K, Type::Q6_K, Type::Q8_K,
                              Type::IQ4_NL, Type::IQ4_XS};

bool all_equal(const std::vector<std::byte>& v, std::byte b) {
    for (auto x : v)
        if (x != b) return false;
    return true;
}
bool all_nan(const std::vector<float>& v) {
    for (auto x : v)
        if (!std::isnan(x)) return false;
    return true;
}

TEST(QuantChecked, EveryTableTypeButQ8_1Decodes) {
    for (Type t : kAllTypes) EXPECT_EQ(can_dequantize(t), t != Type::Q8_1) << traits(t).name;
}

TEST(QuantChecked, RejectsPartialBlocks) {
    for (Type t : kAllTypes) {
        const auto& tr = traits(t);
        if (tr.block_size == 1 || !can_dequantize(t)) continue;
        const size_t n = tr.block_size + 1;
        std::vector<std::byte> src(2 * tr.type_size, kFill);
        std::vector<float> dst(n, std::nanf(""));
        const Status s = dequantize(t, src, dst);
        EXPECT_FALSE(s) << tr.name;
        EXPECT_NE(s.message().find("not a multiple of the block size"), std::string::npos)
            << s.message();
        EXPECT_TRUE(all_nan(dst)) << tr.name << ": output written on error";

        if (can_quantize(t)) {
            std::vector<float> x(n, 1.0f);
            std::vector<std::byte> out(2 * tr.type_size, kFill);
            EXPECT_FALSE(quantize(t, x, out)) << tr.name;
            EXPECT_TRUE(all_equal(out, kFill)) << tr.name << ": output written on error";
        }
    }
}

TEST(QuantChecked, RejectsWrongByteCounts) {
    for (Type t : kAllTypes) {
        if (!can_dequantize(t)) continue;
        const auto& tr = traits(t);
        const size_t n = 2 * tr.block_size;
        for (size_t bytes : {size_t{0}, row_bytes(t, n) - 1, row_bytes(t, n) + 1,
                             row_bytes(t, n) + tr.type_size}) {
            std::vector<std::byte> src(bytes, std::byte{0});
            std::vector<float> dst(n, std::nanf(""));
            const Status s = dequantize(t, src, dst);
            EXPECT_FALSE(s) << tr.name << " with " << bytes << " bytes";
            EXPECT_NE(s.message().find(std::string(tr.name)), std::string::npos) << s.message();
            EXPECT_TRUE(all_nan(dst));
            if (can_quantize(t)) {
                std::vector<float> x(n, 0.5f);
                std::vector<std::byte> out(bytes, kFill);
                EXPECT_FALSE(quantize(t, x, out)) << tr.name << " with " << bytes << " bytes";
                EXPECT_TRUE(all_equal(out, kFill));
            }
        }
    }
}

TEST(QuantChecked, RejectsUnsupportedAndUnknownTypes) {
    std::vector<std::byte> src(36, std::byte{0});
    std::vector<float> dst(32);
    const Status q81 = dequantize(Type::Q8_1, src, dst);
    EXPECT_FALSE(q81);
    EXPECT_NE(q81.message().find("Q8_1"), std::string::npos) << q81.message();

    for (uint32_t id : {4u, 5u, 16u, 99u, 0xFFFFFFFFu}) {
        const auto t = static_cast<Type>(id);
        const Status s = dequantize(t, src, dst);
        EXPECT_FALSE(s) << id;
        EXPECT_NE(s.message().find("unknown type id"), std::string::npos) << s.message();
        EXPECT_FALSE(can_dequantize(t));
        EXPECT_FALSE(can_quantize(t));
        std::vector<float> x(32, 1.0f);
        EXPECT_FALSE(quantize(t, x, src));
    }
    for (Type t : kAllTypes) {
        if (can_quantize(t)) continue;
        const auto& tr = traits(t);
        std::vector<float> x(tr.block_size, 1.0f);
        std::vector<std::byte> out(tr.type_size, kFill);
        const Status s = quantize(t, x, out);
        EXPECT_FALSE(s) << tr.name;
        EXPECT_NE(s.message().find("no reference quantizer"), std::string::npos) << s.message();
        EXPECT_TRUE(all_equal(out, kFill));
    }
}

TEST(QuantChecked, EmptyRowIsFine) {
    for (Type t : kAllTypes) {
        if (!can_dequantize(t)) continue;
        EXPECT_TRUE(dequantize(t, {}, {})) << traits(t).name;
        if (can_quantize(t)) {
            EXPECT_TRUE(quantize(t, {}, {})) << traits(t).name;
        }
    }
}

TEST(QuantChecked, AgreesWithRawRoutines) {
    for (Type t : kAllTypes) {
        if (!can_quantize(t)) continue;
        const size_t n = 512;
        std::vector<float> x(n);
        for (size_t i = 0; i < n; ++i) x[i] = std::sin(0.1f * static_cast<float>(i)) * 3.0f;
        std::vector<std::byte> a(row_bytes(t, n));
        std::vector<std::byte> b(row_bytes(t, n));
        ASSERT_TRUE(quantize(t, x, a)) << traits(t).name;
        quantize_row(t, x.data(), b.data(), n);
        EXPECT_EQ(a, b) << traits(t).name;
        std::vector<float> ya(n), yb(n);
        ASSERT_TRUE(dequantize(t, a, ya));
        dequantize_row(t, a.data(), yb.data(), n);
        EXPECT_EQ(ya, yb) << traits(t).name;
    }
}

}  // namespace
}  // namespace hearth::quant
