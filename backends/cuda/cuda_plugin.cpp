// hearth-backend-cuda: the plugin entry. The probe asks the driver (dlopen'ed, never linked:
// cuda_driver.cpp) before the statically linked CUDA runtime is touched, so a machine without
// an NVIDIA driver gets "no NVIDIA driver (libcuda.so.1 not found)" and the program moves on
// to the next device.
#include <cuda_runtime_api.h>

#include <cstdio>

#include "cuda_device.h"
#include "cuda_driver.h"
#include "cuda_kernels.h"
#include "hearth/backend/plugin.h"

namespace {

using namespace hearth::backend;

// Devices older than Turing (sm_75) are not built for (CUDA 13 dropped them).
constexpr int kMinCapability = 75;

int32_t probe(HearthDeviceInfo* devices, int32_t max_devices, char* error, size_t error_size) {
    const cuda::DriverCheck& drv = cuda::check_driver();
    if (!drv.ok) {
        std::snprintf(error, error_size, "%s", drv.reason.c_str());
        return -1;
    }
    int count = 0;
    if (cudaError_t e = cudaGetDeviceCount(&count); e) {
        std::snprintf(error, error_size, "CUDA runtime: %s", cudaGetErrorString(e));
        (void)cudaGetLastError();
        return -1;
    }
    for (int i = 0; i < count && i < max_devices; ++i) {
        HearthDeviceInfo& d = devices[i];
        d = {};
        std::snprintf(d.name, sizeof d.name, "cuda%d", i);
        cudaDeviceProp p{};
        if (cudaGetDeviceProperties(&p, i) != cudaSuccess) {
            (void)cudaGetLastError();
            std::snprintf(d.reason, sizeof d.reason, "its properties cannot be read");
            continue;
        }
        const int cc = p.major * 10 + p.minor;
        d.kind = p.integrated ? HEARTH_DEVICE_INTEGRATED_GPU : HEARTH_DEVICE_DISCRETE_GPU;
        d.score = p.multiProcessorCount;
        d.total_bytes = p.totalGlobalMem;
        d.free_bytes = p.totalGlobalMem;
        size_t free = 0, total = 0;
        if (cudaSetDevice(i) == cudaSuccess && cudaMemGetInfo(&free, &total) == cudaSuccess)
            d.free_bytes = free;
        (void)cudaGetLastError();
        std::snprintf(d.description, sizeof d.description, "%.160s · %.1f GiB · sm_%d · %d SMs",
                      p.name, double(p.totalGlobalMem) / double(1ull << 30), cc,
                      p.multiProcessorCount);
        if (cc < kMinCapability) {
            std::snprintf(d.reason, sizeof d.reason,
                          "compute capability %d.%d; this build needs 7.5 (Turing) or newer",
                          p.major, p.minor);
        } else if (!cuda::kernels_loadable(i)) {
            std::snprintf(d.reason, sizeof d.reason,
                          "this build has no kernels for sm_%d (built for %.100s; rebuild with "
                          "HEARTH_CUDA_ARCHITECTURES=%d or HEARTH_CUDA_RELEASE_ARCHS=ON)",
                          cc, cuda::built_architectures(), cc);
        } else {
            d.usable = 1;
        }
    }
    return count;
}

Device* create(int32_t index, char* error, size_t error_size) {
    auto d = cuda::make_cuda_device(index);
    if (!d) {
        std::snprintf(error, error_size, "%s", d.error_message().c_str());
        return nullptr;
    }
    return d->release();
}

const HearthBackendTable kTable = {HEARTH_BACKEND_ABI_VERSION,
                                   sizeof(HearthBackendTable),
                                   HEARTH_BACKEND_BUILD_ID,
                                   "cuda",
                                   probe,
                                   create};

}  // namespace

extern "C" HEARTH_BACKEND_EXPORT const HearthBackendTable* hearth_backend_entry() {
    return &kTable;
}
