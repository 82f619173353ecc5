// One logical Vulkan device and what every object on it shares: the queue (one submit at a
// time), device-local memory suballocated from large blocks, a host-visible staging buffer
// for uploads and downloads when the memory is not mappable, the pipelines, and the limits the
// kernels must respect (maxStorageBufferRange, which HEARTH_VULKAN_MAX_RANGE may lower so tests
// exercise the split paths with small tensors).
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "hearth/backend/buffer.h"
#include "hearth/result.h"
#include "vk_instance.h"

namespace hearth::backend::vk {

class Pipelines;

// A VkDeviceMemory with one VkBuffer over all of it; allocations are ranges inside.
struct Block {
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize size = 0;
    void* mapped = nullptr;                     // when the memory is host-visible
    std::map<VkDeviceSize, VkDeviceSize> free;  // offset -> size
    VkDeviceSize used = 0;
};

struct Allocation {
    Block* block = nullptr;
    VkDeviceSize offset = 0;
    VkDeviceSize size = 0;
};

class Context {
public:
    static Result<std::shared_ptr<Context>> create(std::shared_ptr<Instance> instance,
                                                   const PhysicalDevice& pd);
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    VkDevice device() const { return device_; }
    const PhysicalDevice& physical() const { return pd_; }
    Pipelines& pipelines() { return *pipelines_; }
    // The largest range one storage-buffer binding may cover, and binding offset alignment.
    VkDeviceSize max_range() const { return max_range_; }
    VkDeviceSize offset_alignment() const { return offset_align_; }
    bool use_subgroups() const { return use_subgroups_; }
    // Kernels that read halves as float16_t (HEARTH_VULKAN_NO_16BIT=1: the 32-bit unpacking).
    bool use_f16_storage() const { return use_f16_storage_; }
    // Q8_0/Q4_0 MatMul on 8-bit activations with integer dot products (HEARTH_VULKAN_NO_INT_DOT=1:
    // the float kernel).
    bool use_int_dot() const { return use_int_dot_; }

    // Device-local memory (zeroed), or an error naming the size (out of device memory).
    Result<Allocation> allocate(VkDeviceSize bytes);
    // A small host-visible, coherent, mapped allocation of its own (zeroed) that kernels can
    // also bind: words the host reads after a submit without a copy (index errors).
    Result<Allocation> allocate_host(VkDeviceSize bytes);
    void release(const Allocation& a);
    uint64_t allocated_bytes() const { return allocated_.load(); }
    // Bumped whenever a block is destroyed: descriptor sets naming its buffer are stale.
    uint64_t block_generation() const { return generation_.load(); }

    Status upload(const Allocation& a, VkDeviceSize offset, std::span<const std::byte> bytes);
    Status download(const Allocation& a, VkDeviceSize offset, std::span<std::byte> bytes);
    Status copy(const Allocation& dst, VkDeviceSize dst_off, const Allocation& src,
                VkDeviceSize src_off, VkDeviceSize n);

    // Records commands into a one-time command buffer, submits it and waits (transfers).
    Status run_once(const std::function<void(VkCommandBuffer)>& record);
    // Submits a recorded command buffer on the queue and waits for `fence`.
    Status submit_and_wait(VkCommandBuffer cb, VkFence fence);
    // A validation message since the last check, as an error (tests fail on any).
    Status check_validation(const char* what) const;

    // A 256-byte zeroed allocation bound to unused slots of a descriptor set.
    const Allocation& dummy() const { return dummy_; }

private:
    Context() = default;
    Result<Block*> new_block(VkDeviceSize size, bool host = false);
    void destroy_block(Block* b);
    Status ensure_staging(VkDeviceSize bytes);

    std::shared_ptr<Instance> instance_;
    PhysicalDevice pd_;
    VkDevice device_ = VK_NULL_HANDLE;
    VkQueue queue_ = VK_NULL_HANDLE;
    std::mutex queue_mutex_;
    std::unique_ptr<Pipelines> pipelines_;
    VkDeviceSize max_range_ = 0, offset_align_ = 256;
    bool use_subgroups_ = false;
    bool use_f16_storage_ = false;
    bool use_int_dot_ = false;
    bool force_staging_ = false;
    uint32_t device_type_ = 0;  // memory type index for blocks
    bool device_mappable_ = false;
    uint32_t staging_type_ = 0;

    std::mutex alloc_mutex_;
    std::vector<std::unique_ptr<Block>> blocks_;
    std::atomic<uint64_t> allocated_{0};
    std::atomic<uint64_t> generation_{0};
    Allocation dummy_;

    // One-shot transfers (under transfer_mutex_).
    std::mutex transfer_mutex_;
    VkCommandPool transfer_pool_ = VK_NULL_HANDLE;
    VkCommandBuffer transfer_cb_ = VK_NULL_HANDLE;
    VkFence transfer_fence_ = VK_NULL_HANDLE;
    VkBuffer staging_ = VK_NULL_HANDLE;
    VkDeviceMemory staging_memory_ = VK_NULL_HANDLE;
    void* staging_map_ = nullptr;
    VkDeviceSize staging_size_ = 0;
};

// Device memory of the Vulkan backend: an allocation inside a block.
class VkBuf final : public Buffer {
public:
    VkBuf(std::shared_ptr<Context> ctx, Allocation a, size_t size, bool read_only)
        : ctx_(std::move(ctx)), a_(a), size_(size), read_only_(read_only) {}
    ~VkBuf() override { ctx_->release(a_); }

    size_t size() const override { return size_; }
    std::byte* host_data() override { return nullptr; }
    bool read_only() const override { return read_only_; }
    Status write(size_t offset, std::span<const std::byte> bytes) override;
    Status read(size_t offset, std::span<std::byte> bytes) const override;
    Status copy_from(size_t offset, const Buffer& src, size_t src_offset, size_t n) override;

    const Context* context() const { return ctx_.get(); }
    const Allocation& allocation() const { return a_; }

private:
    std::shared_ptr<Context> ctx_;
    Allocation a_;
    size_t size_;
    bool read_only_;
};

std::string vk_error(const char* what, VkResult r);

}  // namespace hearth::backend::vk
