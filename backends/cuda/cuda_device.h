// The CUDA device of hearth-backend-cuda: device memory through a caching pool, uploads through
// pinned staging, and a stream per context that runs a graph's nodes as kernels on its own
// CUDA stream, capturing a repeated step (the same nodes on the same tensors: a decode step)
// into a CUDA graph and replaying it.
#pragma once

#include <memory>

#include "hearth/backend/device.h"
#include "hearth/result.h"

namespace hearth::backend::cuda {

// Device `index` of the CUDA runtime; the driver must have been checked (check_driver()).
Result<std::unique_ptr<Device>> make_cuda_device(int index);

}  // namespace hearth::backend::cuda
