// From graph nodes to kernel dispatches: which nodes the Vulkan backend runs (supports), and
// for a node the dispatches with their tensor byte ranges and push constants. Tensors larger
// than one binding may cover (maxStorageBufferRange) are split: weight tables by rows
// (GetRows, MatMul), activations by columns (MatMul); other tensors must fit in one binding
// (supports says no otherwise, and the layer stays on the CPU).
#pragma once

#include <functional>
#include <vector>

#include "hearth/backend/graph.h"
#include "vk_context.h"
#include "vk_pipelines.h"

namespace hearth::backend::vk {

// A byte range [begin, end) of a buffer bound to one slot; nullptr: the unused-slot dummy.
struct Binding {
    const VkBuf* buf = nullptr;
    VkDeviceSize begin = 0, end = 0;
    bool write = false;
    bool atomic = false;  // written only through atomics in any order: never needs a barrier
};

struct Dispatch {
    const char* kernel = "";
    uint32_t fmt = 0;  // specialization constant 0: the weight or cache type
    Binding b[kBindings];
    Push pc;
    uint32_t groups[3] = {1, 1, 1};
    // The kernel checks indices (token ids, expert ids, KV cells): the stream binds its error
    // words to slot error_binding (7 unless the kernel uses 7 for something else) and puts the
    // node's index + 1 in u15.
    bool index_errors = false;
    uint32_t error_binding = 7;
};

// What the error words say, for the node that reported (word 1, word 2).
std::string index_error_text(const Node& n, uint32_t what, int32_t value);

// The inverse frequencies of a RoPE node as (hi, lo) float pairs, in a buffer the stream owns.
using RopeTable = std::function<Result<const VkBuf*>(const RopeParams&)>;
// A device buffer of at least `bytes` the stream owns (split-K attention partials).
using Scratch = std::function<Result<const VkBuf*>(size_t bytes)>;

// Whether the node's op and types (and sizes against the binding limit) are implemented.
bool supports_node(const Context& ctx, const Node& n);
// Why not, in words ("" when supported).
std::string unsupported_reason(const Context& ctx, const Node& n);

// Appends the node's dispatches; the node is validated and supported.
Status encode_node(const Context& ctx, const Node& n, const RopeTable& rope, const Scratch& scratch,
                   std::vector<Dispatch>& out);

// How many shares split-K attention cuts the cells of each (head, token) into: 1 when there
// are enough (head, token) workgroups to fill the device, more for long caches (decode over a
// long context). HEARTH_VULKAN_ATTN_SPLIT forces a count (tests).
uint32_t attention_splits(const Context& ctx, int64_t heads, int64_t tokens, int64_t cells,
                          int64_t head_dim);

}  // namespace hearth::backend::vk
