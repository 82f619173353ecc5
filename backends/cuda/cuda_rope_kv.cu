// RoPE of Q and K and the KV append of K and V in one launch, for F32 and F16 caches: each
// rotated K element goes to its cache cell from the thread that computed it, so the append
// needs no second pass (nor a second launch: at decode both are a few microseconds of launch
// for a few KiB). Quantized caches need a whole 32-element block per store and keep the two
// launches. The stored values are those of the separate kernels: the same float, converted the
// same way.
#include <algorithm>

#include "cuda_kv.cuh"
#include "cuda_pdl.cuh"
#include "cuda_rope.cuh"

namespace hearth::backend::cuda {

namespace {

// The cache row of token t, or nullptr (reported as node's error) when the block table has no
// cell for it.
__device__ __forceinline__ uint8_t* cache_row(const DevTensor& cache, const KvArgs& kv,
                                              DevError* err, int node, int64_t t) {
    uint8_t* row = kv_row(cache, kv, t);
    if (!row) report(err, node, kErrKvIndex, t);
    return row;
}

// Items [0, n_q): RoPE of q; [n_q, n_q + n_k): RoPE of k, each value also stored in k_cache
// (head h's dim c at h * hd + c of the row); then one item per element of v's rows, copied into
// v_cache.
template <uint32_t T>
__global__ void k_rope_kv(DevTensor q_dst, DevTensor q, DevTensor k_dst, DevTensor k,
                          DevTensor k_cache, DevTensor v, DevTensor v_cache, DevTensor pos,
                          DevTensor ff, RopeArgs r, KvArgs kv, DevError* err, int node, int64_t n_q,
                          int64_t n_k) {
    pdl_release();
    pdl_wait();
    const int64_t n_v = v.ne[0] * v.ne[1];
    for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < n_q + n_k + n_v;
         e += int64_t(gridDim.x) * blockDim.x) {
        if (e < n_q) {
            rope_item(q_dst, q, pos, ff, r, e, RopeStore{});
        } else if (e < n_q + n_k) {
            const int64_t hd = k.ne[0];
            const auto to_cache = [&](int64_t h, int64_t t, int64_t c, float val) {
                if (uint8_t* row = cache_row(k_cache, kv, err, node, t))
                    store_kv_elem<T>(row, h * hd + c, val);
            };
            rope_item(k_dst, k, pos, ff, r, e - n_q, to_cache);
        } else {
            const int64_t i = (e - n_q - n_k) % v.ne[0], t = (e - n_q - n_k) / v.ne[0];
            if (uint8_t* row = cache_row(v_cache, kv, err, node + 1, t))
                store_kv_elem<T>(row, i, f32_at(v, t)[i]);
        }
    }
}

}  // namespace

bool rope_kv_supported(uint32_t cache_type) {
    return cache_type == kF32 || cache_type == kF16;
}

cudaError_t launch_rope_kv(cudaStream_t s, const RopeKvArgs& a, const RopeArgs& r, const KvArgs& kv,
                           DevError* err, int node) {
    if (a.k_cache.type != a.v_cache.type || !rope_kv_supported(a.k_cache.type))
        return cudaErrorInvalidValue;
    const int64_t n_q = rope_items(a.q, r), n_k = rope_items(a.k, r);
    const int64_t total = n_q + n_k + a.v.ne[0] * a.v.ne[1];
    if (total == 0) return cudaSuccess;
    const int64_t blocks = std::min<int64_t>((total + 255) / 256, 65536);
    launch_pdl(a.k_cache.type == kF32 ? k_rope_kv<kF32> : k_rope_kv<kF16>, dim3(unsigned(blocks)),
               dim3(256), s, a.q_dst, a.q, a.k_dst, a.k, a.k_cache, a.v, a.v_cache, a.positions,
               a.freq_factors, r, kv, err, node, n_q, n_k);
    return cudaGetLastError();
}

}  // namespace hearth::backend::cuda
