// The logical device, memory blocks and their suballocation, and host <-> device transfers.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/host_memory.h"
#include "vk_context.h"
#include "vk_pipelines.h"

namespace hearth::backend::vk {

namespace {

constexpr VkDeviceSize kBlockSize = 64ull << 20;  // suballocated blocks
constexpr VkDeviceSize kDedicated = 16ull << 20;  // larger allocations get their own block
constexpr VkDeviceSize kAlign = 256;              // >= every minStorageBufferOffsetAlignment
constexpr VkDeviceSize kStagingMax = 16ull << 20;

VkDeviceSize round_up(VkDeviceSize v, VkDeviceSize a) {
    return (v + a - 1) / a * a;
}

bool env_on(const char* name) {
    const char* v = std::getenv(name);
    return v && *v && std::strcmp(v, "0") != 0;
}

// The first memory type allowed by `bits` that has every flag of `want`.
int find_type(const VkPhysicalDeviceMemoryProperties& mp, uint32_t bits,
              VkMemoryPropertyFlags want) {
    for (uint32_t i = 0; i < mp.memoryTypeCount; ++i)
        if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want)
            return static_cast<int>(i);
    return -1;
}

}  // namespace

std::string vk_error(const char* what, VkResult r) {
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY) return std::string(what) + ": out of device memory";
    if (r == VK_ERROR_OUT_OF_HOST_MEMORY) return std::string(what) + ": out of host memory";
    if (r == VK_ERROR_DEVICE_LOST) return std::string(what) + ": the device was lost";
    return std::string(what) + " failed (VkResult " + std::to_string(r) + ")";
}

