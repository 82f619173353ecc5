// Compute pipelines: one descriptor-set layout (eight storage buffers) and one pipeline layout
// (128 bytes of push constants) for every kernel; a pipeline per (kernel, format) made on
// first use from the embedded SPIR-V with the format as specialization constant 0. The
// VkPipelineCache is loaded from and saved to the cache folder (HEARTH_CACHE_DIR, else
// $XDG_CACHE_HOME/hearth or ~/.cache/hearth), so a second start compiles nothing.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "hearth/result.h"

namespace hearth::backend::vk {

constexpr uint32_t kBindings = 8;

struct Push {
    uint32_t off[8] = {};
    uint32_t u[16] = {};
    float f[8] = {};
};
static_assert(sizeof(Push) == 128);

class Pipelines {
public:
    Pipelines(VkDevice device, std::filesystem::path cache_file);
    ~Pipelines();
    Status init();

    VkDescriptorSetLayout set_layout() const { return set_layout_; }
    VkPipelineLayout layout() const { return layout_; }
    // The pipeline of kernel `name` (a shader of vk_shaders) for format `fmt`.
    Result<VkPipeline> get(const std::string& name, uint32_t fmt);
    // How many pipelines were created and how many of those the cache already held.
    int created() const { return created_; }
    // Writes the pipeline cache (also done by the destructor).
    void save();

private:
    VkDevice device_;
    std::filesystem::path cache_file_;
    VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
    VkPipelineLayout layout_ = VK_NULL_HANDLE;
    VkPipelineCache cache_ = VK_NULL_HANDLE;
    std::mutex mutex_;
    std::map<std::pair<std::string, uint32_t>, VkPipeline> pipelines_;
    std::map<std::string, VkShaderModule> modules_;
    int created_ = 0;
    bool dirty_ = false;
};

// The folder for the pipeline cache ("" when none can be found).
std::filesystem::path cache_dir();

}  // namespace hearth::backend::vk
