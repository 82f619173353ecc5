#include "cpu/cpu_device.h"

#include <algorithm>
#include <string>
#include <thread>

#include "core/host_access.h"
#include "core/host_buffer.h"
#include "core/host_memory.h"
#include "cpu/cpu_fuse.h"
#include "cpu/cpu_ops.h"
#include "cpu/cpu_profile.h"
#include "cpu/cpu_weights.h"
#include "cpu/kernels/kernels.h"
#include "cpu/thread_pool.h"

namespace hearth::backend {

namespace {

class CpuStream final : public Stream {
public:
    explicit CpuStream(int n_threads)
        : pool_(n_threads),
          fuse_(cpu_fusion_enabled()),
          profile_(cpu_ops::StreamProfile::enabled_from_env()) {}

    Status compute(const Graph& graph) override {
        if (Status s = validate_graph(graph); !s) return s;
        size_t act = 0, per_thread = 0, rope = 0;
        for (const Node& n : graph.nodes()) {
            if (!node_on_host(n)) return Status::error("cpu backend: tensor not in host memory");
            act = std::max(act, cpu_ops::activation_bytes(n));
            per_thread = std::max(per_thread, cpu_ops::per_thread_floats(n));
            rope = std::max(rope, cpu_ops::rope_table_floats(n));
        }
        // Grows only when a graph needs more than any before it: steady-state steps reuse it.
        scratch_.reserve_activation_rows(act);
        if (scratch_.rope_table.size() < rope) scratch_.rope_table.resize(rope);
        ++scratch_.graph;            // the rope table of an earlier graph is stale
        scratch_.forget_prepared();  // its inputs may have been rewritten since
        // Each thread's share is a multiple of 16 floats long, so every share is as aligned as
        // the vector's start and ops can keep pointers in it.
        per_thread = (per_thread + 15) / 16 * 16;
        const size_t need = per_thread * static_cast<size_t>(pool_.size());
        if (scratch_.per_thread.size() < need) scratch_.per_thread.resize(need);
        scratch_.per_thread_floats = per_thread;
        const std::vector<Node>& nodes = graph.nodes();
        using Clock = cpu_ops::StreamProfile::Clock;
        const bool prof = profile_.on();
        const Clock::time_point g0 = prof ? Clock::now() : Clock::time_point{};
        for (size_t i = 0; i < nodes.size();) {
            const Clock::time_point t0 = prof ? Clock::now() : Clock::time_point{};
            // A short step's fusable runs of nodes go as one dispatch (cpu_fuse.h).
            if (fuse_)
                if (const size_t ran = cpu_ops::run_fused(nodes, i, pool_, scratch_); ran > 0) {
                    if (prof) profile_.add(nodes[i], ran, t0);
                    i += ran;
                    continue;
                }
            if (Status s = cpu_ops::run_node(nodes[i], pool_, scratch_); !s) return s;
            scratch_.forget_prepared_if_written(nodes[i].dst);
            if (prof) profile_.add(nodes[i], 1, t0);
            ++i;
        }
        if (prof) profile_.add_graph(g0);
        return Status::ok();
    }

private:
    cpu::ThreadPool pool_;
    const bool fuse_;  // cpu_fusion_enabled() when the stream was made
    cpu_ops::Scratch scratch_;
    cpu_ops::StreamProfile profile_;
};

// Threads of a pool asked for n (0 or less: every hardware thread), at most 256.
int pool_threads(int n) {
    if (n <= 0) n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    return std::min(n, 256);
}

class CpuDevice final : public Device {
public:
    std::string name() const override { return "cpu"; }
    std::string description() const override {
        return "CPU, " + std::to_string(std::max(1u, std::thread::hardware_concurrency())) +
               " threads, kernels: " + std::string(cpu::isa_name(cpu::active_isa())) +
               (cpu::amx_active() ? "+amx" : "");
    }
    MemoryInfo memory() const override {
        return host_memory();  // available RAM (MemAvailable), not just free pages
    }
    bool supports(const Node& n) const override {
        if (n.op == Op::MatMul || n.op == Op::MoeMatMul)
            return cpu::supports_weight_type(n.src[0].type);
        return true;
    }
    Result<std::unique_ptr<Buffer>> allocate(size_t bytes) override {
        auto b = HostBuffer::allocate(bytes);
        if (!b)
            return Result<std::unique_ptr<Buffer>>::error("out of memory allocating " +
                                                          std::to_string(bytes) + " bytes");
        return std::unique_ptr<Buffer>(std::move(b));
    }
    // The model file: borrowed, with packed copies of its Q4_0 / Q8_0 / Q4_K / Q6_K matrices
    // (cpu_weights.h).
    Result<std::unique_ptr<Buffer>> import_host(std::span<const std::byte> bytes) override {
        auto b = CpuWeightBuffer::borrow(bytes);
        if (!b) return Result<std::unique_ptr<Buffer>>::error("out of memory");
        return std::unique_ptr<Buffer>(std::move(b));
    }
    Result<std::unique_ptr<Stream>> create_stream(const StreamOptions& options) override {
        return std::unique_ptr<Stream>(
            std::make_unique<CpuStream>(pool_threads(options.n_threads)));
    }
    // The packed copies the matrix kernels would make at first use (CpuWeightBuffer::packed,
    // the same key), made now on every hardware thread.
    Result<uint64_t> prepare_weights(std::span<const Tensor* const> weights,
                                     const PrepareProgress& on_done) override {
        uint64_t total = 0, done = 0, made = 0;
        for (const Tensor* w : weights) total += w->span_bytes();
        std::unique_ptr<cpu::ThreadPool> pool;
        for (const Tensor* w : weights) {
            if (auto* wbuf = dynamic_cast<CpuWeightBuffer*>(w->buffer)) {
                if (!pool) pool = std::make_unique<cpu::ThreadPool>(pool_threads(0));
                const size_t before = wbuf->packed_bytes();
                wbuf->packed(*w, *pool);
                made += wbuf->packed_bytes() - before;
            }
            done += w->span_bytes();
            if (on_done && !on_done(done, total))
                return Result<uint64_t>::error("preparing the weights: cancelled");
        }
        return made;
    }
};

}  // namespace

std::unique_ptr<Device> make_cpu_device() {
    return std::make_unique<CpuDevice>();
}

}  // namespace hearth::backend
