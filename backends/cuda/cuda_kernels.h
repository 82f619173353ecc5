// The launchers of the CUDA kernels, callable from host C++ (cuda_device.cpp) without nvcc.
// Tensors cross as DevTensor: a device address and ggml-style ne/nb (byte strides). Every
// launcher enqueues on `stream` and returns at once; index errors found on the device (a token
// id outside the vocabulary, a KV cell outside the cache) are written to `err` (DevError) and
// read back by the stream after it synchronises.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <cuda_runtime_api.h>

namespace hearth::backend::cuda {

struct DevTensor {
    char* p = nullptr;
    uint32_t type = 0;  // DType id
    int64_t ne[4] = {1, 1, 1, 1};
    int64_t nb[4] = {0, 0, 0, 0};
};

// A dense matrix at p: m rows of k elements of `type`, row_bytes apart (the kernel bench's
// and the device tests' operands).
inline DevTensor dev_matrix(void* p, uint32_t type, int64_t k, int64_t m, int64_t row_bytes) {
    DevTensor t;
    t.p = static_cast<char*>(p);
    t.type = type;
    t.ne[0] = k;
    t.ne[1] = m;
    t.nb[0] = 1;
    t.nb[1] = row_bytes;
    t.nb[2] = t.nb[3] = row_bytes * m;
    return t;
}

// The first device-side error of a step: which node, what kind, the offending value.
struct DevError {
    int32_t node = -1;
    int32_t code = 0;  // DevErrorCode
    int64_t value = 0;
};
enum DevErrorCode : int32_t {
    kErrNone = 0,
    kErrTokenId = 1,   // GetRows id outside the table
    kErrExpertId = 2,  // MoeMatMul id outside the experts
    kErrKvIndex = 3,   // a sequence id, position or block table entry outside the cache
};

// Rope and KV parameters in plain form (the graph's structs live in hearth/backend/graph.h,
// which nvcc does not need to see).
struct RopeArgs {
    int32_t adjacent = 1;
    int32_t n_rot = 0;
    float freq_base = 10000.f, freq_scale = 1.f, attn_factor = 1.f;
};
struct KvArgs {
    DevTensor positions, block_table, seq_ids;  // seq_ids.p == nullptr: every token in seq 0
    int32_t block_size = 1;
    float scale = 1.f, softcap = 0.f;
    int32_t window = 0;
};

// How the launchers of this thread launch (cuda_pdl.cuh): CudaStream sets it for the steps it
// enqueues (LaunchPolicyScope); everything else (tests, the kernel bench) gets plain launches.
struct LaunchPolicy {
    bool pdl = false;       // kernels that follow pdl_wait()'s rule launch with PDL
    bool prefetch = false;  // dp4a products prefetch their first blocks' rows before waiting
};
LaunchPolicy& launch_policy();

class LaunchPolicyScope {
public:
    explicit LaunchPolicyScope(LaunchPolicy p) : saved_(launch_policy()) { launch_policy() = p; }
    ~LaunchPolicyScope() { launch_policy() = saved_; }
    LaunchPolicyScope(const LaunchPolicyScope&) = delete;
    LaunchPolicyScope& operator=(const LaunchPolicyScope&) = delete;

private:
    LaunchPolicy saved_;
};

// Whether this build carries machine code or PTX the device can run (HEARTH_CUDA_ARCHITECTURES).
bool kernels_loadable(int device);
// The architectures this plugin was built for ("90", "75-real;80-real;...").
const char* built_architectures();

// Whether the kernels handle this weight type (GetRows, MatMul, MoeMatMul).
bool weight_type_supported(uint32_t type);
// Whether the kernels handle this KV cache type.
bool kv_type_supported(uint32_t type);
// The largest head size the attention kernels take.
constexpr int64_t kMaxHeadDim = 256;

// Each returns cudaGetLastError() of its launches.
cudaError_t launch_get_rows(cudaStream_t s, const DevTensor& dst, const DevTensor& table,
                            const DevTensor& ids, DevError* err, int node);
// tensor_cores: batches of more than 16 tokens over block-format weights take the mma kernel
// (half-precision operands, float sums); false keeps them on the float kernel.
cudaError_t launch_mat_mul(cudaStream_t s, const DevTensor& dst, const DevTensor& w,
                           const DevTensor& x, bool tensor_cores = true);
// Prefill of block-format weights in two passes (cuda_gemm.cu): the weights decoded to half
// precision into `scratch` (in chunks of rows), the activations rounded to half there too, then a
// tiled tensor-core product. The same floats as launch_mat_mul's tensor-core kernel. sm_80 and
// later; batches of more than kGemmMinTokens tokens.
constexpr int64_t kGemmMinTokens = 16;
bool gemm_f16_applies(const DevTensor& w, int64_t n_tokens);
// 0 where it does not apply. A smaller scratch (down to the activations and 128 rows) works
// too, in more chunks.
size_t gemm_f16_scratch_bytes(const DevTensor& w, int64_t n_tokens);
cudaError_t launch_gemm_f16(cudaStream_t s, const DevTensor& dst, const DevTensor& w,
                            const DevTensor& x, void* scratch, size_t scratch_bytes);
// Decode with 8-bit activations and dp4a (cuda_matvec_q8.cu) for Q4_0, Q8_0, Q4_K and Q6_K
// weights and at most kMaxQ8Tokens tokens; `scratch` holds the quantized activations.
constexpr int64_t kMaxQ8Tokens = 16;
bool mat_vec_q8_supported(uint32_t type);
size_t mat_vec_q8_scratch_bytes(int64_t k, int64_t n_tokens);
// How the decode kernel splits the work: rows_per_warp 0 is the per-lane kernel (any row
// alignment), 1, 2 or (one token only) 4 the coalesced one with warps_per_row 1, 2 or 4 warps
// on each row; -1 (the default) is mat_vec_q8_config's choice.
struct MatVecConfig {
    int rows_per_warp = -1;
    int warps_per_row = 1;
};
// The configuration launch_mat_vec_q8 picks for w (measured on an H200 with
// hearth-cuda-kernel-bench).
MatVecConfig mat_vec_q8_config(const DevTensor& w, int64_t n_tokens);
// quantize_x false: scratch already holds x quantized (the previous launch's x was the same
// tensor, as for a layer's Q, K and V products). cfg: the kernel bench's alternatives.
cudaError_t launch_mat_vec_q8(cudaStream_t s, const DevTensor& dst, const DevTensor& w,
                              const DevTensor& x, void* scratch, bool quantize_x = true,
                              MatVecConfig cfg = {});
// Up to three products of the same x in one launch (a layer's Q, K and V; its gate and up):
// weights for which mat_vec_q8_batchable holds, each in the split mat_vec_q8_config picks for
// it (cudaErrorInvalidValue, and nothing launched, otherwise).
struct MatVecProduct {
    DevTensor dst, w;
};
bool mat_vec_q8_batchable(const DevTensor& a, const DevTensor& b, int64_t n_tokens);
cudaError_t launch_mat_vec_q8_batch(cudaStream_t s, std::span<const MatVecProduct> products,
                                    const DevTensor& x, void* scratch, bool quantize_x = true,
                                    MatVecConfig cfg = {});
cudaError_t launch_moe_mat_mul(cudaStream_t s, const DevTensor& dst, const DevTensor& w,
                               const DevTensor& x, const DevTensor& ids, DevError* err, int node);

enum class Ew : int32_t { Add, SwiGlu, GeGlu, Scale, SoftCap };
cudaError_t launch_elementwise(cudaStream_t s, Ew op, const DevTensor& dst, const DevTensor& a,
                               const DevTensor& b, float alpha);
// dst = rms_norm(a) * w (cuda_fused.cu). With add_b and sum: a + add_b is written to sum and
// normalised instead (the residual Add before a norm). With q8_scratch: dst is also quantized
// there for the next launch_mat_vec_q8 of dst (launched with quantize_x false). w_constant:
// no kernel of the step writes w (a model weight), so it is read before pdl_wait().
cudaError_t launch_rms_norm(cudaStream_t s, const DevTensor& dst, const DevTensor& a,
                            const DevTensor& w, float eps, const DevTensor* add_b = nullptr,
                            const DevTensor* sum = nullptr, void* q8_scratch = nullptr,
                            bool w_constant = false);
// dst = silu(a) * b, also quantized into q8_scratch for the next dp4a product of dst.
cudaError_t launch_swiglu_q8(cudaStream_t s, const DevTensor& dst, const DevTensor& a,
                             const DevTensor& b, void* q8_scratch);
// With dst_b and b: b is rotated into dst_b in the same launch (same positions and args).
cudaError_t launch_rope(cudaStream_t s, const DevTensor& dst, const DevTensor& a,
                        const DevTensor& positions, const DevTensor& freq_factors,
                        const RopeArgs& r, const DevTensor* dst_b = nullptr,
                        const DevTensor* b = nullptr);
cudaError_t launch_moe_route(cudaStream_t s, const DevTensor& weights, const DevTensor& ids,
                             const DevTensor& logits, int32_t k, bool renorm);
cudaError_t launch_moe_combine(cudaStream_t s, const DevTensor& dst, const DevTensor& a,
                               const DevTensor& w);
// dst I32 [1, T]: the index of each column's largest value of a (cuda_argmax.cuh's order).
cudaError_t launch_argmax(cudaStream_t s, const DevTensor& dst, const DevTensor& a);

// With cache_b and b: b is appended to cache_b in the same launch (same KvArgs; its errors are
// reported as node + 1's).
cudaError_t launch_kv_append(cudaStream_t s, const DevTensor& cache, const DevTensor& a,
                             const KvArgs& kv, DevError* err, int node,
                             const DevTensor* cache_b = nullptr, const DevTensor* b = nullptr);
// RoPE of q into q_dst and of k into k_dst, with k_dst's rotated rows also appended to k_cache
// and v's rows to v_cache (F32 or F16 caches, the same type): the launches of RoPE (Q, K) and
// KvAppend (K, V) as one. k is [hd, Hkv, T] and its rows are k_cache's rows; v is [n, T].
// Errors are reported as node's (K's append) and node + 1's (V's).
struct RopeKvArgs {
    DevTensor q_dst, q, k_dst, k, k_cache, v, v_cache, positions, freq_factors;
};
bool rope_kv_supported(uint32_t cache_type);
cudaError_t launch_rope_kv(cudaStream_t s, const RopeKvArgs& a, const RopeArgs& r, const KvArgs& kv,
                           DevError* err, int node);
// Attention splits the cells of a sequence into chunks for decode (flash-decoding) when few
// tokens are in the batch; the partial results go to `scratch` (attention_scratch_bytes), and
// the last split of each (token, head) to finish, as counted in `counts`
// (attention_count_words, zero before the first launch: each launch leaves them so), merges
// them.
size_t attention_scratch_bytes(const DevTensor& q, const KvArgs& kv);
size_t attention_count_words(const DevTensor& q, const KvArgs& kv);
// With q8_scratch: when there are splits, the merge also quantizes the output (as one row of
// H * hd per token) for the dp4a product that reads it, and *quantized says whether it did.
cudaError_t launch_attention(cudaStream_t s, const DevTensor& dst, const DevTensor& q,
                             const DevTensor& k_cache, const DevTensor& v_cache, const KvArgs& kv,
                             float* scratch, unsigned* counts, DevError* err, int node,
                             void* q8_scratch = nullptr, bool* quantized = nullptr);

}  // namespace hearth::backend::cuda
