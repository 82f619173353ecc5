// Programmatic dependent launch (sm_90 and later). A decode step is some 300 kernels of a few
// microseconds each, and between two kernels of a graph the GPU idles for the launch of the
// second (the benchmark's "launch floor", 1.6 us on an H200) while the first's last blocks
// drain. A kernel launched with PDL is scheduled as soon as every block of the kernel before it
// has started (each calls pdl_release() first thing), so its launch hides behind that kernel's
// tail. The price is a rule: such a kernel calls pdl_wait(), with every thread and before any
// return, ahead of touching memory that an earlier kernel writes or reads; before it, only the
// weights (nothing writes them during a step). pdl_wait() returns when the kernel before has
// completed and its writes are visible, and that one waited for its own predecessor, so the
// whole stream order holds. Kernels launched without PDL wait for their predecessor as always.
#pragma once

#include <cuda_runtime.h>

#include "cuda_kernels.h"

namespace hearth::backend::cuda {

__device__ __forceinline__ void pdl_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void pdl_release() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// kernel<<<grid, block, 0, s>>>(args...), with PDL when the policy asks for it. Only for kernels
// that follow pdl_wait()'s rule. The error is also cudaGetLastError()'s, as for <<<>>>.
template <class... Params, class... Args>
cudaError_t launch_pdl(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t s,
                       Args&&... args) {
    if (!launch_policy().pdl) {
        kernel<<<grid, block, 0, s>>>(static_cast<Args&&>(args)...);
        return cudaSuccess;
    }
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = 0;
    cfg.stream = s;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, kernel, static_cast<Args&&>(args)...);
}

}  // namespace hearth::backend::cuda
