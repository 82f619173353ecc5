// KV rows to F16 (kernels.h f32_to_f16) on every ISA this CPU runs: the bits of the reference
// quant::f32_to_f16 for every half's value and its neighbours one and two float steps away,
// the midpoints between neighbouring halves (ties) and their neighbours, signed zeros,
// infinities, quiet and signalling NaNs with payloads, and a sweep over the whole float range;
// in every row length from 1 to 40 (the vector loop and the tail).
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/kernels.h"
#include "kernels_test_util.h"
#include "quant/quant_ref.h"

namespace hearth::cpu {
namespace {

class F16Kernel : public ::testing::Test {
    test::IsaRestore restore_;
};

float from_bits(uint32_t b) {
    return std::bit_cast<float>(b);
}

std::vector<float> hard_inputs() {
    std::vector<float> in;
    for (uint32_t h = 0; h < 0x7C00u; ++h) {  // every finite half, both signs
        const uint32_t v = std::bit_cast<uint32_t>(quant::f16_to_f32(static_cast<uint16_t>(h)));
        const uint32_t next =
            std::bit_cast<uint32_t>(quant::f16_to_f32(static_cast<uint16_t>(h + 1)));
        // the tie between h and h + 1 (exact in float) and its neighbours
        const float mid = (from_bits(v) + from_bits(next)) * 0.5f;
        const uint32_t m = std::bit_cast<uint32_t>(mid);
        for (uint32_t b : {v, v + 1, v + 2, v - 1, v - 2, m, m + 1, m - 1}) {
            if (b > 0x7F800000u) continue;  // v - 1 of +0 wraps
            in.push_back(from_bits(b));
            in.push_back(-from_bits(b));
        }
    }
    for (uint32_t b : {0x7F800000u, 0x7FC00000u, 0x7FC01234u, 0x7F800001u, 0x7FBFFFFFu, 0x7FFFE000u,
                       0x477FEFFFu, 0x477FF000u, 0x477FF001u, 0x33000000u, 0x33000001u, 0x32FFFFFFu,
                       0x00000001u, 0x00800000u}) {
        in.push_back(from_bits(b));
        in.push_back(from_bits(b | 0x80000000u));
    }
    for (uint64_t b = 0; b <= 0xFFFFFFFFu; b += 65521)  // every exponent, many mantissas
        in.push_back(from_bits(static_cast<uint32_t>(b)));
    return in;
}

TEST_F(F16Kernel, EveryIsaGivesTheReferenceBits) {
    const std::vector<float> in = hard_inputs();
    std::vector<uint16_t> want(in.size());
    for (size_t i = 0; i < in.size(); ++i) want[i] = quant::f32_to_f16(in[i]);
    for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Neon}) {
        if (!force_isa(isa)) continue;
        std::vector<uint16_t> got(in.size(), 0xDEADu);
        f32_to_f16(in.data(), got.data(), got.size());
        size_t bad = 0;
        for (size_t i = 0; i < in.size(); ++i)
            if (got[i] != want[i] && ++bad <= 5)
                ADD_FAILURE() << isa_name(isa) << ": 0x" << std::hex
                              << std::bit_cast<uint32_t>(in[i]) << " gave 0x" << got[i]
                              << ", want 0x" << want[i];
        EXPECT_EQ(bad, 0u) << isa_name(isa) << " of " << in.size();
    }
}

TEST_F(F16Kernel, EveryLengthConvertsExactlyItsElements) {
    std::vector<float> in(48);
    for (size_t i = 0; i < in.size(); ++i) in[i] = 0.37f * float(i) - 7.0f;
    for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Neon}) {
        if (!force_isa(isa)) continue;
        for (size_t n = 1; n <= 40; ++n) {
            std::vector<uint16_t> got(n + 8, 0xBEEFu);
            f32_to_f16(in.data() + 3, got.data(), n);  // unaligned source
            for (size_t i = 0; i < n; ++i)
                EXPECT_EQ(got[i], quant::f32_to_f16(in[3 + i])) << isa_name(isa) << " n=" << n;
            for (size_t i = n; i < got.size(); ++i)
                EXPECT_EQ(got[i], 0xBEEFu) << isa_name(isa) << " wrote past n=" << n;
        }
    }
}

}  // namespace
}  // namespace hearth::cpu
