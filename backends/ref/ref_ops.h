// The reference implementation of every op: plain scalar loops with float64 accumulation.
// It is the oracle every backend is tested against, so it favours clarity over speed.
#pragma once

#include "hearth/backend/graph.h"
#include "hearth/result.h"

namespace hearth::backend::ref {

// Runs one validated node whose tensors are all in host memory.
Status run_node(const Node& node);

}  // namespace hearth::backend::ref
