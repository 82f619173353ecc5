// How RoPE pairs the dimensions of a head: read from the architecture (engine/model) and applied
// by every backend's Rope op, so it is one enum for both.
#pragma once

#include <cstdint>

namespace hearth::backend {

enum class RopeMode : uint8_t {
    Adjacent,    // rotates (x[2i], x[2i+1]): llama ("NORM" in ggml; weights pre-permuted)
    RotateHalf,  // rotates (x[i], x[i + n_rot/2]): qwen2, neox
};

}  // namespace hearth::backend