Result<std::shared_ptr<Context>> Context::create(std::shared_ptr<Instance> instance,
                                                 const PhysicalDevice& pd) {
    using R = Result<std::shared_ptr<Context>>;
    std::shared_ptr<Context> c(new Context());
    c->instance_ = std::move(instance);
    c->pd_ = pd;
    const float prio = 1.f;
    VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qi.queueFamilyIndex = pd.queue_family;
    qi.queueCount = 1;
    qi.pQueuePriorities = &prio;
    std::vector<const char*> exts;
    if (pd.memory_budget) exts.push_back(VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
    if (pd.creation_feedback) exts.push_back(VK_EXT_PIPELINE_CREATION_FEEDBACK_EXTENSION_NAME);
    if (pd.int_dot) exts.push_back(VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME);
    const bool f16_storage = pd.storage16;
    VkPhysicalDevice16BitStorageFeatures s16{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
    s16.storageBuffer16BitAccess = f16_storage ? VK_TRUE : VK_FALSE;
    VkPhysicalDeviceShaderIntegerDotProductFeaturesKHR dot{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES_KHR};
    dot.shaderIntegerDotProduct = VK_TRUE;
    if (pd.int_dot) s16.pNext = &dot;
    VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    di.pNext = &s16;
    di.queueCreateInfoCount = 1;
    di.pQueueCreateInfos = &qi;
    di.enabledExtensionCount = static_cast<uint32_t>(exts.size());
    di.ppEnabledExtensionNames = exts.data();
    if (VkResult r = vkCreateDevice(pd.handle, &di, nullptr, &c->device_); r) {
        c->device_ = VK_NULL_HANDLE;
        return R::error(vk_error("vkCreateDevice", r));
    }
    vkGetDeviceQueue(c->device_, pd.queue_family, 0, &c->queue_);

    const auto& lim = pd.props.limits;
    c->offset_align_ = std::max<VkDeviceSize>(lim.minStorageBufferOffsetAlignment, 4);
    c->max_range_ = lim.maxStorageBufferRange;
    // Tests lower the binding limit to exercise the split paths with small tensors.
    const uint64_t test_range = env_bytes("HEARTH_VULKAN_MAX_RANGE", 0);
    if (test_range) c->max_range_ = std::min<VkDeviceSize>(c->max_range_, test_range);
    c->max_range_ = c->max_range_ / 4 * 4;
    c->use_subgroups_ = pd.subgroup_shuffle && !env_on("HEARTH_VULKAN_NO_SUBGROUPS");
    c->use_f16_storage_ = f16_storage;
    c->use_int_dot_ = pd.int_dot;
    c->force_staging_ = env_on("HEARTH_VULKAN_STAGING");

    // Memory types: device-local for blocks (mappable on UMA/lavapipe: used directly unless
    // HEARTH_VULKAN_STAGING), host-visible coherent for staging.
    VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = kAlign;
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VkBuffer probe = VK_NULL_HANDLE;
    if (VkResult r = vkCreateBuffer(c->device_, &bi, nullptr, &probe); r)
        return R::error(vk_error("vkCreateBuffer", r));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(c->device_, probe, &req);
    vkDestroyBuffer(c->device_, probe, nullptr);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(pd.handle, &mp);
    int dt = find_type(mp, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (dt < 0) dt = find_type(mp, req.memoryTypeBits, 0);
    int st = find_type(mp, req.memoryTypeBits,
                       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                           VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
    if (st < 0)
        st = find_type(mp, req.memoryTypeBits,
                       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    if (dt < 0 || st < 0) return R::error("no usable memory type for storage buffers");
    c->device_type_ = static_cast<uint32_t>(dt);
    c->staging_type_ = static_cast<uint32_t>(st);
    const VkMemoryPropertyFlags df = mp.memoryTypes[dt].propertyFlags;
    c->device_mappable_ = (df & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) &&
                          (df & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) && !c->force_staging_;

    VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pi.queueFamilyIndex = pd.queue_family;
    if (VkResult r = vkCreateCommandPool(c->device_, &pi, nullptr, &c->transfer_pool_); r)
        return R::error(vk_error("vkCreateCommandPool", r));
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = c->transfer_pool_;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    if (VkResult r = vkAllocateCommandBuffers(c->device_, &ai, &c->transfer_cb_); r)
        return R::error(vk_error("vkAllocateCommandBuffers", r));
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (VkResult r = vkCreateFence(c->device_, &fi, nullptr, &c->transfer_fence_); r)
        return R::error(vk_error("vkCreateFence", r));

    std::filesystem::path cache_file;
    if (const auto dir = cache_dir(); !dir.empty()) {
        char name[96];
        std::snprintf(name, sizeof name, "vulkan-pipelines-%04x-%04x-%08x.bin", pd.props.vendorID,
                      pd.props.deviceID, pd.props.driverVersion);
        cache_file = dir / name;
    }
    c->pipelines_ =
        std::make_unique<Pipelines>(c->device_, pd.props, cache_file, pd.creation_feedback);
    if (Status s = c->pipelines_->init(); !s) return s;
    auto dummy = c->allocate(kAlign);
    if (!dummy) return dummy.status();
    c->dummy_ = *dummy;
    if (Status s = c->check_validation("device creation"); !s) return s;
    return c;
}

Context::~Context() {
    if (!device_) return;
    vkDeviceWaitIdle(device_);
    pipelines_.reset();
    if (dummy_.block) release(dummy_);
    for (auto& b : blocks_) destroy_block(b.get());
    blocks_.clear();
    if (staging_) vkDestroyBuffer(device_, staging_, nullptr);
    if (staging_memory_) vkFreeMemory(device_, staging_memory_, nullptr);
    if (transfer_fence_) vkDestroyFence(device_, transfer_fence_, nullptr);
    if (transfer_pool_) vkDestroyCommandPool(device_, transfer_pool_, nullptr);
    vkDestroyDevice(device_, nullptr);
}

Status Context::check_validation(const char* what) const {
    if (!instance_->validation()) return Status::ok();
    const std::string m = take_validation_messages();
    if (m.empty()) return Status::ok();
    return Status::error(std::string("Vulkan validation (") + what + "): " + m);
}

Result<Block*> Context::new_block(VkDeviceSize size, bool host) {
    auto b = std::make_unique<Block>();
    b->size = size;
    VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = size;
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    if (VkResult r = vkCreateBuffer(device_, &bi, nullptr, &b->buffer); r)
        return Result<Block*>::error(vk_error("vkCreateBuffer", r));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device_, b->buffer, &req);
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = host ? staging_type_ : device_type_;
    if (VkResult r = vkAllocateMemory(device_, &ai, nullptr, &b->memory); r) {
        vkDestroyBuffer(device_, b->buffer, nullptr);
        char mib[32];
        std::snprintf(mib, sizeof mib, "%.1f MiB", double(size) / double(1 << 20));
        return Result<Block*>::error(pd_.name + ": cannot allocate " + mib + " (" +
                                     vk_error("vkAllocateMemory", r) + ")");
    }
    vkBindBufferMemory(device_, b->buffer, b->memory, 0);
    if ((host || device_mappable_) &&
        vkMapMemory(device_, b->memory, 0, VK_WHOLE_SIZE, 0, &b->mapped) != VK_SUCCESS)
        b->mapped = nullptr;
    if (host && !b->mapped) {
        vkDestroyBuffer(device_, b->buffer, nullptr);
        vkFreeMemory(device_, b->memory, nullptr);
        return Result<Block*>::error(pd_.name + ": cannot map host-visible memory");
    }
    b->free[0] = size;
    blocks_.push_back(std::move(b));
    return blocks_.back().get();
}

void Context::destroy_block(Block* b) {
    if (b->mapped) vkUnmapMemory(device_, b->memory);
    vkDestroyBuffer(device_, b->buffer, nullptr);
    vkFreeMemory(device_, b->memory, nullptr);
    ++generation_;
}

Result<Allocation> Context::allocate(VkDeviceSize bytes) {
    using R = Result<Allocation>;
    const VkDeviceSize size = round_up(std::max<VkDeviceSize>(bytes, 4), kAlign);
    Allocation a;
    {
        std::lock_guard lock(alloc_mutex_);
        if (size > pd_.total_bytes && pd_.total_bytes)
            return R::error(pd_.name + ": " + std::to_string(size) +
                            " bytes is more than the device has");
        if (size < kDedicated) {
            for (auto& b : blocks_) {
                if (b->size != kBlockSize) continue;
                for (auto it = b->free.begin(); it != b->free.end(); ++it) {
                    if (it->second < size) continue;
                    a = {b.get(), it->first, size};
                    const VkDeviceSize rest = it->second - size, at = it->first + size;
                    b->free.erase(it);
                    if (rest) b->free[at] = rest;
                    break;
                }
                if (a.block) break;
            }
        }
        if (!a.block) {
            auto b = new_block(size < kDedicated ? kBlockSize : size);
            if (!b) return b.status();
            Block* blk = *b;
            a = {blk, 0, size};
            blk->free.clear();
            if (blk->size > size) blk->free[size] = blk->size - size;
        }
        a.block->used += size;
    }
    allocated_ += size;
    // Fresh memory is zeroed (Device::allocate promises it).
    if (a.block->mapped) {
        std::memset(static_cast<std::byte*>(a.block->mapped) + a.offset, 0, size);
    } else {
        Status s = run_once(
            [&](VkCommandBuffer cb) { vkCmdFillBuffer(cb, a.block->buffer, a.offset, size, 0); });
        if (!s) {
            release(a);
            return s;
        }
    }
    return a;
}

Result<Allocation> Context::allocate_host(VkDeviceSize bytes) {
    const VkDeviceSize size = round_up(std::max<VkDeviceSize>(bytes, 4), kAlign);
    std::lock_guard lock(alloc_mutex_);
    auto b = new_block(size, true);  // its own block: never suballocated (size != kBlockSize)
    if (!b) return b.status();
    Block* blk = *b;
    blk->free.clear();
    blk->used = size;
    allocated_ += size;
    std::memset(blk->mapped, 0, size);
    return Allocation{blk, 0, size};
}

void Context::release(const Allocation& a) {
    if (!a.block) return;
    std::lock_guard lock(alloc_mutex_);
    Block* b = a.block;
    allocated_ -= a.size;
    b->used -= a.size;
    if (b->used == 0) {  // an empty block goes back to the driver
        auto it = std::find_if(blocks_.begin(), blocks_.end(),
                               [&](const auto& p) { return p.get() == b; });
        destroy_block(b);
        blocks_.erase(it);
        return;
    }
    // Insert and merge with the free neighbours.
    auto [it, ok] = b->free.emplace(a.offset, a.size);
    if (auto next = std::next(it); next != b->free.end() && it->first + it->second == next->first) {
        it->second += next->second;
        b->free.erase(next);
    }
    if (it != b->free.begin()) {
        auto prev = std::prev(it);
        if (prev->first + prev->second == it->first) {
            prev->second += it->second;
            b->free.erase(it);
        }
    }
}

Status Context::submit_and_wait(VkCommandBuffer cb, VkFence fence) {
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    {
        std::lock_guard lock(queue_mutex_);
        if (VkResult r = vkQueueSubmit(queue_, 1, &si, fence); r)
            return Status::error(vk_error("vkQueueSubmit", r));
    }
    if (VkResult r = vkWaitForFences(device_, 1, &fence, VK_TRUE, UINT64_MAX); r)
        return Status::error(vk_error("vkWaitForFences", r));
    vkResetFences(device_, 1, &fence);
    return Status::ok();
}

Status Context::run_once(const std::function<void(VkCommandBuffer)>& record) {
    std::lock_guard lock(transfer_mutex_);
    vkResetCommandBuffer(transfer_cb_, 0);
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vkBeginCommandBuffer(transfer_cb_, &bi);
    record(transfer_cb_);
    vkEndCommandBuffer(transfer_cb_);
    if (Status s = submit_and_wait(transfer_cb_, transfer_fence_); !s) return s;
    return check_validation("transfer");
}

Status Context::ensure_staging(VkDeviceSize bytes) {
    if (staging_size_ >= bytes) return Status::ok();
    if (staging_) {
        vkDestroyBuffer(device_, staging_, nullptr);
        vkFreeMemory(device_, staging_memory_, nullptr);
        staging_ = VK_NULL_HANDLE;
        staging_memory_ = VK_NULL_HANDLE;
        staging_size_ = 0;
    }
    VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = bytes;
    bi.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    if (VkResult r = vkCreateBuffer(device_, &bi, nullptr, &staging_); r)
        return Status::error(vk_error("vkCreateBuffer (staging)", r));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device_, staging_, &req);
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = staging_type_;
    if (VkResult r = vkAllocateMemory(device_, &ai, nullptr, &staging_memory_); r) {
        vkDestroyBuffer(device_, staging_, nullptr);
        staging_ = VK_NULL_HANDLE;
        return Status::error(vk_error("vkAllocateMemory (staging)", r));
    }
    vkBindBufferMemory(device_, staging_, staging_memory_, 0);
    if (VkResult r = vkMapMemory(device_, staging_memory_, 0, VK_WHOLE_SIZE, 0, &staging_map_); r)
        return Status::error(vk_error("vkMapMemory (staging)", r));
    staging_size_ = bytes;
    return Status::ok();
}

Status Context::upload(const Allocation& a, VkDeviceSize offset, std::span<const std::byte> bytes) {
    if (bytes.empty()) return Status::ok();
    if (a.block->mapped) {
        std::memcpy(static_cast<std::byte*>(a.block->mapped) + a.offset + offset, bytes.data(),
                    bytes.size());
        return Status::ok();
    }
    std::lock_guard lock(transfer_mutex_);
    if (Status s = ensure_staging(std::min<VkDeviceSize>(bytes.size(), kStagingMax)); !s) return s;
    for (VkDeviceSize done = 0; done < bytes.size();) {
        const VkDeviceSize n = std::min<VkDeviceSize>(bytes.size() - done, staging_size_);
        std::memcpy(staging_map_, bytes.data() + done, n);
        vkResetCommandBuffer(transfer_cb_, 0);
        VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        vkBeginCommandBuffer(transfer_cb_, &bi);
        VkBufferCopy region{0, a.offset + offset + done, n};
        vkCmdCopyBuffer(transfer_cb_, staging_, a.block->buffer, 1, &region);
        vkEndCommandBuffer(transfer_cb_);
        if (Status s = submit_and_wait(transfer_cb_, transfer_fence_); !s) return s;
        done += n;
    }
    return check_validation("upload");
}

Status Context::download(const Allocation& a, VkDeviceSize offset, std::span<std::byte> bytes) {
    if (bytes.empty()) return Status::ok();
    if (a.block->mapped) {
        std::memcpy(bytes.data(),
                    static_cast<const std::byte*>(a.block->mapped) + a.offset + offset,
                    bytes.size());
        return Status::ok();
    }
    std::lock_guard lock(transfer_mutex_);
    if (Status s = ensure_staging(std::min<VkDeviceSize>(bytes.size(), kStagingMax)); !s) return s;
    for (VkDeviceSize done = 0; done < bytes.size();) {
        const VkDeviceSize n = std::min<VkDeviceSize>(bytes.size() - done, staging_size_);
        vkResetCommandBuffer(transfer_cb_, 0);
        VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        vkBeginCommandBuffer(transfer_cb_, &bi);
        VkBufferCopy region{a.offset + offset + done, 0, n};
        vkCmdCopyBuffer(transfer_cb_, a.block->buffer, staging_, 1, &region);
        vkEndCommandBuffer(transfer_cb_);
        if (Status s = submit_and_wait(transfer_cb_, transfer_fence_); !s) return s;
        std::memcpy(bytes.data() + done, staging_map_, n);
        done += n;
    }
    return check_validation("download");
}

Status Context::copy(const Allocation& dst, VkDeviceSize dst_off, const Allocation& src,
                     VkDeviceSize src_off, VkDeviceSize n) {
    if (n == 0) return Status::ok();
    return run_once([&](VkCommandBuffer cb) {
        VkBufferCopy region{src.offset + src_off, dst.offset + dst_off, n};
        vkCmdCopyBuffer(cb, src.block->buffer, dst.block->buffer, 1, &region);
    });
}

Status VkBuf::write(size_t offset, std::span<const std::byte> bytes) {
    if (read_only_) return Status::error("vulkan: write to a read-only buffer");
    if (offset > size_ || bytes.size() > size_ - offset)
        return Status::error("vulkan: write outside the buffer");
    return ctx_->upload(a_, offset, bytes);
}

Status VkBuf::read(size_t offset, std::span<std::byte> bytes) const {
    if (offset > size_ || bytes.size() > size_ - offset)
        return Status::error("vulkan: read outside the buffer");
    return ctx_->download(a_, offset, bytes);
}

Status VkBuf::copy_from(size_t offset, const Buffer& src, size_t src_offset, size_t n) {
    const auto* s = dynamic_cast<const VkBuf*>(&src);
    if (!s || s->ctx_ != ctx_) return Buffer::copy_from(offset, src, src_offset, n);
    if (read_only_) return Status::error("vulkan: copy into a read-only buffer");
    if (offset > size_ || n > size_ - offset || src_offset > s->size_ || n > s->size_ - src_offset)
        return Status::error("vulkan: copy outside a buffer");
    if (s->a_.block == a_.block && s->a_.offset + src_offset == a_.offset + offset)
        return Status::ok();  // equal regions
    return ctx_->copy(a_, offset, s->a_, src_offset, n);
}

}  // namespace hearth::backend::vk
