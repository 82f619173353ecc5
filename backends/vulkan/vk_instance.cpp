#include "vk_instance.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "core/host_memory.h"

namespace hearth::backend::vk {

namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

std::mutex g_messages_mutex;
std::string g_messages;

VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                          VkDebugUtilsMessageTypeFlagsEXT,
                                          const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
    if (severity < VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) return VK_FALSE;
    const char* msg = data && data->pMessage ? data->pMessage : "(no message)";
    std::fprintf(stderr, "[vulkan validation] %s\n", msg);
    std::lock_guard lock(g_messages_mutex);
    if (g_messages.size() < 8192) g_messages += std::string(g_messages.empty() ? "" : "; ") + msg;
    return VK_FALSE;
}

bool env_on(const char* name) {
    const char* v = std::getenv(name);
    return v && *v && std::strcmp(v, "0") != 0;
}

bool has_layer(const char* name) {
    uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> layers(n);
    vkEnumerateInstanceLayerProperties(&n, layers.data());
    return std::any_of(layers.begin(), layers.end(), [&](const VkLayerProperties& l) {
        return std::strcmp(l.layerName, name) == 0;
    });
}

bool has_instance_extension(const char* name) {
    uint32_t n = 0;
    vkEnumerateInstanceExtensionProperties(nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> exts(n);
    vkEnumerateInstanceExtensionProperties(nullptr, &n, exts.data());
    return std::any_of(exts.begin(), exts.end(), [&](const VkExtensionProperties& e) {
        return std::strcmp(e.extensionName, name) == 0;
    });
}

bool has_device_extension(VkPhysicalDevice pd, const char* name) {
    uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> exts(n);
    vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, exts.data());
    return std::any_of(exts.begin(), exts.end(), [&](const VkExtensionProperties& e) {
        return std::strcmp(e.extensionName, name) == 0;
    });
}

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string gib(uint64_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(1ull << 30));
    return buf;
}

}  // namespace

std::string take_validation_messages() {
    std::lock_guard lock(g_messages_mutex);
    std::string out;
    out.swap(g_messages);
    return out;
}

Instance::~Instance() {
    if (messenger_) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy) destroy(instance_, messenger_, nullptr);
    }
    if (instance_) vkDestroyInstance(instance_, nullptr);
}

