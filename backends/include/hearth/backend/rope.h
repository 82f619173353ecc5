// RoPE's parameters: read from a model's metadata (engine/model's ModelConfig) and applied by
// every backend's Rope op, so they are one type for both.
#pragma once

#include <cstdint>

namespace hearth::backend {

// How RoPE pairs the dimensions of a head.
enum class RopeMode : uint8_t {
    Adjacent,    // rotates (x[2i], x[2i+1]): llama ("NORM" in ggml; weights pre-permuted)
    RotateHalf,  // rotates (x[i], x[i + n_rot/2]): qwen2, neox
};

struct RopeParams {
    RopeMode mode = RopeMode::Adjacent;
    int32_t n_rot = 0;          // rotated dims per head (<= d, even); the rest pass through
    float freq_base = 10000.f;  // θ base: freq_i = base^(-2i/n_rot)
    float freq_scale = 1.f;     // linear scaling: angles are multiplied by this
    float attn_factor = 1.f;    // cos and sin are multiplied by this (LongRoPE's magnitude scaling)
};

}  // namespace hearth::backend
