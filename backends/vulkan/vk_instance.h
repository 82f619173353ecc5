// The process's Vulkan instance (through the system loader) and the physical devices it sees,
// ranked and described for the registry's probe rows. With HEARTH_VULKAN_VALIDATION=1 the
// instance enables VK_LAYER_KHRONOS_validation and a debug messenger that records every warning
// and error; the device turns them into failed Statuses (tests fail on any of them).
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hearth/backend/plugin.h"
#include "hearth/result.h"

namespace hearth::backend::vk {

class Instance {
public:
    ~Instance();
    Instance(const Instance&) = delete;
    Instance& operator=(const Instance&) = delete;

    // The shared instance, created on first use (an error when no loader or driver is there,
    // or when validation is asked for and the layer is missing).
    static Result<std::shared_ptr<Instance>> get();

    VkInstance handle() const { return instance_; }
    bool validation() const { return messenger_ != VK_NULL_HANDLE; }

private:
    Instance() = default;
    VkInstance instance_ = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
};

// Warnings and errors the validation layer reported since the last call, joined ("" if none).
std::string take_validation_messages();

// What the probe reports about one physical device, and what device creation needs.
struct PhysicalDevice {
    VkPhysicalDevice handle = VK_NULL_HANDLE;
    VkPhysicalDeviceProperties props{};
    std::string name;         // "vulkan0"
    std::string description;  // hardware, driver, heaps, subgroup size, features used
    HearthDeviceKind kind = HEARTH_DEVICE_DISCRETE_GPU;
    int32_t score = 0;
    uint64_t total_bytes = 0, free_bytes = 0;
    bool usable = true;
    std::string reason;
    uint32_t queue_family = 0;
    uint32_t subgroup_size = 0;
    bool subgroup_shuffle = false;   // in compute shaders, subgroups of 8 or more
    bool memory_budget = false;      // VK_EXT_memory_budget
    bool creation_feedback = false;  // VK_EXT_pipeline_creation_feedback (pipeline cache hits)
    bool storage16 = false;          // storageBuffer16BitAccess: halves read as float16_t
    bool int_dot = false;  // VK_KHR_shader_integer_dot_product: Q8_0/Q4_0 on 8-bit activations
};

// Every physical device in the loader's order. HEARTH_VULKAN_DEVICE (an index or part of a
// name) marks every other device unusable, with that reason.
std::vector<PhysicalDevice> list_physical_devices(const Instance& instance);

// Device-local bytes free now (the budget extension when present, else heap size minus use).
uint64_t device_free_bytes(const PhysicalDevice& pd);

}  // namespace hearth::backend::vk
