// The CPU backend: always present, also the fallback. Buffers are host memory (model weights
// are the mapped file itself, never copied); graphs run on a persistent thread pool.
#pragma once

#include <memory>

#include "hearth/backend/device.h"

namespace hearth::backend {

std::unique_ptr<Device> make_cpu_device();

}  // namespace hearth::backend
