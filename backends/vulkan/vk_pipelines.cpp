#include "vk_pipelines.h"

#include <cstdlib>
#include <fstream>
#include <system_error>
#include <vector>

#include "vk_context.h"
#include "vk_shaders.h"

namespace hearth::backend::vk {

namespace fs = std::filesystem;

fs::path cache_dir() {
    if (const char* d = std::getenv("HEARTH_CACHE_DIR"); d && *d) return fs::path(d);
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "hearth";
    if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "hearth";
    return {};
}

Pipelines::Pipelines(VkDevice device, fs::path cache_file)
    : device_(device), cache_file_(std::move(cache_file)) {}

Pipelines::~Pipelines() {
    save();
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
    std::vector<char> data;
    if (!cache_file_.empty()) {
        std::ifstream in(cache_file_, std::ios::binary);
        if (in) data.assign(std::istreambuf_iterator<char>(in), {});
    }
    VkPipelineCacheCreateInfo cc{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    cc.initialDataSize = data.size();  // the driver checks the header and ignores a stale one
    cc.pInitialData = data.empty() ? nullptr : data.data();
    if (vkCreatePipelineCache(device_, &cc, nullptr, &cache_) != VK_SUCCESS) {
        cc.initialDataSize = 0;
        cc.pInitialData = nullptr;
        if (VkResult r = vkCreatePipelineCache(device_, &cc, nullptr, &cache_); r)
            return Status::error(vk_error("vkCreatePipelineCache", r));
    }
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
    VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
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
    dirty_ = true;
    return p;
}

void Pipelines::save() {
    std::lock_guard lock(mutex_);
    if (!dirty_ || !cache_ || cache_file_.empty()) return;
    size_t size = 0;
    if (vkGetPipelineCacheData(device_, cache_, &size, nullptr) != VK_SUCCESS || size == 0) return;
    std::vector<char> data(size);
    if (vkGetPipelineCacheData(device_, cache_, &size, data.data()) != VK_SUCCESS) return;
    std::error_code ec;
    fs::create_directories(cache_file_.parent_path(), ec);
    // Written beside and renamed: a crash mid-write leaves the old cache, never half a file.
    const fs::path tmp = cache_file_.string() + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) return;
        out.write(data.data(), static_cast<std::streamsize>(size));
        if (!out) return;
    }
    fs::rename(tmp, cache_file_, ec);
    if (!ec) dirty_ = false;
}

}  // namespace hearth::backend::vk
