// Whether an NVIDIA driver is on this machine, asked without linking it: libcuda.so.1
// (nvcuda.dll on Windows) is opened at run time and only cuInit / cuDriverGetVersion /
// cuDeviceGetCount are looked up. The CUDA runtime (linked statically into the plugin) is
// touched only after this says yes, so a machine without a driver gets a clear sentence
// instead of a runtime error code.
#pragma once

#include <string>

namespace hearth::backend::cuda {

struct DriverCheck {
    bool ok = false;
    int driver_version = 0;  // e.g. 13000 for CUDA 13.0
    int devices = 0;
    std::string reason;  // when !ok: "no NVIDIA driver (libcuda.so.1 not found)", ...
};

// Cached after the first call (the library stays loaded for the life of the process).
const DriverCheck& check_driver();

}  // namespace hearth::backend::cuda
