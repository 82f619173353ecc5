// Compute pipelines: one descriptor-set layout (eight storage buffers) and one pipeline layout
// (128 bytes of push constants) for every kernel; a pipeline per (kernel, format) made on
// first use from the embedded SPIR-V with the format as specialization constant 0.
//
// The VkPipelineCache is loaded from and saved to the cache folder (HEARTH_CACHE_DIR, which the
// desktop app sets to its own cache folder; else $XDG_CACHE_HOME/hearth or ~/.cache/hearth), so
// on a driver that keeps compiled pipelines in it a second start compiles nothing. The file
// wraps the driver's data in a header of our own (magic, payload size, FNV-1a checksum), and the
// driver's header (vendor, device, cache UUID) is checked too: a truncated, corrupt or foreign
// file is ignored with a line on stderr and the cache starts empty; a driver is never handed
// bytes it did not write. The file is rewritten only when the data changed.
// HEARTH_VULKAN_PIPELINE_STATS=1 prints, when the device goes, how many pipelines were made and
// how many the driver reported as cache hits (VK_EXT_pipeline_creation_feedback).
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

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
    // `feedback`: the device enabled VK_EXT_pipeline_creation_feedback.
    Pipelines(VkDevice device, const VkPhysicalDeviceProperties& props,
              std::filesystem::path cache_file, bool feedback);
    ~Pipelines();
    Status init();

    VkDescriptorSetLayout set_layout() const { return set_layout_; }
    VkPipelineLayout layout() const { return layout_; }
    // The pipeline of kernel `name` (a shader of vk_shaders) for format `fmt`.
    Result<VkPipeline> get(const std::string& name, uint32_t fmt);
    // Writes the pipeline cache when its data changed (also done by the destructor).
    void save();

private:
    VkDevice device_;
    VkPhysicalDeviceProperties props_;
    std::filesystem::path cache_file_;
    bool feedback_;
    VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
    VkPipelineLayout layout_ = VK_NULL_HANDLE;
    VkPipelineCache cache_ = VK_NULL_HANDLE;
    std::mutex mutex_;
    std::map<std::pair<std::string, uint32_t>, VkPipeline> pipelines_;
    std::map<std::string, VkShaderModule> modules_;
    std::vector<char> loaded_;  // the driver data in the file (empty: none or ignored)
    size_t loaded_at_start_ = 0;
    int created_ = 0, cache_hits_ = 0, feedback_valid_ = 0;
    std::string saved_;  // what save() did, for the stats line
};

// The folder for the pipeline cache ("" when none can be found).
std::filesystem::path cache_dir();

// The cache file's bytes: our header around the driver's data, and back. unwrap() returns the
// driver data, or an error saying why the file cannot be used (checked against `props`).
std::vector<char> wrap_cache(std::span<const char> driver_data);
Result<std::vector<char>> unwrap_cache(std::span<const char> file,
                                       const VkPhysicalDeviceProperties& props);

}  // namespace hearth::backend::vk
