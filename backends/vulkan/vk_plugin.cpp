// hearth-backend-vulkan: the plugin entry (include/hearth/backend/plugin.h). The probe lists
// every physical device the loader sees with its kind (discrete, integrated; virtual GPUs rank
// after integrated ones; CPU-type devices such as lavapipe only by name), memory, driver,
// subgroup size and the features the kernels use.
#include <cstdio>
#include <cstring>
#include <new>

#include "hearth/backend/plugin.h"
#include "vk_device.h"

namespace {

using namespace hearth::backend;

void copy(char* dst, size_t cap, const std::string& s) {
    std::snprintf(dst, cap, "%s", s.c_str());
}

int32_t probe(HearthDeviceInfo* devices, int32_t max_devices, char* error, size_t error_size) {
    auto inst = vk::Instance::get();
    if (!inst) {
        copy(error, error_size, inst.error_message());
        return -1;
    }
    const auto list = vk::list_physical_devices(**inst);
    if (list.empty()) copy(error, error_size, "the Vulkan loader lists no device");
    for (size_t i = 0; i < list.size() && int32_t(i) < max_devices; ++i) {
        const auto& p = list[i];
        HearthDeviceInfo& d = devices[i];
        d = {};
        copy(d.name, sizeof d.name, p.name);
        copy(d.description, sizeof d.description, p.description);
        d.kind = p.kind;
        d.score = p.score;
        d.total_bytes = p.total_bytes;
        d.free_bytes = p.free_bytes;
        d.usable = p.usable ? 1 : 0;
        copy(d.reason, sizeof d.reason, p.reason);
    }
    return static_cast<int32_t>(list.size());
}

Device* create(int32_t index, char* error, size_t error_size) try {
    auto inst = vk::Instance::get();
    if (!inst) {
        copy(error, error_size, inst.error_message());
        return nullptr;
    }
    const auto list = vk::list_physical_devices(**inst);
    if (index < 0 || size_t(index) >= list.size()) {
        copy(error, error_size, "no Vulkan device " + std::to_string(index));
        return nullptr;
    }
    if (!list[size_t(index)].usable) {
        copy(error, error_size, list[size_t(index)].reason);
        return nullptr;
    }
    auto ctx = vk::Context::create(*inst, list[size_t(index)]);
    if (!ctx) {
        copy(error, error_size, ctx.error_message());
        return nullptr;
    }
    return vk::make_device(std::move(*ctx)).release();
} catch (const std::bad_alloc&) {
    copy(error, error_size, "out of host memory");
    return nullptr;
}

const HearthBackendTable kTable = {HEARTH_BACKEND_ABI_VERSION,
                                   sizeof(HearthBackendTable),
                                   HEARTH_BACKEND_BUILD_ID,
                                   "vulkan",
                                   probe,
                                   create};

}  // namespace

extern "C" HEARTH_BACKEND_EXPORT const HearthBackendTable* hearth_backend_entry() {
    return &kTable;
}
