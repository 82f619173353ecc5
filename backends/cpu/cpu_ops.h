// The CPU backend's ops: the matrix products call the kernels of cpu/kernels (weights stay in
// their file format), the rest are small loops. Work is split across the thread pool by rows
// (matrix products, norms) or by (token, head) pairs (attention). Nothing here allocates:
// the stream sizes the scratch for a whole graph before running it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cpu/kernels/packed.h"
#include "cpu/thread_pool.h"
#include "hearth/backend/graph.h"
#include "hearth/result.h"

namespace hearth::backend::cpu_ops {

struct Scratch {
    // Quantized activation rows of one matmul, from activation_rows(): the first 64-byte
    // boundary of the vector (reserve_activation_rows grows it that much past the rows' need),
    // so that rows whose length is a multiple of 32 bytes never have an AMX tile row straddle
    // two cache lines.
    std::vector<std::byte> activations;
    static constexpr size_t kRowAlign = 64;
    void reserve_activation_rows(size_t bytes) {
        if (activations.size() < bytes + kRowAlign) activations.resize(bytes + kRowAlign);
    }
    std::byte* activation_rows() {
        const auto at = reinterpret_cast<uintptr_t>(activations.data());
        return activations.data() + (kRowAlign - at % kRowAlign) % kRowAlign;
    }
    std::vector<float> per_thread;  // per-thread rows for attention and RoPE
    size_t per_thread_floats = 0;   // floats reserved per thread in per_thread
    std::vector<int64_t> tiles;     // attention: token tiles of one graph node
    // Attention steps that split their segments across threads (cpu_attention.cpp): the
    // per-segment partial results, the items (runs of segments) and per tile its first
    // segment, offset of its results and number of segments. Grown on first use, then kept.
    std::vector<float> attn_parts;
    std::vector<int64_t> attn_items;
    std::vector<int64_t> attn_tiles;
    // Decode steps of more sequences than threads (one run of items per thread): the items'
    // prefix sums of cells read, and the runs' first items then the end.
    std::vector<int64_t> attn_cuts;
    std::vector<int64_t> attn_runs;
    std::vector<int32_t> moe_pairs;  // MoE: (slot, token) pairs grouped by expert
    std::vector<float> moe_out;      // MoE: an expert's gemm output before the scatter
    // RoPE's angles ([token][n_rot / 2] cos, sin pairs), made by a graph's first Rope node and
    // reused by the next ones of the same graph with the same positions and parameters (every
    // layer of a model): rope_for says for which. graph: the stream's count of graphs run.
    std::vector<float> rope_table;
    struct RopeFor {
        uint64_t graph = ~uint64_t(0);
        const void* pos = nullptr;
        const void* freq_factors = nullptr;
        int64_t tokens = 0;
        RopeParams p;
    } rope_for;
    uint64_t graph = 0;
    // What activation_rows() holds: a MatMul's input rows prepared for its weight type, kept
    // for the next MatMul of the same rows and a type that takes the same preparation (a
    // prefill's K and V after Q, up after gate) until a node writes over those rows
    // (forget_prepared_if_written, after every node) or another user of activation_rows()
    // writes there (a fused run, an MoE product: forget_prepared).
    struct Prepared {
        Tensor rows;  // invalid: nothing is kept
        quant::Type wt = quant::Type::F32;
        bool serves(const Prepared& want) const;
    } prepared;
    void forget_prepared() { prepared = Prepared{}; }
    void forget_prepared_if_written(const Tensor& dst);
};

// Whether two tensors are the same view (buffer, offset, type, shape, strides), and whether
// their bytes overlap (tensors of different buffers never do).
bool same_view(const Tensor& a, const Tensor& b);
bool overlap(const Tensor& a, const Tensor& b);

// Bytes/floats the scratch needs for one node (the stream takes the max over a graph).
size_t activation_bytes(const Node& node);
size_t per_thread_floats(const Node& node);
size_t rope_table_floats(const Node& node);

Status run_node(const Node& node, cpu::ThreadPool& pool, Scratch& scratch);

// cpu_attention.cpp: attention over the (paged) KV cache.
Status attention(const Node& node, cpu::ThreadPool& pool, Scratch& scratch);
size_t attention_per_thread_floats(const Node& node);

// cpu_ops_moe.cpp: GeGLU, scaling, soft-capping and the mixture-of-experts ops.
void elementwise(const Node& node, cpu::ThreadPool& pool);
Status moe_route(const Node& node, cpu::ThreadPool& pool);
Status moe_mat_mul(const Node& node, cpu::ThreadPool& pool, Scratch& scratch);
void moe_combine(const Node& node, cpu::ThreadPool& pool);
size_t moe_activation_bytes(const Node& node);
// cpu_argmax.cpp: the index of each column's largest value (greedy sampling).
void argmax(const Node& node, cpu::ThreadPool& pool);
// Rows [b, e) of MatMul n's output for every token of its input, from the tokens' prepared
// activations (xq_stride bytes apart): through the packed copy pw when there is one (b and e
// then whole 16-row groups), else gemv for one token and gemm for several. The one place that
// picks the kernel for mat_mul and the fused groups (cpu_fuse.cpp), so both give the same bits.
void mat_mul_rows(const Node& n, const cpu::PackedWeight* pw, const std::byte* xq, size_t xq_stride,
                  size_t b, size_t e);
// Items per parallel chunk so that each chunk has about the given work.
size_t grain_for(size_t work_per_item);
// Steps of up to this many tokens (decode, batched decode, a verification step) read their
// matrices from memory once, and are cut by weight bytes (short_step_chunks).
constexpr size_t kShortStepTokens = 8;
// Parallel chunks for a short step's product over `weight_bytes` of weights: four per thread
// (a descheduled thread then holds up little), but none under kMinStreamBytes, at least one per
// thread, and the same number for every thread.
size_t short_step_chunks(size_t weight_bytes, size_t threads);

}  // namespace hearth::backend::cpu_ops
