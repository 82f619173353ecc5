// Memory of the host: total and available RAM (MemAvailable on Linux: free memory plus the
// page cache the kernel can drop, which is what a new allocation can use). The environment
// variable HEARTH_HOST_MEMORY_AVAILABLE (bytes) overrides the available amount, so tests can
// make a model "too large" without a large file.
#pragma once

#include "hearth/backend/device.h"

namespace hearth::backend {

MemoryInfo host_memory();

// A byte count from an environment variable, or `fallback` when unset or not a number.
uint64_t env_bytes(const char* name, uint64_t fallback);

}  // namespace hearth::backend
