// Exact IEEE binary16 and bfloat16 conversions, written with integer operations only so that the
// result does not depend on the host's FPU (no F16C, no rounding-mode surprises).
#include <bit>
#include <cstdint>

#include "quant/quant_ref.h"

namespace hearth::quant {

float f16_to_f32(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1Fu;
    const uint32_t mant = h & 0x3FFu;
    if (exp == 0) {
        // Zero or subnormal: mant * 2^-24 is exact in float32.
        const float magnitude = static_cast<float>(mant) * 0x1p-24f;
        return std::bit_cast<float>(std::bit_cast<uint32_t>(magnitude) | sign);
    }
    if (exp == 31) {
        // Inf or NaN: keep the payload in the top mantissa bits.
        return std::bit_cast<float>(sign | 0x7F800000u | (mant << 13));
    }
    // Normal: rebias the exponent from 15 to 127.
    return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
}

uint16_t f32_to_f16(float f) {
    const uint32_t x = std::bit_cast<uint32_t>(f);
    const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
    const uint32_t ax = x & 0x7FFFFFFFu;
    if (ax > 0x7F800000u) {
        // NaN: keep the top payload bits and force the quiet bit, so it stays a NaN.
        return static_cast<uint16_t>(sign | 0x7E00u | ((ax >> 13) & 0x3FFu));
    }
    // 65520 is halfway between the largest half (65504, odd mantissa) and 2^16: ties go to even,
    // i.e. up to infinity. Everything at or above it (including inf) becomes inf.
    if (ax >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);

    const int exp = static_cast<int>(ax >> 23) - 127;
    const uint32_t mant = ax & 0x7FFFFFu;
    if (exp >= -14) {
        // Normal half: drop 13 mantissa bits with round-to-nearest-even. A carry out of the
        // mantissa correctly bumps the exponent.
        uint32_t h = (static_cast<uint32_t>(exp + 15) << 10) | (mant >> 13);
        const uint32_t rem = mant & 0x1FFFu;
        if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
        return static_cast<uint16_t>(sign | h);
    }
    if (exp < -25) return sign;  // below half the smallest subnormal: rounds to zero
    // Subnormal half: value = q * 2^-24 with q = significand >> shift, rounded to nearest even.
    // A result of 0x400 is the smallest normal, which is the right encoding.
    const uint32_t significand = mant | 0x800000u;
    const int shift = -exp - 1;  // 14..24
    uint32_t q = significand >> shift;
    const uint32_t rem = significand & ((1u << shift) - 1u);
    const uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) ++q;
    return static_cast<uint16_t>(sign | q);
}

float bf16_to_f32(uint16_t h) {
    return std::bit_cast<float>(static_cast<uint32_t>(h) << 16);
}

uint16_t f32_to_bf16(float f) {
    const uint32_t x = std::bit_cast<uint32_t>(f);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) {
        // NaN: truncating could clear every payload bit and give inf; force the quiet bit.
        return static_cast<uint16_t>((x >> 16) | 0x40u);
    }
    // Round to nearest even on the 16 dropped bits; overflow carries into inf as it should.
    return static_cast<uint16_t>((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}

}  // namespace hearth::quant
