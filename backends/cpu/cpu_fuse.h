// Decode-step fusion on the CPU: runs of graph nodes that the forward pass records separately
// run as one pool dispatch (one wake-up of the workers) when the step is short (at most 16
// tokens: a decode step, several sequences' batched decode, a speculative verification):
//   - consecutive MatMuls of one input (Q/K/V; gate/up) whose weight types take the same
//     prepared rows: the tokens are prepared once and every matrix's rows are shared out in
//     one dispatch;
//   - gate + up followed by their SwiGLU: each work item computes rows [b, e) of both and
//     then their SwiGLU, so the activation never makes a separate pass;
//   - a MatMul followed by an Add of its output (the residual, or a bias): each work item adds
//     the rows it has just computed.
// The op set is unchanged (the graph is the same for every backend); this is only how the CPU
// runs it. Every row goes through the same kernel as unfused, and a (row, token) result does
// not depend on how rows are split (kernels_gemvf_test, cpu_kernels_test), so the
// results are bit-identical with fusion on or off (forward_fusion_test).
// HEARTH_CPU_FUSE=0 turns it off.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cpu/cpu_ops.h"

namespace hearth::backend {

// Whether the CPU fuses decode steps: HEARTH_CPU_FUSE unset or anything but "0" (read once).
bool cpu_fusion_enabled();
// Tests: turns fusion on or off for streams created afterwards; returns the old setting.
bool cpu_set_fusion(bool on);
// Fused groups run so far in this process, and the MatMuls they ran (tests check that fusion
// took place, and which products joined).
uint64_t cpu_fused_groups();
uint64_t cpu_fused_mat_muls();

namespace cpu_ops {

// Runs nodes[i] and the ones after it that fuse with it; returns how many nodes it ran, or 0
// when nodes[i] starts no fused group (the caller then runs it alone). A group that could
// fail (unsupported weight type, rows that are not dense, tensors that overlap) is not fused,
// so run_node reports its error as before. Allocates nothing.
size_t run_fused(const std::vector<Node>& nodes, size_t i, cpu::ThreadPool& pool, Scratch& scratch);

}  // namespace cpu_ops
}  // namespace hearth::backend
