// A device that runs graphs with the reference ops on the host, one thread. Used by tests as
// the oracle for every other backend. As the plugin hearth-backend-ref (ref_plugin.cpp) it
// stands in for a GPU: it owns its memory (imported weights are copied, as a GPU uploads them)
// and reports a memory size, so placement, upload and the CPU+device split are tested on
// machines without a GPU. The registry uses it only when asked for by name.
#pragma once

#include <cstdint>
#include <memory>

#include "hearth/backend/device.h"

namespace hearth::backend {

struct RefDeviceOptions {
    bool copy_imports = false;  // import_host copies (a device's own memory) instead of borrowing
    MemoryInfo memory;          // what memory() reports (0: the host's)
};

std::unique_ptr<Device> make_ref_device(const RefDeviceOptions& options = {});

}  // namespace hearth::backend
