// The tensor-core product both prefill kernels use (cuda_matmul.cu's one-pass kernel and
// cuda_gemm.cu's two-pass one) and the store of its accumulator tile.
#pragma once

#include "cuda_common.cuh"

namespace hearth::backend::cuda {

// D += A (16 x 16, row-major halves) * B (16 x 8, column-major halves), float accumulators.
__device__ __forceinline__ void mma_16x8x16(float (&d)[4], const uint32_t (&a)[4],
                                            const uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#elif defined(__CUDA_ARCH__)
    // sm_75: the same product as two k = 8 halves.
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b[0]));
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[2]), "r"(a[3]), "r"(b[1]));
#endif
}

// The 16 x 8 accumulator tile of rows r0.., tokens t0.. (this lane's c0 c1 at row r0 + g,
// c2 c3 at r0 + g + 8, tokens t0 + 2 tig and + 1) into dst rows r_out + r, where r < m, t < nt.
__device__ __forceinline__ void store_mma_tile(const DevTensor& dst, const float (&acc)[4],
                                               int64_t r0, int64_t t0, int64_t m, int64_t nt,
                                               int64_t r_out) {
    const int lane = int(threadIdx.x) & 31, g = lane >> 2, tig = lane & 3;
#pragma unroll
    for (int c = 0; c < 4; ++c) {
        const int64_t r = r0 + g + (c >= 2 ? 8 : 0), t = t0 + 2 * tig + (c & 1);
        if (r < m && t < nt) f32_at(dst, t)[r_out + r] = acc[c];
    }
}

}  // namespace hearth::backend::cuda
