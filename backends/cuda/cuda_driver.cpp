#include "cuda_driver.h"

#include <cuda_runtime_api.h>

#include <mutex>

#ifdef _WIN32
#include <windows.h>
#else
#include <dlfcn.h>
#endif

namespace hearth::backend::cuda {

namespace {

#ifdef _WIN32
constexpr const char* kDriverLib = "nvcuda.dll";
void* open_driver() {
    return reinterpret_cast<void*>(LoadLibraryA(kDriverLib));
}
void* symbol(void* lib, const char* name) {
    return reinterpret_cast<void*>(GetProcAddress(static_cast<HMODULE>(lib), name));
}
#else
constexpr const char* kDriverLib = "libcuda.so.1";
void* open_driver() {
    return dlopen(kDriverLib, RTLD_NOW | RTLD_LOCAL);
}
void* symbol(void* lib, const char* name) {
    return dlsym(lib, name);
}
#endif

using CuInit = int (*)(unsigned);
using CuDriverGetVersion = int (*)(int*);
using CuDeviceGetCount = int (*)(int*);

std::string version_text(int v) {
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

DriverCheck run_check() {
    DriverCheck c;
    void* lib = open_driver();  // kept open: the runtime uses the same library afterwards
    if (!lib) {
        c.reason = std::string("no NVIDIA driver (") + kDriverLib + " not found)";
        return c;
    }
    auto init = reinterpret_cast<CuInit>(symbol(lib, "cuInit"));
    auto version = reinterpret_cast<CuDriverGetVersion>(symbol(lib, "cuDriverGetVersion"));
    auto count = reinterpret_cast<CuDeviceGetCount>(symbol(lib, "cuDeviceGetCount"));
    if (!init || !version || !count) {
        c.reason = std::string(kDriverLib) + " lacks cuInit/cuDriverGetVersion (not a CUDA driver)";
        return c;
    }
    if (version(&c.driver_version) != 0) c.driver_version = 0;
    if (c.driver_version < CUDART_VERSION) {
        c.reason = "the NVIDIA driver supports CUDA " + version_text(c.driver_version) +
                   "; this build needs " + version_text(CUDART_VERSION) +
                   " or newer (update the driver)";
        return c;
    }
    if (const int e = init(0); e != 0) {
        c.reason = "the NVIDIA driver did not start (cuInit error " + std::to_string(e) +
                   (e == 100 ? ": no CUDA-capable device" : "") + ")";
        return c;
    }
    if (count(&c.devices) != 0 || c.devices <= 0) {
        c.devices = 0;
        c.reason = "the NVIDIA driver reports no CUDA device";
        return c;
    }
    c.ok = true;
    return c;
}

}  // namespace

const DriverCheck& check_driver() {
    static std::once_flag once;
    static DriverCheck result;
    std::call_once(once, [] { result = run_check(); });
    return result;
}

}  // namespace hearth::backend::cuda
