// The avx2 variant of the x86 kernels (see kernels_x86.inc); built with its own target flags.
#include "kernels/kernels_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define HEARTH_X86_NS avx2
#define HEARTH_X86_VNNI 0
#define HEARTH_X86_WIDE 0
#include "kernels/kernels_x86.inc"

namespace hearth::cpu::detail {
const SimdKernels* avx2_kernels() {
    return &avx2::kTable;
}
}  // namespace hearth::cpu::detail

#else

namespace hearth::cpu::detail {
const SimdKernels* avx2_kernels() {
    return nullptr;
}
}  // namespace hearth::cpu::detail

#endif
