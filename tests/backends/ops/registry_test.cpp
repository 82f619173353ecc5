// The plugin loader and the registry, against real plugins built for the test: the ref plugin
// beside the executables, broken plugins (wrong ABI version, other compiler, no entry symbol,
// failing probe) and fake CUDA / Vulkan plugins for the ranking.
#include <gtest/gtest.h>

#include <algorithm>

#include "hearth/backend/plugin.h"
#include "registry.h"

namespace hearth::backend {
namespace {

namespace fs = std::filesystem;

const SkippedBackend* skipped(const Registry& r, std::string_view name) {
    for (const auto& s : r.skipped())
        if (s.name == name) return &s;
    return nullptr;
}

std::vector<std::string> names(const Registry& r) {
    std::vector<std::string> n;
    for (const auto& d : r.devices()) n.push_back(d.name);
    return n;
}

// Device names, without those of GPU plugins built here (they depend on the machine).
std::vector<std::string> names_but_gpus(const Registry& r) {
    std::vector<std::string> n;
    for (const auto& d : r.devices())
        if (d.backend != "vulkan" && d.backend != "cuda") n.push_back(d.name);
    return n;
}

bool has_devices_of(const Registry& r, std::string_view backend) {
    for (const auto& d : r.devices())
        if (d.backend == backend) return true;
    return false;
}

TEST(Registry, FindsTheRefPluginAndRecordsMissingBackends) {
    const Registry r = Registry::probe({{HEARTH_BIN_DIR}, {"cuda", "vulkan"}});
    const bool cuda_built = fs::exists(fs::path(HEARTH_BIN_DIR) / "hearth-backend-cuda.so");
    const auto n = names_but_gpus(r);
    ASSERT_EQ(n.size(), 2u);
    EXPECT_EQ(n[0], "cpu");  // the reference device is never the automatic choice
    EXPECT_EQ(n[1], "ref");
    if (!has_devices_of(r, "vulkan") && !has_devices_of(r, "cuda")) {
        EXPECT_EQ(r.best(), "cpu");
    }
    ASSERT_NE(r.find("ref"), nullptr);
    const DeviceEntry& ref = *r.find("ref");
    EXPECT_TRUE(ref.usable);
    EXPECT_FALSE(ref.automatic());
    EXPECT_EQ(ref.kind, HEARTH_DEVICE_REFERENCE);
    EXPECT_GT(ref.memory.total_bytes, 0u);
    // Each GPU backend either has its devices (a plugin built here) or a recorded reason.
    for (const char* gpu : {"cuda", "vulkan"}) {
        if (has_devices_of(r, gpu)) continue;
        ASSERT_NE(skipped(r, gpu), nullptr) << gpu;
        EXPECT_FALSE(skipped(r, gpu)->reason.empty()) << gpu;
    }
    if (!cuda_built) {
        ASSERT_NE(skipped(r, "cuda"), nullptr);
        EXPECT_NE(skipped(r, "cuda")->reason.find("hearth-backend-cuda.so not found"),
                  std::string::npos)
            << skipped(r, "cuda")->reason;
    }
    auto dev = r.create("ref");
    ASSERT_TRUE(dev.is_ok()) << dev.error_message();
    EXPECT_EQ((*dev)->name(), "ref");
    auto cpu = r.create("auto");
    ASSERT_TRUE(cpu.is_ok());
    EXPECT_EQ((*cpu)->name(), r.best());
    // Every row About shows says why an unused backend is unused.
    for (const auto& b : r.backends()) {
        if (!b.usable || b.name == "ref") {
            EXPECT_FALSE(b.reason.empty()) << b.name;
        }
    }
}

TEST(Registry, DefaultSearchUsesHearthBackendPath) {
    // CTest sets HEARTH_BACKEND_PATH to the folder of the executables.
    const Registry r = Registry::probe();
    const auto n = names(r);
    EXPECT_NE(std::find(n.begin(), n.end(), "ref"), n.end());
}

TEST(Registry, BrokenPluginsAreSkippedWithTheirReasons) {
    const fs::path dir = fs::path(HEARTH_TEST_PLUGIN_DIR) / "broken";
    const Registry r = Registry::probe({{dir}, {}});
    EXPECT_EQ(names(r), std::vector<std::string>{"cpu"});
    ASSERT_EQ(r.skipped().size(), 4u);
    const auto* abi = skipped(r, "badabi");
    ASSERT_NE(abi, nullptr);
    EXPECT_NE(
        abi->reason.find("ABI version " + std::to_string(HEARTH_BACKEND_ABI_VERSION + 998) +
                         ", this build expects " + std::to_string(HEARTH_BACKEND_ABI_VERSION)),
        std::string::npos)
        << abi->reason;
    const auto* build = skipped(r, "badbuild");
    ASSERT_NE(build, nullptr);
    EXPECT_NE(build->reason.find("built with another compiler 0.1"), std::string::npos)
        << build->reason;
    const auto* nosym = skipped(r, "nosym");
    ASSERT_NE(nosym, nullptr);
    EXPECT_NE(nosym->reason.find("no entry symbol hearth_backend_entry"), std::string::npos)
        << nosym->reason;
    const auto* probe = skipped(r, "failprobe");
    ASSERT_NE(probe, nullptr);
    EXPECT_EQ(probe->reason, "no driver (test plugin)");
    // The CPU still works, and asking for a skipped backend says why it was skipped.
    EXPECT_TRUE(r.create("").is_ok());
    auto bad = r.create("badabi");
    ASSERT_FALSE(bad.is_ok());
    EXPECT_NE(bad.error_message().find("ABI version"), std::string::npos);
    EXPECT_FALSE(load_plugin(dir / "hearth-backend-nosym.so").is_ok());
}

TEST(Registry, RanksCudaThenDiscreteThenIntegratedThenCpu) {
    const fs::path dir = fs::path(HEARTH_TEST_PLUGIN_DIR) / "fake";
    const Registry r = Registry::probe({{dir}, {"cuda", "vulkan"}});
    EXPECT_TRUE(r.skipped().empty());
    // CPU-type (vulkan0) only by name; the unusable one (vulkan3) last.
    EXPECT_EQ(names(r), (std::vector<std::string>{"cuda0", "vulkan2", "vulkan1", "cpu", "vulkan0",
                                                  "vulkan3"}));
    EXPECT_EQ(r.best(), "cuda0");
    auto best = r.create("");
    ASSERT_TRUE(best.is_ok()) << best.error_message();
    // Pinning: a backend name takes its best usable device, a device name that device.
    EXPECT_EQ(r.find("vulkan")->name, "vulkan2");
    EXPECT_EQ(r.find("vulkan0")->name, "vulkan0");
    EXPECT_TRUE(r.create("vulkan0").is_ok());
    EXPECT_EQ(r.find("cpu")->name, "cpu");
    auto small = r.create("vulkan3");
    ASSERT_FALSE(small.is_ok());
    EXPECT_EQ(small.error_message(), "vulkan3: too little memory (test)");
    auto unknown = r.create("tpu");
    ASSERT_FALSE(unknown.is_ok());
    EXPECT_NE(unknown.error_message().find("unknown backend 'tpu'"), std::string::npos);
}

TEST(Registry, MissingFolderIsNotAnError) {
    const Registry r = Registry::probe({{"/nonexistent/hearth/plugins"}, {"cuda"}});
    EXPECT_EQ(names(r), std::vector<std::string>{"cpu"});
    ASSERT_NE(skipped(r, "cuda"), nullptr);
    EXPECT_FALSE(r.create("cuda").is_ok());
}

}  // namespace
}  // namespace hearth::backend
