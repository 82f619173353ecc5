// A CUDA stream per context: runs a graph's nodes as kernels, in order, on its own
// (non-blocking) CUDA stream, and returns when they are done. A step that repeats the previous
// one exactly (same ops, tensors, shapes and parameters: the next decode step) is captured
// into a CUDA graph on its second occurrence and replayed from then on; any change (another
// batch shape, a longer block table) runs eagerly and is captured again when it repeats.
// HEARTH_CUDA_GRAPHS=0 turns capture off; HEARTH_CUDA_PROFILE=1|2 reports where the time went
// (cuda_profile.h).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "hearth/backend/device.h"

namespace hearth::backend::cuda {

std::unique_ptr<Stream> make_cuda_stream(int device, Status* error);

}  // namespace hearth::backend::cuda
