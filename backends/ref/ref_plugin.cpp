// hearth-backend-ref: the reference device as a plugin, built with the tests. It reports one
// device of the reference kind (never chosen automatically) whose memory is the host's
// available RAM, or HEARTH_REF_MEMORY bytes when set (tests give it a small "GPU").
#include <cstdio>
#include <new>

#include "core/host_memory.h"
#include "hearth/backend/plugin.h"
#include "ref/ref_device.h"

namespace {

using namespace hearth::backend;

MemoryInfo ref_memory() {
    const MemoryInfo host = host_memory();
    const uint64_t fake = env_bytes("HEARTH_REF_MEMORY", 0);
    return fake ? MemoryInfo{fake, fake} : host;
}

int32_t probe(HearthDeviceInfo* devices, int32_t max_devices, char*, size_t) {
    if (max_devices < 1) return 1;
    HearthDeviceInfo& d = devices[0];
    d = {};
    std::snprintf(d.name, sizeof d.name, "ref");
    std::snprintf(d.description, sizeof d.description,
                  "reference device (scalar ops, float64 sums; a test stand-in for a GPU)");
    d.kind = HEARTH_DEVICE_REFERENCE;
    const MemoryInfo m = ref_memory();
    d.total_bytes = m.total_bytes;
    d.free_bytes = m.free_bytes;
    d.usable = 1;
    return 1;
}

Device* create(int32_t index, char* error, size_t error_size) {
    if (index != 0) {
        std::snprintf(error, error_size, "no reference device %d", static_cast<int>(index));
        return nullptr;
    }
    RefDeviceOptions o;
    o.copy_imports = true;
    o.memory = ref_memory();
    return make_ref_device(o).release();
}

const HearthBackendTable kTable = {HEARTH_BACKEND_ABI_VERSION,
                                   sizeof(HearthBackendTable),
                                   HEARTH_BACKEND_BUILD_ID,
                                   "ref",
                                   probe,
                                   create};

}  // namespace

extern "C" HEARTH_BACKEND_EXPORT const HearthBackendTable* hearth_backend_entry() {
    return &kTable;
}
