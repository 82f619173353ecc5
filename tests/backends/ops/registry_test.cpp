#include <dlfcn.h>
#include <gtest/gtest.h>

#include "registry.h"

namespace hearth::backend {
namespace {

TEST(Registry, CpuAlwaysUsableAndReasonsRecorded) {
    const Registry r = Registry::probe();
    ASSERT_EQ(r.backends().size(), 3u);
    EXPECT_EQ(r.backends()[0].name, "cuda");
    EXPECT_EQ(r.backends()[1].name, "vulkan");
    EXPECT_EQ(r.backends()[2].name, "cpu");
    EXPECT_TRUE(r.backends()[2].usable);
    for (const auto& b : r.backends()) {
        if (!b.usable) {
            EXPECT_FALSE(b.reason.empty()) << b.name;
        }
    }
    EXPECT_EQ(r.backends()[1].reason, "Vulkan backend not built yet");
    void* cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!cuda) {
        EXPECT_EQ(r.backends()[0].reason, "CUDA: no driver (libcuda.so.1 not found)");
    } else {
        dlclose(cuda);
    }
    EXPECT_EQ(r.best(), "cpu");
    auto dev = r.create("auto");
    ASSERT_TRUE(dev.is_ok());
    EXPECT_EQ((*dev)->name(), "cpu");
}

TEST(Registry, PinnedUnusableOrUnknownBackendIsAnError) {
    const Registry r = Registry::probe();
    auto v = r.create("vulkan");
    ASSERT_FALSE(v.is_ok());
    EXPECT_EQ(v.error_message(), "Vulkan backend not built yet");
    EXPECT_FALSE(r.create("tpu").is_ok());
}

}  // namespace
}  // namespace hearth::backend
