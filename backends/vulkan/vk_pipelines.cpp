#include "vk_pipelines.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <system_error>

#include "vk_context.h"
#include "vk_shaders.h"

namespace hearth::backend::vk {

namespace fs = std::filesystem;

namespace {

// Our header: magic, version, payload size, FNV-1a 64 of the payload (little-endian fields).
constexpr char kMagic[8] = {'H', 'E', 'A', 'R', 'T', 'H', 'P', 'C'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeader = 8 + 4 + 4 + 8 + 8;
// The driver's own header (VkPipelineCacheHeaderVersionOne): length, version, vendor, device,
// pipelineCacheUUID.
constexpr size_t kDriverHeader = 16 + VK_UUID_SIZE;

uint64_t fnv1a(std::span<const char> bytes) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (char c : bytes) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001b3ull;
    }
    return h;
}

template <class T>
T load(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// v's bytes at p; returns the position after them.
template <class T>
char* store(char* p, T v) {
    std::memcpy(p, &v, sizeof v);
    return p + sizeof v;
}

bool env_on(const char* name) {
    const char* v = std::getenv(name);
    return v && *v && std::strcmp(v, "0") != 0;
}

}  // namespace

fs::path cache_dir() {
    if (const char* d = std::getenv("HEARTH_CACHE_DIR"); d && *d) return fs::path(d);
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "hearth";
    if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "hearth";
    return {};
}

std::vector<char> wrap_cache(std::span<const char> driver_data) {
    // Sized once and filled in place (growing it field by field, GCC 12 at -O3 warned of
    // out-of-bounds copies that cannot happen).
    std::vector<char> out(kHeader + driver_data.size());
    char* p = out.data();
    std::memcpy(p, kMagic, sizeof kMagic);
    p = store<uint32_t>(p + sizeof kMagic, kVersion);
    p = store<uint32_t>(p, 0);
    p = store<uint64_t>(p, driver_data.size());
    p = store<uint64_t>(p, fnv1a(driver_data));
    if (!driver_data.empty()) std::memcpy(p, driver_data.data(), driver_data.size());
    return out;
}

Result<std::vector<char>> unwrap_cache(std::span<const char> file,
                                       const VkPhysicalDeviceProperties& props) {
    using R = Result<std::vector<char>>;
    if (file.size() < kHeader || std::memcmp(file.data(), kMagic, sizeof kMagic) != 0)
        return R::error("not a Hearth pipeline cache (" + std::to_string(file.size()) + " bytes)");
    if (load<uint32_t>(file.data() + 8) != kVersion) return R::error("another format version");
    const uint64_t size = load<uint64_t>(file.data() + 16);
    if (size != file.size() - kHeader)
        return R::error("truncated or padded: " + std::to_string(file.size() - kHeader) +
                        " bytes of data, the header says " + std::to_string(size));
    const std::span<const char> data = file.subspan(kHeader);
    if (fnv1a(data) != load<uint64_t>(file.data() + 24)) return R::error("checksum mismatch");
    if (data.size() < kDriverHeader || load<uint32_t>(data.data()) < kDriverHeader ||
        load<uint32_t>(data.data() + 4) != VK_PIPELINE_CACHE_HEADER_VERSION_ONE)
        return R::error("the driver data has no valid header");
    if (load<uint32_t>(data.data() + 8) != props.vendorID ||
        load<uint32_t>(data.data() + 12) != props.deviceID ||
        std::memcmp(data.data() + 16, props.pipelineCacheUUID, VK_UUID_SIZE) != 0)
        return R::error("written by another device or driver");
    return std::vector<char>(data.begin(), data.end());
}

Pipelines::Pipelines(VkDevice device, const VkPhysicalDeviceProperties& props, fs::path cache_file,
                     bool feedback)
    : device_(device), props_(props), cache_file_(std::move(cache_file)), feedback_(feedback) {}

Pipelines::~Pipelines() {
    save();
    if (env_on("HEARTH_VULKAN_PIPELINE_STATS"))
        std::fprintf(stderr,
                     "vulkan pipelines: %d created, %d cache hits, %d with creation feedback; "
                     "cache %s: %zu bytes loaded, %s\n",
                     created_, cache_hits_, feedback_valid_,
                     cache_file_.empty() ? "(none)" : cache_file_.string().c_str(),
                     loaded_at_start_, saved_.c_str());
    for (auto& [k, p] : pipelines_) vkDestroyPipeline(device_, p, nullptr);
    for (auto& [k, m] : modules_) vkDestroyShaderModule(device_, m, nullptr);
    if (cache_) vkDestroyPipelineCache(device_, cache_, nullptr);
    if (layout_) vkDestroyPipelineLayout(device_, layout_, nullptr);
    if (set_layout_) vkDestroyDescriptorSetLayout(device_, set_layout_, nullptr);
}

Status Pipelines::init() {
    VkDescriptorSetLayoutBinding b[kBindings] = {};
    for (uint32_t i = 0; i < kBindings; ++i) {
        b[i].binding = i;
        b[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        b[i].descriptorCount = 1;
        b[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo sl{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    sl.bindingCount = kBindings;
    sl.pBindings = b;
    if (VkResult r = vkCreateDescriptorSetLayout(device_, &sl, nullptr, &set_layout_); r)
        return Status::error(vk_error("vkCreateDescriptorSetLayout", r));
    VkPushConstantRange pr{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(Push)};
    VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pl.setLayoutCount = 1;
    pl.pSetLayouts = &set_layout_;
    pl.pushConstantRangeCount = 1;
    pl.pPushConstantRanges = &pr;
    if (VkResult r = vkCreatePipelineLayout(device_, &pl, nullptr, &layout_); r)
        return Status::error(vk_error("vkCreatePipelineLayout", r));
    if (!cache_file_.empty()) {
        std::error_code ec;
        if (fs::exists(cache_file_, ec)) {
            std::ifstream in(cache_file_, std::ios::binary);
            std::vector<char> file(std::istreambuf_iterator<char>(in), {});
            auto data = unwrap_cache(file, props_);
            if (data)
                loaded_ = std::move(*data);
            else  // rebuilt from scratch and overwritten when the device goes
                std::fprintf(stderr, "hearth: the Vulkan pipeline cache %s is ignored: %s\n",
                             cache_file_.string().c_str(), data.error_message().c_str());
        }
    }
    VkPipelineCacheCreateInfo cc{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    cc.initialDataSize = loaded_.size();
    cc.pInitialData = loaded_.empty() ? nullptr : loaded_.data();
    if (vkCreatePipelineCache(device_, &cc, nullptr, &cache_) != VK_SUCCESS) {
        std::fprintf(stderr, "hearth: the driver refused the Vulkan pipeline cache %s\n",
                     cache_file_.string().c_str());
        loaded_.clear();
        cc.initialDataSize = 0;
        cc.pInitialData = nullptr;
        if (VkResult r = vkCreatePipelineCache(device_, &cc, nullptr, &cache_); r)
            return Status::error(vk_error("vkCreatePipelineCache", r));
    }
    loaded_at_start_ = loaded_.size();
    return Status::ok();
}

Result<VkPipeline> Pipelines::get(const std::string& name, uint32_t fmt) {
    std::lock_guard lock(mutex_);
    const auto key = std::make_pair(name, fmt);
    if (auto it = pipelines_.find(key); it != pipelines_.end()) return it->second;
    VkShaderModule& module = modules_[name];
    if (!module) {
        const ShaderCode* code = find_shader(name);
        if (!code) return Result<VkPipeline>::error("no shader named " + name);
        VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
        mi.codeSize = code->bytes;
        mi.pCode = code->words;
        if (VkResult r = vkCreateShaderModule(device_, &mi, nullptr, &module); r) {
            modules_.erase(name);
            return Result<VkPipeline>::error(vk_error("vkCreateShaderModule", r));
        }
    }
    VkSpecializationMapEntry entry{0, 0, sizeof(uint32_t)};
    VkSpecializationInfo spec{1, &entry, sizeof(uint32_t), &fmt};
    VkPipelineCreationFeedbackEXT fb{}, stage_fb{};
    VkPipelineCreationFeedbackCreateInfoEXT fci{
        VK_STRUCTURE_TYPE_PIPELINE_CREATION_FEEDBACK_CREATE_INFO_EXT};
    fci.pPipelineCreationFeedback = &fb;
    fci.pipelineStageCreationFeedbackCount = 1;
    fci.pPipelineStageCreationFeedbacks = &stage_fb;
    VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    ci.pNext = feedback_ ? &fci : nullptr;
    ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    ci.stage.module = module;
    ci.stage.pName = "main";
    ci.stage.pSpecializationInfo = &spec;
    ci.layout = layout_;
    VkPipeline p = VK_NULL_HANDLE;
    if (VkResult r = vkCreateComputePipelines(device_, cache_, 1, &ci, nullptr, &p); r)
        return Result<VkPipeline>::error(vk_error("vkCreateComputePipelines", r));
    pipelines_[key] = p;
    ++created_;
    if (fb.flags & VK_PIPELINE_CREATION_FEEDBACK_VALID_BIT_EXT) {
        ++feedback_valid_;
        if (fb.flags & VK_PIPELINE_CREATION_FEEDBACK_APPLICATION_PIPELINE_CACHE_HIT_BIT_EXT)
            ++cache_hits_;
    }
    return p;
}

void Pipelines::save() {
    std::lock_guard lock(mutex_);
    if (!cache_ || cache_file_.empty()) {
        saved_ = "not saved (no cache folder)";
        return;
    }
    size_t size = 0;
    if (vkGetPipelineCacheData(device_, cache_, &size, nullptr) != VK_SUCCESS || size == 0) {
        saved_ = "not saved (the driver returned no data)";
        return;
    }
    std::vector<char> data(size);
    if (vkGetPipelineCacheData(device_, cache_, &size, data.data()) != VK_SUCCESS) {
        saved_ = "not saved (vkGetPipelineCacheData failed)";
        return;
    }
    data.resize(size);
    // Nothing new since it was read (a second start that compiled nothing): the file stays.
    if (data == loaded_) {
        saved_ = "file unchanged (" + std::to_string(size) + " bytes of data)";
        return;
    }
    const std::vector<char> file = wrap_cache(data);
    std::error_code ec;
    fs::create_directories(cache_file_.parent_path(), ec);
    // Written beside and renamed: a crash mid-write leaves the old cache, never half a file.
    const fs::path tmp = cache_file_.string() + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (out) out.write(file.data(), static_cast<std::streamsize>(file.size()));
        if (!out) {
            saved_ = "not saved (cannot write " + tmp.string() + ")";
            return;
        }
    }
    fs::rename(tmp, cache_file_, ec);
    if (ec) {
        saved_ = "not saved (" + ec.message() + ")";
        return;
    }
    loaded_ = std::move(data);
    saved_ = "written (" + std::to_string(size) + " bytes of data)";
}

}  // namespace hearth::backend::vk
