// A device that runs graphs with the reference ops on the host, one thread. Used by tests as
// the oracle for every other backend; never picked by the registry.
#pragma once

#include <memory>

#include "hearth/backend/device.h"

namespace hearth::backend {

std::unique_ptr<Device> make_ref_device();

}  // namespace hearth::backend
