// The avx512vnni variant of the x86 kernels (see kernels_x86.inc); built with its own target flags.
#include "kernels/kernels_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define HEARTH_X86_NS avx512vnni
#define HEARTH_X86_VNNI 1
#define HEARTH_X86_WIDE 1
#include "kernels/kernels_x86.inc"

namespace hearth::cpu::detail {
const SimdKernels* avx512vnni_kernels() {
    return &avx512vnni::kTable;
}
}  // namespace hearth::cpu::detail

#else

namespace hearth::cpu::detail {
const SimdKernels* avx512vnni_kernels() {
    return nullptr;
}
}  // namespace hearth::cpu::detail

#endif
