// Where a model's layers run: layers [0, n_accel) on the accelerator, the rest (and the token
// embedding lookup) on the main device, usually the CPU. The plan is made before anything is
// read: every node a layer needs is checked with the accelerator's supports(), the count fits
// the accelerator's free memory after its KV cache and compute buffers (automatic), and the
// whole model is compared with the memory of each device (the fit check).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hearth/backend/device.h"
#include "hearth/result.h"
#include "runtime/config_support.h"

namespace hearth::runtime {

struct TensorSource;

constexpr int64_t kGpuLayersAuto = -1;
constexpr int64_t kGpuLayersAll = int64_t(1) << 30;

struct Placement {
    backend::Device* main = nullptr;   // embedding lookup, layers [n_accel, n_layer)
    backend::Device* accel = nullptr;  // layers [0, n_accel); null: everything on main
    int64_t n_accel = 0;
    bool output_on_accel = false;  // output norm and matrix (only when every layer is there)

    backend::Device& layer_device(int64_t layer) const {
        return accel && layer < n_accel ? *accel : *main;
    }
    backend::Device& output_device() const { return output_on_accel ? *accel : *main; }
};

// What a plan is for: the context and KV type the caches will have and the batch size.
struct PlanOptions {
    int64_t gpu_layers = kGpuLayersAuto;  // a count, kGpuLayersAuto or kGpuLayersAll
    int64_t n_ctx = 0;
    backend::DType kv_type = backend::DType::F16;
    int64_t n_batch = 256;
};

struct DeviceNeed {
    std::string device;  // device name
    uint64_t weights = 0, kv = 0, compute = 0;
    uint64_t available = 0;  // free memory (available RAM for the CPU)
    uint64_t total() const { return weights + kv + compute; }
};

struct PlacementPlan {
    int64_t n_accel = 0;
    bool output_on_accel = false;
    std::vector<DeviceNeed> needs;  // main first, then the accelerator when it has anything
    // Why layers stay on the main device: "layers 5-11 stay on the CPU: ref cannot run ...".
    std::vector<std::string> notes;
};

// Memory a safety margin keeps free on an accelerator: 5% of it, at least 16 MiB.
uint64_t accel_margin(const backend::MemoryInfo& m);
// Bytes of one layer's weights as stored in `source` (blk.N.*).
uint64_t layer_weight_bytes(const TensorSource& source, int64_t layer);
// Bytes of K and V of one layer for n_ctx positions.
uint64_t kv_layer_bytes(const ModelConfig& p, int64_t n_ctx, backend::DType kv_type);
// Activations and one logits row for a batch (Forward's buffers on one device).
uint64_t compute_bytes(const ModelConfig& p, int64_t n_batch);

// The plan for `main` (+ `accel`, may be null). Nothing is allocated or read.
PlacementPlan plan_placement(const ModelConfig& p, const TensorSource& source,
                             backend::Device& main, backend::Device* accel,
                             const PlanOptions& options);

// Whether the plan fits every device; the error reads "needs 9.1 GB, 6.2 GB available on the
// CPU; try INT4 weights or a shorter context".
Status check_fit(const PlacementPlan& plan);

// "1.2 GB", "340 MB", "12 KB": decimal units, as people read memory sizes.
std::string format_bytes(uint64_t bytes);

}  // namespace hearth::runtime
