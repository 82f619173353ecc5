// Decode matrix-vector products with int8 dot products (dp4a) for the formats of the usual
// model files: Q4_0, Q8_0, Q4_K and Q6_K (Q4_K_M files are Q4_K + Q6_K). The activations are
// first quantized to 8 bits in blocks of 32 (a scale d and d * sum(q) per block, as ggml's Q8_1
// does), so each 32-element block of a weight row costs a few dp4a per token. Rows are read
// coalesced (Q8Lane: consecutive lanes, consecutive bytes) where they are word-aligned, else
// one block per lane (Q8Dot). The other formats use the float kernels of cuda_matmul.cu.
#include "cuda_pdl.cuh"
#include "cuda_q8dot.cuh"

namespace hearth::backend::cuda {

namespace {

constexpr int kMaxVecT = 8;

// One warp per 32-element group of one token.
__global__ void k_quantize_q8(DevTensor x, int8_t* q, float2* ds, int64_t groups_per_tok,
                              int64_t total) {
    pdl_release();
    pdl_wait();
    const int64_t gi = int64_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
    if (gi >= total) return;
    const int64_t t = gi / groups_per_tok, g = gi % groups_per_tok;
    quantize_group_q8(f32_at(x, t)[g * 32 + (threadIdx.x & 31)], q + gi * 32, ds + gi);
}

// Rows that are not word-aligned: one warp per row, 8 rows per block, each lane its own blocks;
// tokens t0 .. t0 + nt - 1 (nt <= kMaxVecT).
template <uint32_t T>
__global__ void __launch_bounds__(256) k_mat_vec_q8(DevTensor dst, DevTensor w, const int8_t* q,
                                                    const float2* ds, int64_t t0, int nt) {
    pdl_release();
    pdl_wait();
    const int64_t r = int64_t(blockIdx.x) * 8 + threadIdx.x / 32;
    if (r >= w.ne[1]) return;
    const int lane = threadIdx.x & 31;
    const int64_t k = w.ne[0], units = k / Q8Dot<T>::kUnit, blocks = k / 32;
    const auto* row = reinterpret_cast<const uint8_t*>(at(w, r));
    float acc[kMaxVecT] = {};
    // Unrolled so that a lane has several units' loads in flight (a row of a 4096-wide Q4_0
    // matrix is only 4 units per lane: one at a time left the warp waiting on each).
#pragma unroll 4
    for (int64_t u = lane; u < units; u += 32) {
#pragma unroll
        for (int t = 0; t < kMaxVecT; ++t) {
            if (t >= nt) break;
            acc[t] += Q8Dot<T>::dot(row, u, q + (t0 + t) * k, ds + (t0 + t) * blocks);
        }
    }
#pragma unroll
    for (int t = 0; t < kMaxVecT; ++t) {
        if (t >= nt) break;
        const float v = warp_sum(acc[t]);
        if (lane == 0) f32_at(dst, t0 + t)[r] = v;
    }
}

constexpr int kMaxJobs = 3;
struct MatVecJobs {
    DevTensor dst[kMaxJobs], w[kMaxJobs];
    int wpr[kMaxJobs];
    int64_t first[kMaxJobs + 1];  // each job's first block; first[n..] = the grid size
    bool prefetch;                // every block prefetches its rows before pdl_wait()
};

__device__ __forceinline__ void prefetch_l2(const void* p) {
#ifdef __CUDA_ARCH__
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
#endif
}

// The coalesced layout (Q8Lane): 4 warps per block, each warp R rows (sharing the activation
// loads), `wpr` warps per row group (1, 2 or 4) each taking every wpr-th stretch of
// 32 / kLanes blocks, so that matrices of few rows still fill the GPU.
// kMaxT: the most tokens a launch takes (1 for plain decode: 8 accumulators a row that a
// single token never uses cost registers, and so warps per SM).
template <uint32_t T, int R, int kMaxT>
__device__ __forceinline__ void mat_vec_q8_lanes(const DevTensor& dst, const DevTensor& w,
                                                 const int8_t* q, const float2* ds, int64_t t0,
                                                 int nt, int wpr, int64_t block, bool prefetch) {
    using L = Q8Lane<T>;
    constexpr int kPerIter = 32 / L::kLanes;  // blocks a warp covers per step
    __shared__ float part[4][R][kMaxT];
    const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) & 31;
    const int64_t r0 = (block * (4 / wpr) + warp / wpr) * R;
    const int slice = warp % wpr;
    const int64_t k = w.ne[0], m = w.ne[1], n_blocks = k / L::kElems, groups = k / 32;
    const int j = lane % L::kLanes;
    const uint8_t* rows[R];
#pragma unroll
    for (int rr = 0; rr < R; ++rr)  // a group's missing last rows repeat its first
        rows[rr] = reinterpret_cast<const uint8_t*>(at(w, r0 + rr < m ? r0 + rr : r0));
    if (prefetch && r0 < m) {
        // The rows stream into L2 while the kernel before still runs: the weights are the one
        // input no kernel writes.
        const int64_t row_bytes = n_blocks * L::kBytes, stride = int64_t(wpr) * 32 * 128;
#pragma unroll
        for (int rr = 0; rr < R; ++rr)
            for (int64_t off = (int64_t(slice) * 32 + lane) * 128; off < row_bytes; off += stride)
                prefetch_l2(rows[rr] + off);
    }
    pdl_wait();
    float acc[R][kMaxT] = {};
    if (r0 < m) {
#pragma unroll 4
        for (int64_t bi = int64_t(slice) * kPerIter + lane / L::kLanes; bi < n_blocks;
             bi += int64_t(wpr) * kPerIter) {
            typename L::W wv[R];
#pragma unroll
            for (int rr = 0; rr < R; ++rr) wv[rr] = L::load(rows[rr] + bi * L::kBytes, j);
#pragma unroll
            for (int t = 0; t < kMaxT; ++t) {
                if (t >= nt) break;
                const int8_t* a = q + (t0 + t) * k + bi * L::kElems;
                const float2* d = ds + (t0 + t) * groups + bi * (L::kElems / 32);
#pragma unroll
                for (int rr = 0; rr < R; ++rr) acc[rr][t] += L::dot(wv[rr], j, a, d);
            }
        }
    }
#pragma unroll
    for (int rr = 0; rr < R; ++rr) {
#pragma unroll
        for (int t = 0; t < kMaxT; ++t) {
            if (t >= nt) break;
            const float v = warp_sum(acc[rr][t]);
            if (lane == 0) {
                if (wpr == 1) {
                    if (r0 + rr < m) f32_at(dst, t0 + t)[r0 + rr] = v;
                } else {
                    part[warp][rr][t] = v;
                }
            }
        }
    }
    if (wpr == 1) return;
    __syncthreads();
    if (slice == 0 && lane < R * kMaxT) {
        const int rr = lane / kMaxT, t = lane % kMaxT;
        if (t < nt && r0 + rr < m) {
            float v = 0.f;
            for (int i = 0; i < wpr; ++i) v += part[warp + i][rr][t];
            f32_at(dst, t0 + t)[r0 + rr] = v;
        }
    }
}

// Up to kMaxJobs products of the same activations with weights of one format in one launch
// (a layer's Q, K and V; its gate and up): blocks [first[i], first[i + 1]) are job i's.
template <uint32_t T, int R, int kMaxT>
__global__ void __launch_bounds__(128)
    k_mat_vec_q8_lanes(MatVecJobs jobs, const int8_t* q, const float2* ds, int64_t t0, int nt) {
    pdl_release();
    const int64_t b = blockIdx.x;
    const bool prefetch = jobs.prefetch;
    // Static indices only: a kernel parameter indexed by a variable is copied to local memory.
    if (b < jobs.first[1])
        mat_vec_q8_lanes<T, R, kMaxT>(jobs.dst[0], jobs.w[0], q, ds, t0, nt, jobs.wpr[0], b,
                                      prefetch);
    else if (b < jobs.first[2])
        mat_vec_q8_lanes<T, R, kMaxT>(jobs.dst[1], jobs.w[1], q, ds, t0, nt, jobs.wpr[1],
                                      b - jobs.first[1], prefetch);
    else
        mat_vec_q8_lanes<T, R, kMaxT>(jobs.dst[2], jobs.w[2], q, ds, t0, nt, jobs.wpr[2],
                                      b - jobs.first[2], prefetch);
}

// The current device's streaming multiprocessors.
int multiprocessors() {
    int device = 0, n = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

// Whether the coalesced kernel can read this matrix: Q4_K's 16-byte loads need 16-byte aligned
// rows; the others' aligned-word loads need rows of whole words (so the last is never read past).
bool lanes_layout_fits(const DevTensor& w) {
    const auto base = reinterpret_cast<uintptr_t>(w.p);
    const int64_t align = w.type == kQ4_K ? 16 : 4;
    return base % uintptr_t(align) == 0 && w.nb[1] % align == 0;
}

}  // namespace

bool mat_vec_q8_supported(uint32_t type) {
    return type == kQ4_0 || type == kQ8_0 || type == kQ4_K || type == kQ6_K;
}

size_t mat_vec_q8_scratch_bytes(int64_t k, int64_t n_tokens) {
    return size_t(n_tokens) * size_t(k) + size_t(n_tokens) * size_t(k / 32) * sizeof(float2) + 256;
}

bool mat_vec_q8_batchable(const DevTensor& a, const DevTensor& b, int64_t n_tokens) {
    if (a.type != b.type || a.ne[0] != b.ne[0] || !mat_vec_q8_supported(a.type)) return false;
    const int rows = mat_vec_q8_config(a, n_tokens).rows_per_warp;
    return rows > 0 && rows == mat_vec_q8_config(b, n_tokens).rows_per_warp;
}

MatVecConfig mat_vec_q8_config(const DevTensor& w, int64_t n_tokens) {
    MatVecConfig c;
    c.rows_per_warp = 0;  // the per-lane kernel
    if (!lanes_layout_fits(w)) return c;
    // From hearth-cuda-kernel-bench on an H200 (one token, 15 shapes of the benchmark models,
    // each read from HBM): two rows a warp were fastest for every format but Q8_0 (its two-row
    // kernel took 30.8 us on 8B's ffn_up against 23.7 with one, from L2), by 5-15 %. Then the
    // row group is split over enough warps to fill the GPU (1 warp for 2048 groups or more (8B's
    // attn_q: 7.5 us against 8.1 with 2), 2 from 1536, else 4) and over as many as keep a warp's
    // share at 8192 elements or less: 8B's ffn_down (14336 wide) took 24.8 us in Q6_K and 18.8 in
    // Q4_K with 4 warps a row pair, 28.5 and 21.1 with 2 (measured for one token only). With more
    // tokens the accumulators multiply: one row a warp.
    c.rows_per_warp = w.type == kQ8_0 || n_tokens > 1 ? 1 : 2;
    const int64_t groups = w.ne[1] / c.rows_per_warp, share = w.ne[0] * c.rows_per_warp;
    const int64_t enough = n_tokens > 1 ? 2400 : 2048;  // 2400: session 26's, for all
    const int for_count = groups >= enough ? 1 : groups >= 1536 ? 2 : 4;
    const int for_share = n_tokens > 1 || share <= 8192 ? 1 : share <= 16384 ? 2 : 4;
    c.warps_per_row = for_count > for_share ? for_count : for_share;
    return c;
}

cudaError_t launch_mat_vec_q8(cudaStream_t s, const DevTensor& dst, const DevTensor& w,
                              const DevTensor& x, void* scratch, bool quantize_x,
                              MatVecConfig cfg) {
    const MatVecProduct p{dst, w};
    return launch_mat_vec_q8_batch(s, std::span(&p, 1), x, scratch, quantize_x, cfg);
}

cudaError_t launch_mat_vec_q8_batch(cudaStream_t s, std::span<const MatVecProduct> products,
                                    const DevTensor& x, void* scratch, bool quantize_x,
                                    MatVecConfig cfg) {
    if (products.empty() || products.size() > size_t(kMaxJobs)) return cudaErrorInvalidValue;
    const DevTensor& w0 = products[0].w;
    const int64_t k = w0.ne[0], nt = x.ne[1];
    if (nt == 0) return cudaSuccess;
    for (const MatVecProduct& p : products)
        if (p.w.type != w0.type || p.w.ne[0] != k) return cudaErrorInvalidValue;
    const bool pick = cfg.rows_per_warp < 0;
    if (pick) cfg = mat_vec_q8_config(w0, nt);
    const int R = cfg.rows_per_warp;
    // Four rows a warp only for one token (its accumulators would not fit with more).
    if (R != 0 && R != 1 && R != 2 && !(R == 4 && nt == 1)) return cudaErrorInvalidValue;
    MatVecJobs jobs{};
    int64_t grid = 0;
    for (size_t i = 0; i < products.size(); ++i) {
        const DevTensor& w = products[i].w;
        const MatVecConfig ci = pick ? mat_vec_q8_config(w, nt) : cfg;
        const int wpr = ci.warps_per_row;
        if (ci.rows_per_warp != R) return cudaErrorInvalidValue;
        if (R != 0 && (!lanes_layout_fits(w) || (wpr != 1 && wpr != 2 && wpr != 4)))
            return cudaErrorInvalidValue;
        jobs.dst[i] = products[i].dst;
        jobs.w[i] = w;
        jobs.wpr[i] = wpr;
        jobs.first[i] = grid;
        const int64_t rows_per_block = 4 / wpr * R;
        if (R != 0) grid += (w.ne[1] + rows_per_block - 1) / rows_per_block;
    }
    for (size_t i = products.size(); i <= size_t(kMaxJobs); ++i) jobs.first[i] = grid;
    if (R == 0 && products.size() != 1) return cudaErrorInvalidValue;
    const auto [q, ds] = q8_act(scratch, k, nt);
    const int64_t groups = nt * (k / 32);
    // Only for a grid about one wave deep: its blocks find the kernel before still running.
    // Deeper grids lost by it on an H200 (hearth-cuda-kernel-bench, one token, pdl against
    // pdl+prefetch: 8B's ffn_up Q4_K 14.9 / 15.6 us, ffn_down Q6_K 22.7 / 23.2) where the
    // shallow ones gained (attn_q Q4_K 7.8 / 7.0, attn_k 3.9 / 3.4, tinyllama's ffn_down
    // Q4_0 4.5 / 4.1).
    jobs.prefetch = launch_policy().prefetch && grid <= int64_t(8) * multiprocessors();
    if (quantize_x)
        launch_pdl(k_quantize_q8, dim3(unsigned((groups + 7) / 8)), dim3(256), s, x, q, ds, k / 32,
                   groups);
    auto launch = [&]<uint32_t T>() {
        for (int64_t t0 = 0; t0 < nt; t0 += kMaxVecT) {
            const int n = int(nt - t0 < kMaxVecT ? nt - t0 : kMaxVecT);
            if (R == 0) {
                const int64_t m = w0.ne[1];
                launch_pdl(k_mat_vec_q8<T>, dim3(unsigned((m + 7) / 8)), dim3(256), s,
                           products[0].dst, w0, q, ds, t0, n);
                continue;
            }
            if (grid == 0) continue;
            const dim3 g{unsigned(grid)}, b{128};
            if (R == 4)
                launch_pdl(k_mat_vec_q8_lanes<T, 4, 1>, g, b, s, jobs, q, ds, t0, n);
            else if (R == 1 && n == 1)
                launch_pdl(k_mat_vec_q8_lanes<T, 1, 1>, g, b, s, jobs, q, ds, t0, n);
            else if (R == 1)
                launch_pdl(k_mat_vec_q8_lanes<T, 1, kMaxVecT>, g, b, s, jobs, q, ds, t0, n);
            else if (n == 1)
                launch_pdl(k_mat_vec_q8_lanes<T, 2, 1>, g, b, s, jobs, q, ds, t0, n);
            else
                launch_pdl(k_mat_vec_q8_lanes<T, 2, kMaxVecT>, g, b, s, jobs, q, ds, t0, n);
        }
    };
    switch (w0.type) {
        case kQ4_0:
            launch.template operator()<kQ4_0>();
            break;
        case kQ8_0:
            launch.template operator()<kQ8_0>();
            break;
        case kQ4_K:
            launch.template operator()<kQ4_K>();
            break;
        case kQ6_K:
            launch.template operator()<kQ6_K>();
            break;
        default:
            return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

}  // namespace hearth::backend::cuda
