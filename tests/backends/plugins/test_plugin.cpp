// Plugins for the loader test, one source built several ways (TEST_PLUGIN_MODE): a wrong ABI
// version, a wrong build id, a failing probe, no entry symbol, and fake CUDA / Vulkan backends
// whose devices (reference devices underneath) exercise the ranking.
#include <cstdio>

#include "hearth/backend/plugin.h"
#include "ref/ref_device.h"

#define MODE_BAD_ABI 1
#define MODE_BAD_BUILD 2
#define MODE_FAIL_PROBE 3
#define MODE_NO_SYMBOL 4
#define MODE_FAKE_CUDA 5
#define MODE_FAKE_VULKAN 6

namespace {

using namespace hearth::backend;

[[maybe_unused]] void fill(HearthDeviceInfo& d, const char* name, int32_t kind, int32_t score,
                           bool usable, const char* reason) {
    d = {};
    std::snprintf(d.name, sizeof d.name, "%s", name);
    std::snprintf(d.description, sizeof d.description, "test device %s", name);
    d.kind = kind;
    d.score = score;
    d.total_bytes = d.free_bytes = uint64_t(1) << 30;
    d.usable = usable ? 1 : 0;
    std::snprintf(d.reason, sizeof d.reason, "%s", reason);
}

int32_t probe(HearthDeviceInfo* devices, int32_t max_devices, char* error, size_t error_size) {
#if TEST_PLUGIN_MODE == MODE_FAIL_PROBE
    (void)devices;
    (void)max_devices;
    std::snprintf(error, error_size, "no driver (test plugin)");
    return -1;
#elif TEST_PLUGIN_MODE == MODE_FAKE_CUDA
    (void)error;
    (void)error_size;
    if (max_devices < 1) return 1;
    fill(devices[0], "cuda0", HEARTH_DEVICE_DISCRETE_GPU, 1, true, "");
    return 1;
#elif TEST_PLUGIN_MODE == MODE_FAKE_VULKAN
    (void)error;
    (void)error_size;
    if (max_devices < 4) return 4;
    // Listed in a scrambled order: the registry ranks them.
    fill(devices[0], "vulkan0", HEARTH_DEVICE_CPU_TYPE, 9, true, "");
    fill(devices[1], "vulkan1", HEARTH_DEVICE_INTEGRATED_GPU, 5, true, "");
    fill(devices[2], "vulkan2", HEARTH_DEVICE_DISCRETE_GPU, 2, true, "");
    fill(devices[3], "vulkan3", HEARTH_DEVICE_DISCRETE_GPU, 7, false, "too little memory (test)");
    return 4;
#else
    (void)error;
    (void)error_size;
    if (max_devices < 1) return 1;
    fill(devices[0], "test0", HEARTH_DEVICE_DISCRETE_GPU, 0, true, "");
    return 1;
#endif
}

Device* create(int32_t, char*, size_t) {
    return make_ref_device().release();
}

#if TEST_PLUGIN_MODE == MODE_BAD_ABI
constexpr uint32_t kAbi = HEARTH_BACKEND_ABI_VERSION + 998;
#else
constexpr uint32_t kAbi = HEARTH_BACKEND_ABI_VERSION;
#endif
#if TEST_PLUGIN_MODE == MODE_BAD_BUILD
constexpr const char* kBuild = "another compiler 0.1";
#else
constexpr const char* kBuild = HEARTH_BACKEND_BUILD_ID;
#endif
#if TEST_PLUGIN_MODE == MODE_FAKE_CUDA
constexpr const char* kName = "cuda";
#elif TEST_PLUGIN_MODE == MODE_FAKE_VULKAN
constexpr const char* kName = "vulkan";
#else
constexpr const char* kName = "test";
#endif

const HearthBackendTable kTable = {kAbi, sizeof(HearthBackendTable), kBuild, kName, probe, create};

}  // namespace

#if TEST_PLUGIN_MODE != MODE_NO_SYMBOL
extern "C" HEARTH_BACKEND_EXPORT const HearthBackendTable* hearth_backend_entry() {
    return &kTable;
}
#else
extern "C" HEARTH_BACKEND_EXPORT const HearthBackendTable* some_other_symbol() {
    return &kTable;
}
#endif
