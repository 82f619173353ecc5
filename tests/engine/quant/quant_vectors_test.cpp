// Every encoding in quant_vectors.json (ggml's own quantizer output) must decode to exactly the
// float32 bits ggml's dequantizer produced, and our quantizers must reproduce the bytes where
// they follow ggml's rounding (see README.md in engine/quant for the documented differences).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "quant/quant_ref.h"
#include "test_data.h"

namespace hearth::quant {
namespace {

using nlohmann::json;

std::vector<uint8_t> from_hex(const std::string& hex) {
    std::vector<uint8_t> out(hex.size() / 2);
    for (size_t i = 0; i < out.size(); ++i) {
        out[i] = static_cast<uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
    }
    return out;
}

std::vector<uint32_t> f32_bits_from_hex(const std::string& hex) {
    const auto bytes = from_hex(hex);
    std::vector<uint32_t> out(bytes.size() / 4);
    for (size_t i = 0; i < out.size(); ++i) {
        out[i] = static_cast<uint32_t>(bytes[4 * i]) |
                 (static_cast<uint32_t>(bytes[4 * i + 1]) << 8) |
                 (static_cast<uint32_t>(bytes[4 * i + 2]) << 16) |
                 (static_cast<uint32_t>(bytes[4 * i + 3]) << 24);
    }
    return out;
}

// The vector file's format keys. iq4_nl_ref is IQ4_NL bytes from a different encoder search.
struct FormatKey {
    const char* key;
    Type type;
};
constexpr FormatKey kFormats[] = {
    {"f16", Type::F16},           {"bf16", Type::BF16},     {"q4_0", Type::Q4_0},
    {"q4_1", Type::Q4_1},         {"q5_0", Type::Q5_0},     {"q5_1", Type::Q5_1},
    {"q8_0", Type::Q8_0},         {"q2_K", Type::Q2_K},     {"q3_K", Type::Q3_K},
    {"q4_K", Type::Q4_K},         {"q5_K", Type::Q5_K},     {"q6_K", Type::Q6_K},
    {"q8_K", Type::Q8_K},         {"iq4_nl", Type::IQ4_NL}, {"iq4_xs", Type::IQ4_XS},
    {"iq4_nl_ref", Type::IQ4_NL},
};
constexpr const char* kInputs[] = {"sin_0p37_x2", "edge_cases"};

const json* vectors() {
    static const json doc = [] {
        auto p = test::shared_file("testdata/quant_vectors.json");
        return p ? json::parse(test::read_file(*p)) : json();
    }();
    return doc.is_null() ? nullptr : &doc;
}

struct Case {
    std::string input;
    FormatKey format;
};

std::string case_name(const testing::TestParamInfo<Case>& info) {
    return info.param.input + "_" + info.param.format.key;
}

std::vector<Case> all_cases() {
    std::vector<Case> cases;
    for (const char* in : kInputs)
        for (const auto& f : kFormats) cases.push_back({in, f});
    return cases;
}

class QuantVectors : public testing::TestWithParam<Case> {
protected:
    void SetUp() override {
        HEARTH_REQUIRE_SHARED(path, "testdata/quant_vectors.json");
        (void)path;
        const json& in = (*vectors())["inputs"][GetParam().input];
        ASSERT_TRUE(in.contains("formats")) << "input missing: " << GetParam().input;
        ASSERT_TRUE(in["formats"].contains(GetParam().format.key));
        input_bits_ = f32_bits_from_hex(in["input_f32_bits_le_hex"].get<std::string>());
        fmt_ = in["formats"][GetParam().format.key];
        bytes_ = from_hex(fmt_["bytes_hex"].get<std::string>());
        expected_bits_ = f32_bits_from_hex(fmt_["dequant_f32_bits_le_hex"].get<std::string>());
        n_ = in["n"].get<size_t>();
    }

    std::vector<float> input() const {
        std::vector<float> x(input_bits_.size());
        for (size_t i = 0; i < x.size(); ++i) x[i] = std::bit_cast<float>(input_bits_[i]);
        return x;
    }

    size_t n_ = 0;
    json fmt_;
    std::vector<uint32_t> input_bits_;
    std::vector<uint8_t> bytes_;
    std::vector<uint32_t> expected_bits_;
};

TEST_P(QuantVectors, TableAgreesWithVectorFile) {
    const auto& tr = traits(GetParam().format.type);
    EXPECT_EQ(fmt_["ggml_type"].get<uint32_t>(), static_cast<uint32_t>(tr.type));
    EXPECT_EQ(fmt_["block_size"].get<uint32_t>(), tr.block_size);
    EXPECT_EQ(fmt_["type_size"].get<uint32_t>(), tr.type_size);
    EXPECT_EQ(fmt_["row_bytes"].get<size_t>(), row_bytes(tr.type, n_));
    EXPECT_EQ(bytes_.size(), row_bytes(tr.type, n_));
    EXPECT_EQ(expected_bits_.size(), n_);
    EXPECT_EQ(input_bits_.size(), n_);
}

TEST_P(QuantVectors, DecodesBitExactly) {
    const Type type = GetParam().format.type;
    ASSERT_EQ(bytes_.size(), row_bytes(type, n_));
    std::vector<float> out(n_, std::nanf(""));
    dequantize_row(type, bytes_.data(), out.data(), n_);
    size_t mismatches = 0;
    for (size_t i = 0; i < n_; ++i) {
        const uint32_t got = std::bit_cast<uint32_t>(out[i]);
        if (got != expected_bits_[i] && ++mismatches <= 5) {
            ADD_FAILURE() << "element " << i << ": got " << out[i] << " (0x" << std::hex << got
                          << "), want " << std::bit_cast<float>(expected_bits_[i]) << " (0x"
                          << expected_bits_[i] << ")" << std::dec;
        }
    }
    EXPECT_EQ(mismatches, 0u) << "of " << n_;
}

TEST_P(QuantVectors, CheckedDecodeAgrees) {
    const Type type = GetParam().format.type;
    std::vector<float> out(n_);
    const Status s = dequantize(type, std::as_bytes(std::span(bytes_)), out);
    ASSERT_TRUE(s) << s.message();
    for (size_t i = 0; i < n_; ++i) ASSERT_EQ(std::bit_cast<uint32_t>(out[i]), expected_bits_[i]);
}

// Our quantizer must write ggml's bytes exactly. Reports each differing block.
TEST_P(QuantVectors, QuantizerMatchesBytes) {
    const Type type = GetParam().format.type;
    if (!can_quantize(type)) GTEST_SKIP() << traits(type).name << " has no reference quantizer";
    const auto x = input();
    std::vector<uint8_t> got(row_bytes(type, n_), 0xAB);
    quantize_row(type, x.data(), got.data(), n_);
    const auto& tr = traits(type);
    size_t bad_blocks = 0;
    for (size_t b = 0; b < got.size() / tr.type_size; ++b) {
        const size_t off = b * tr.type_size;
        if (std::memcmp(got.data() + off, bytes_.data() + off, tr.type_size) != 0) {
            ++bad_blocks;
            size_t first = off;
            while (got[first] == bytes_[first]) ++first;
            ADD_FAILURE() << "block " << b << " differs first at byte " << first - off << ": got 0x"
                          << std::hex << int(got[first]) << ", want 0x" << int(bytes_[first])
                          << std::dec;
        }
    }
    EXPECT_EQ(bad_blocks, 0u);
}

INSTANTIATE_TEST_SUITE_P(AllFormats, QuantVectors, testing::ValuesIn(all_cases()), case_name);

}  // namespace
}  // namespace hearth::quant
