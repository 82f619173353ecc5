// Where a CUDA stream's time goes, for tuning on a GPU (HEARTH_CUDA_PROFILE): 1 counts steps
// (eager, captured, replayed) and the host time spent preparing, launching and waiting; 2 also
// times every kernel with a pair of events (graphs off, so each node runs eagerly) and sums the
// GPU time per node kind (op, label, weight type, shape); 3 does the same inside a graph
// captured afresh each step, so the GPU runs the nodes back to back as in a replayed step (at
// 2 the host's launches leave gaps that small kernels' times include). The table goes to stderr
// when the stream is destroyed. Off (the default), it costs nothing.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hearth::backend::cuda {

class StreamProfile {
public:
    // 0 off, 1 host counters, 2 and 3 host counters and per-node GPU times, eager and in a
    // graph (from HEARTH_CUDA_PROFILE).
    static int level_from_env();

    explicit StreamProfile(int level) : level_(level) {}
    ~StreamProfile();
    StreamProfile(const StreamProfile&) = delete;
    StreamProfile& operator=(const StreamProfile&) = delete;

    bool on() const { return level_ > 0; }
    bool timing_nodes() const { return level_ > 1; }
    bool timing_in_graph() const { return level_ > 2; }

    enum class Phase { Prepare, Launch, Wait };
    enum class Kind { Eager, Capture, Replay };
    using Clock = std::chrono::steady_clock;
    void add_host(Phase p, Clock::time_point since);
    void count(Kind k);

    // Per-node GPU timing: events before and after node i of a step of n nodes.
    void begin_step(size_t n_nodes);
    void before(cudaStream_t s, size_t i);
    void after(cudaStream_t s, size_t i, const std::string& key);
    // After the step's synchronisation: adds the nodes' times.
    void end_step();

    // The table (also written by the destructor).
    std::string report() const;

private:
    struct Sum {
        uint64_t count = 0;
        double ms = 0;
    };
    int level_;
    uint64_t steps_[3] = {};
    double host_us_[3] = {};
    std::vector<cudaEvent_t> events_;
    std::vector<std::string> keys_;
    size_t pending_ = 0;
    std::map<std::string, Sum> nodes_;
};

}  // namespace hearth::backend::cuda