Result<std::shared_ptr<Instance>> Instance::get() {
    using R = Result<std::shared_ptr<Instance>>;
    static std::mutex mutex;
    static std::weak_ptr<Instance> current;
    std::lock_guard lock(mutex);
    if (auto live = current.lock()) return live;

    const bool validation = env_on("HEARTH_VULKAN_VALIDATION");
    if (validation && !has_layer(kValidationLayer))
        return R::error("HEARTH_VULKAN_VALIDATION is set but the layer " +
                        std::string(kValidationLayer) +
                        " is not installed (Debian: vulkan-validationlayers)");
    std::vector<const char*> exts, layers;
    VkInstanceCreateFlags flags = 0;
    if (validation) {
        layers.push_back(kValidationLayer);
        exts.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    }
#ifdef VK_KHR_portability_enumeration
    if (has_instance_extension(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {  // MoltenVK
        exts.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
        flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
    }
#endif
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "hearth";
    app.pEngineName = "hearth";
    app.apiVersion = VK_API_VERSION_1_1;
    VkDebugUtilsMessengerCreateInfoEXT dbg{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    dbg.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    dbg.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                      VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                      VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    dbg.pfnUserCallback = on_message;
    VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ci.pNext = validation ? &dbg : nullptr;  // also catches creation/destruction messages
    ci.flags = flags;
    ci.pApplicationInfo = &app;
    ci.enabledLayerCount = static_cast<uint32_t>(layers.size());
    ci.ppEnabledLayerNames = layers.data();
    ci.enabledExtensionCount = static_cast<uint32_t>(exts.size());
    ci.ppEnabledExtensionNames = exts.data();
    std::shared_ptr<Instance> inst(new Instance());
    const VkResult r = vkCreateInstance(&ci, nullptr, &inst->instance_);
    if (r != VK_SUCCESS) {
        inst->instance_ = VK_NULL_HANDLE;
        return R::error(r == VK_ERROR_INCOMPATIBLE_DRIVER
                            ? "no Vulkan 1.1 driver (VK_ERROR_INCOMPATIBLE_DRIVER)"
                            : "vkCreateInstance failed (VkResult " + std::to_string(r) + ")");
    }
    if (validation) {
        auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(inst->instance_, "vkCreateDebugUtilsMessengerEXT"));
        if (!create || create(inst->instance_, &dbg, nullptr, &inst->messenger_) != VK_SUCCESS)
            return R::error("could not create the validation debug messenger");
    }
    current = inst;
    return inst;
}

uint64_t device_free_bytes(const PhysicalDevice& pd) {
    VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
    VkPhysicalDeviceMemoryProperties2 mp{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2};
    if (pd.memory_budget) mp.pNext = &budget;
    vkGetPhysicalDeviceMemoryProperties2(pd.handle, &mp);
    uint64_t free = 0;
    for (uint32_t h = 0; h < mp.memoryProperties.memoryHeapCount; ++h) {
        if (!(mp.memoryProperties.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)) continue;
        const uint64_t size = mp.memoryProperties.memoryHeaps[h].size;
        if (pd.memory_budget)
            free += budget.heapBudget[h] > budget.heapUsage[h]
                        ? budget.heapBudget[h] - budget.heapUsage[h]
                        : 0;
        else
            free += size;
    }
    // A CPU-type device's memory is the host's: what is available there bounds it.
    if (pd.kind == HEARTH_DEVICE_CPU_TYPE) free = std::min(free, host_memory().free_bytes);
    return free;
}

std::vector<PhysicalDevice> list_physical_devices(const Instance& instance) {
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(instance.handle(), &n, nullptr);
    std::vector<VkPhysicalDevice> handles(n);
    vkEnumeratePhysicalDevices(instance.handle(), &n, handles.data());
    const char* pick = std::getenv("HEARTH_VULKAN_DEVICE");
    std::vector<PhysicalDevice> out;
    for (uint32_t i = 0; i < n; ++i) {
        PhysicalDevice d;
        d.handle = handles[i];
        d.name = "vulkan" + std::to_string(i);
        VkPhysicalDeviceSubgroupProperties sg{
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
        VkPhysicalDeviceDriverProperties drv{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
        const bool has_driver_props = has_device_extension(d.handle, "VK_KHR_driver_properties");
        if (has_driver_props) sg.pNext = &drv;
        VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
        p2.pNext = &sg;
        vkGetPhysicalDeviceProperties2(d.handle, &p2);
        d.props = p2.properties;
        d.subgroup_size = sg.subgroupSize;
        d.subgroup_shuffle = (sg.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                             (sg.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT) &&
                             sg.subgroupSize >= 8;
        d.memory_budget = has_device_extension(d.handle, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
        d.creation_feedback =
            has_device_extension(d.handle, VK_EXT_PIPELINE_CREATION_FEEDBACK_EXTENSION_NAME);
        {
            VkPhysicalDevice16BitStorageFeatures s16{
                VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
            VkPhysicalDeviceShaderIntegerDotProductFeaturesKHR dot{
                VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES_KHR};
            const bool has_dot =
                has_device_extension(d.handle, VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME);
            if (has_dot) s16.pNext = &dot;
            VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
            f2.pNext = &s16;
            vkGetPhysicalDeviceFeatures2(d.handle, &f2);
            // HEARTH_VULKAN_NO_16BIT=1 / NO_INT_DOT=1 (tests): the fallbacks, as on a device
            // without the feature; the description then says so too.
            d.storage16 =
                s16.storageBuffer16BitAccess == VK_TRUE && !env_on("HEARTH_VULKAN_NO_16BIT");
            d.int_dot = has_dot && dot.shaderIntegerDotProduct == VK_TRUE &&
                        !env_on("HEARTH_VULKAN_NO_INT_DOT");
        }
        switch (d.props.deviceType) {
            case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
                d.kind = HEARTH_DEVICE_DISCRETE_GPU;
                break;
            case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
                d.kind = HEARTH_DEVICE_INTEGRATED_GPU;
                break;
            case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:  // ranked after every integrated GPU
                d.kind = HEARTH_DEVICE_INTEGRATED_GPU;
                d.score -= 1 << 20;
                break;
            default:  // CPU (lavapipe, SwiftShader) or other: only when asked for by name
                d.kind = HEARTH_DEVICE_CPU_TYPE;
                break;
        }
        VkPhysicalDeviceMemoryProperties mp;
        vkGetPhysicalDeviceMemoryProperties(d.handle, &mp);
        std::string heaps;
        for (uint32_t h = 0; h < mp.memoryHeapCount; ++h) {
            const bool local = mp.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT;
            if (local) d.total_bytes += mp.memoryHeaps[h].size;
            heaps += (heaps.empty() ? "" : " + ") + gib(mp.memoryHeaps[h].size) +
                     (local ? " device-local" : " host");
        }
        d.score += static_cast<int32_t>(std::min<uint64_t>(d.total_bytes >> 20, 1 << 19));
        d.free_bytes = device_free_bytes(d);
        // A queue family with compute.
        uint32_t nq = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(d.handle, &nq, nullptr);
        std::vector<VkQueueFamilyProperties> qf(nq);
        vkGetPhysicalDeviceQueueFamilyProperties(d.handle, &nq, qf.data());
        bool found = false;
        for (uint32_t q = 0; q < nq && !found; ++q)
            if (qf[q].queueFlags & VK_QUEUE_COMPUTE_BIT) {
                d.queue_family = q;
                found = true;
            }
        const std::string driver =
            has_driver_props ? std::string(drv.driverName) + " " + drv.driverInfo : "driver ?";
        const uint32_t api = d.props.apiVersion;
        d.description = std::string(d.props.deviceName) + " · " + driver + " · Vulkan " +
                        std::to_string(VK_API_VERSION_MAJOR(api)) + "." +
                        std::to_string(VK_API_VERSION_MINOR(api)) + " · heaps " + heaps +
                        " · subgroup " + std::to_string(d.subgroup_size) + " · uses " +
                        (d.subgroup_shuffle ? "subgroup shuffles" : "shared-memory sums") +
                        (d.storage16 ? ", 16-bit storage" : "") +
                        (d.int_dot ? ", integer dot products" : "") +
                        (d.memory_budget ? ", memory budget" : "");
        if (api < VK_API_VERSION_1_1) {
            d.usable = false;
            d.reason = "Vulkan 1.1 is required (the driver reports " +
                       std::to_string(VK_API_VERSION_MAJOR(api)) + "." +
                       std::to_string(VK_API_VERSION_MINOR(api)) + ")";
        } else if (!found) {
            d.usable = false;
            d.reason = "no compute queue";
        } else if (d.props.limits.maxComputeSharedMemorySize < 16384 ||
                   d.props.limits.maxComputeWorkGroupSize[0] < 64) {
            d.usable = false;
            d.reason = "compute limits too small (needs 16 KiB shared memory, 64 threads)";
        }
        if (pick && *pick) {
            const std::string want = lower(pick);
            const bool match = want == std::to_string(i) || want == d.name ||
                               lower(d.props.deviceName).find(want) != std::string::npos;
            if (!match && d.usable) {
                d.usable = false;
                d.reason = "not the device HEARTH_VULKAN_DEVICE=" + std::string(pick) + " names";
            }
        }
        out.push_back(std::move(d));
    }
    return out;
}

}  // namespace hearth::backend::vk
