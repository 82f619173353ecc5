// A compute device: where buffers live and what runs graphs (through a stream).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "hearth/backend/buffer.h"
#include "hearth/backend/graph.h"
#include "hearth/result.h"

namespace hearth::backend {

struct MemoryInfo {
    uint64_t total_bytes = 0;
    uint64_t free_bytes = 0;
};

struct StreamOptions {
    int n_threads = 0;  // CPU only: worker threads including the caller; 0 = a sensible default
};

// Executes recorded graphs in order. A stream is used by one thread at a time.
class Stream {
public:
    virtual ~Stream() = default;
    // Runs every node of the graph; returns when the results are in the buffers. Nothing is
    // copied to the host: read the outputs from their buffer afterwards.
    virtual Status compute(const Graph& graph) = 0;
};

class Device {
public:
    virtual ~Device() = default;

    virtual std::string name() const = 0;         // "cpu", "vulkan0", ...
    virtual std::string description() const = 0;  // hardware, ISA, driver
    virtual MemoryInfo memory() const = 0;
    // Whether this device can run the node (op and types); the forward pass checks every node
    // of a graph before using a device for it.
    virtual bool supports(const Node& node) const = 0;

    // Fresh device memory (zeroed).
    virtual Result<std::unique_ptr<Buffer>> allocate(size_t bytes) = 0;
    // Device memory holding `bytes`, which stay valid and unchanged while the buffer lives (a
    // mapped model file). The CPU wraps them without copying; a GPU uploads them.
    virtual Result<std::unique_ptr<Buffer>> import_host(std::span<const std::byte> bytes) = 0;

    virtual Result<std::unique_ptr<Stream>> create_stream(const StreamOptions& options) = 0;

    // Readies weight matrices (MatMul's first operand, in buffers of this device) for its
    // kernels now instead of at their first use in a graph: the CPU packs them
    // (cpu/cpu_weights.h), so the first forward pass after a load costs what later ones do.
    // on_done(bytes done, bytes total) after each matrix; false abandons the rest and the
    // result is an error ("cancelled"). Returns the bytes of prepared copies made. Devices
    // with nothing to prepare do nothing.
    using PrepareProgress = std::function<bool(uint64_t done, uint64_t total)>;
    virtual Result<uint64_t> prepare_weights(std::span<const Tensor* const> weights,
                                             const PrepareProgress& on_done) {
        (void)weights;
        (void)on_done;
        return uint64_t{0};
    }
};

}  // namespace hearth::backend
