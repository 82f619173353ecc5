// The embedded SPIR-V of every kernel (generated: build/.../backends/vulkan/vk_shaders.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace hearth::backend::vk {

struct ShaderCode {
    const char* name;
    const uint32_t* words;
    size_t bytes;
};

const ShaderCode* find_shader(std::string_view name);

}  // namespace hearth::backend::vk
