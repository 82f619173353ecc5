// The Vulkan plugin as a device: its probe row, selection by HEARTH_VULKAN_DEVICE, memory that
// round-trips and copies on the device, read-only weights, out-of-memory as an error, honest
// supports() (ops it does not implement are refused, so placement keeps them on the CPU), and
// the pipeline cache written to HEARTH_CACHE_DIR. Skips when no Vulkan device is there.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <optional>

#include "cpu/cpu_device.h"
#include "hearth/backend/graph.h"
#include "registry.h"

namespace hearth::backend {
namespace {

class Env {
public:
    Env(const char* name, const std::string& value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        setenv(name, value.c_str(), 1);
    }
    ~Env() {
        if (old_)
            setenv(name_, old_->c_str(), 1);
        else
            unsetenv(name_);
    }

private:
    const char* name_;
    std::optional<std::string> old_;
};

const DeviceEntry* vulkan_entry(const Registry& reg) {
    for (const auto& d : reg.devices())
        if (d.backend == "vulkan" && d.usable) return &d;
    return nullptr;
}

#define REQUIRE_VULKAN(reg)                 \
    const Registry reg = Registry::probe(); \
    if (!vulkan_entry(reg)) GTEST_SKIP() << "no usable Vulkan device: " << reg.why_not("vulkan")

TEST(VulkanDevice, ProbeRowNamesDriverHeapsSubgroupAndFeatures) {
    REQUIRE_VULKAN(reg);
    const DeviceEntry& d = *vulkan_entry(reg);
    std::printf("[ info ] %s: %s\n", d.name.c_str(), d.description.c_str());
    EXPECT_EQ(d.name.rfind("vulkan", 0), 0u);
    EXPECT_NE(d.description.find(" · heaps "), std::string::npos);
    EXPECT_NE(d.description.find(" · subgroup "), std::string::npos);
    EXPECT_NE(d.description.find(" · uses "), std::string::npos);
    EXPECT_GT(d.memory.total_bytes, 0u);
    EXPECT_GT(d.memory.free_bytes, 0u);
    // A CPU-type device (lavapipe) is usable by name but never chosen automatically.
    if (d.kind == HEARTH_DEVICE_CPU_TYPE) {
        EXPECT_FALSE(d.automatic());
        EXPECT_NE(reg.best(), d.name);
    }
    auto dev = reg.create(d.name);
    ASSERT_TRUE(dev.is_ok()) << dev.error_message();
    EXPECT_EQ((*dev)->name(), d.name);
}

TEST(VulkanDevice, HearthVulkanDeviceSelectsByName) {
    REQUIRE_VULKAN(reg);
    Env env("HEARTH_VULKAN_DEVICE", "no-such-gpu");
    const Registry other = Registry::probe();
    for (const auto& d : other.devices()) {
        if (d.backend != "vulkan") continue;
        EXPECT_FALSE(d.usable);
        EXPECT_NE(d.reason.find("HEARTH_VULKAN_DEVICE=no-such-gpu"), std::string::npos) << d.reason;
    }
    EXPECT_FALSE(other.create("vulkan").is_ok());
}

TEST(VulkanDevice, BuffersRoundTripCopyAndStayReadOnly) {
    REQUIRE_VULKAN(reg);
    auto dev = std::move(reg.create("vulkan").value());
    std::vector<uint8_t> bytes(100003);
    std::iota(bytes.begin(), bytes.end(), uint8_t(7));
    auto a = dev->allocate(bytes.size());
    ASSERT_TRUE(a.is_ok()) << a.error_message();
    std::vector<uint8_t> zero(bytes.size(), 1);
    ASSERT_TRUE((*a)->read(0, std::as_writable_bytes(std::span(zero))).is_ok());
    EXPECT_EQ(std::count(zero.begin(), zero.end(), 0), std::ptrdiff_t(zero.size()));  // zeroed
    ASSERT_TRUE((*a)->write(0, std::as_bytes(std::span(bytes))).is_ok());
    auto b = dev->allocate(bytes.size());
    ASSERT_TRUE(b.is_ok());
    ASSERT_TRUE((*b)->copy_from(1, **a, 3, 5000).is_ok());
    std::vector<uint8_t> back(5000);
    ASSERT_TRUE((*b)->read(1, std::as_writable_bytes(std::span(back))).is_ok());
    EXPECT_TRUE(std::equal(back.begin(), back.end(), bytes.begin() + 3));
    EXPECT_FALSE((*a)->read(bytes.size() - 1, std::as_writable_bytes(std::span(back))).is_ok());
    EXPECT_EQ((*a)->host_data(), nullptr);
    auto w = dev->import_host(std::as_bytes(std::span(bytes)));
    ASSERT_TRUE(w.is_ok());
    EXPECT_TRUE((*w)->read_only());
    EXPECT_FALSE((*w)->write(0, std::as_bytes(std::span(bytes).first(4))).is_ok());
    std::vector<uint8_t> imported(bytes.size());
    ASSERT_TRUE((*w)->read(0, std::as_writable_bytes(std::span(imported))).is_ok());
    EXPECT_EQ(imported, bytes);
}

TEST(VulkanDevice, OutOfMemoryIsAnErrorNotACrash) {
    REQUIRE_VULKAN(reg);
    auto dev = std::move(reg.create("vulkan").value());
    const uint64_t total = dev->memory().total_bytes;
    auto huge = dev->allocate(size_t(total) * 4 + (size_t(1) << 30));
    ASSERT_FALSE(huge.is_ok());
    EXPECT_NE(huge.error_message().find(dev->name()), std::string::npos) << huge.error_message();
    EXPECT_TRUE(dev->allocate(1024).is_ok());  // the device still works
}

TEST(VulkanDevice, UnsupportedNodesAreRefusedHonestly) {
    REQUIRE_VULKAN(reg);
    auto dev = std::move(reg.create("vulkan").value());
    // Attention with heads wider than the kernel's 256 stays on the CPU.
    const int64_t hd = 512;
    auto q = std::move(dev->allocate(hd * 4).value());
    auto kc = std::move(dev->allocate(hd * 16 * 4).value());
    auto vc = std::move(dev->allocate(hd * 16 * 4).value());
    auto y = std::move(dev->allocate(hd * 4).value());
    auto idx = std::move(dev->allocate(8).value());
    const KvIndex kv{Tensor::dense(idx.get(), 0, DType::I32, {1}),
                     Tensor::dense(idx.get(), 4, DType::I32, {1, 1}), Tensor{}};
    Graph g;
    g.attention(Tensor::dense(y.get(), 0, DType::F32, {hd, 1, 1}),
                Tensor::dense(q.get(), 0, DType::F32, {hd, 1, 1}),
                Tensor::dense(kc.get(), 0, DType::F32, {hd, 16}),
                Tensor::dense(vc.get(), 0, DType::F32, {hd, 16}), kv, {16, 1.f}, "attn");
    EXPECT_FALSE(dev->supports(g.nodes()[0]));
    auto s = dev->create_stream({});
    ASSERT_TRUE(s.is_ok());
    const Status st = (*s)->compute(g);
    EXPECT_FALSE(st.is_ok());
    EXPECT_NE(st.message().find("head size above 256"), std::string::npos) << st.message();
    auto x = std::move(dev->allocate(32 * 4).value());
    // A tensor in another device's memory is refused, not read.
    auto cpu = make_cpu_device();
    auto host = std::move(cpu->allocate(32 * 4).value());
    Graph h;
    h.scale(Tensor::dense(x.get(), 0, DType::F32, {32}),
            Tensor::dense(host.get(), 0, DType::F32, {32}), 2.f, "scale");
    EXPECT_TRUE(dev->supports(h.nodes()[0]));
    EXPECT_FALSE((*s)->compute(h).is_ok());
}

TEST(VulkanDevice, PipelineCacheIsSavedToTheCacheFolder) {
    REQUIRE_VULKAN(reg);
    namespace fs = std::filesystem;
    const fs::path dir =
        fs::temp_directory_path() / ("hearth-vk-cache-" + std::to_string(getpid()));
    fs::remove_all(dir);
    Env env("HEARTH_CACHE_DIR", dir.string());
    {
        auto dev = std::move(reg.create("vulkan").value());
        auto a = std::move(dev->allocate(64 * 4).value());
        Graph g;
        const Tensor t = Tensor::dense(a.get(), 0, DType::F32, {64});
        g.scale(t, t, 3.f, "scale");
        auto s = dev->create_stream({});
        ASSERT_TRUE((*s)->compute(g).is_ok());
    }  // the device saves its cache when it goes
    size_t files = 0, bytes = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
        ++files;
        bytes += fs::file_size(e.path());
        EXPECT_EQ(e.path().filename().string().rfind("vulkan-pipelines-", 0), 0u);
    }
    EXPECT_EQ(files, 1u);
    EXPECT_GT(bytes, 0u);
    fs::remove_all(dir);
}

}  // namespace
}  // namespace hearth::backend
