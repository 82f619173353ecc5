// The CPU backend's ops: the matrix products call the kernels of cpu/kernels (weights stay in
// their file format), the rest are small loops. Work is split across the thread pool by rows
// (matrix products, norms) or by (token, head) pairs (attention). Nothing here allocates:
// the stream sizes the scratch for a whole graph before running it.
#pragma once

#include <cstddef>
#include <vector>

#include "cpu/thread_pool.h"
#include "hearth/backend/graph.h"
#include "hearth/result.h"

namespace hearth::backend::cpu_ops {

struct Scratch {
    std::vector<std::byte> activations;  // quantized activation rows of one matmul
    std::vector<float> per_thread;       // per-thread rows for attention and RoPE
    size_t per_thread_floats = 0;        // floats reserved per thread in per_thread
    std::vector<int64_t> tiles;          // attention: token tiles of one graph node
};

// Bytes/floats the scratch needs for one node (the stream takes the max over a graph).
size_t activation_bytes(const Node& node);
size_t per_thread_floats(const Node& node);

Status run_node(const Node& node, cpu::ThreadPool& pool, Scratch& scratch);

}  // namespace hearth::backend::cpu_ops
