#include "vk_device.h"

#include "vk_ops.h"

namespace hearth::backend::vk {

namespace {

class VulkanDevice final : public Device {
public:
    explicit VulkanDevice(std::shared_ptr<Context> ctx) : ctx_(std::move(ctx)) {}

    std::string name() const override { return ctx_->physical().name; }
    std::string description() const override { return ctx_->physical().description; }
    MemoryInfo memory() const override {
        const PhysicalDevice& pd = ctx_->physical();
        uint64_t free = device_free_bytes(pd);
        // The budget extension already counts this process's allocations; a heap size does not.
        if (!pd.memory_budget) {
            const uint64_t used = ctx_->allocated_bytes();
            free = free > used ? free - used : 0;
        }
        return {pd.total_bytes, free};
    }
    bool supports(const Node& node) const override { return supports_node(*ctx_, node); }

    Result<std::unique_ptr<Buffer>> allocate(size_t bytes) override {
        auto a = ctx_->allocate(bytes);
        if (!a) return a.status();
        return std::unique_ptr<Buffer>(std::make_unique<VkBuf>(ctx_, *a, bytes, false));
    }
    Result<std::unique_ptr<Buffer>> import_host(std::span<const std::byte> bytes) override {
        auto a = ctx_->allocate(bytes.size());
        if (!a) return a.status();
        auto buf = std::make_unique<VkBuf>(ctx_, *a, bytes.size(), true);
        if (Status s = ctx_->upload(*a, 0, bytes); !s) return s;
        return std::unique_ptr<Buffer>(std::move(buf));
    }
    Result<std::unique_ptr<Stream>> create_stream(const StreamOptions&) override {
        return make_stream(ctx_);
    }

private:
    std::shared_ptr<Context> ctx_;
};

}  // namespace

std::unique_ptr<Device> make_device(std::shared_ptr<Context> ctx) {
    return std::make_unique<VulkanDevice>(std::move(ctx));
}

}  // namespace hearth::backend::vk
