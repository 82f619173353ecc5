// Where a CPU stream's time goes, for tuning (HEARTH_CPU_PROFILE=1): the wall time of every
// dispatch (a node, or a run of nodes fused into one, cpu_fuse.h) summed per kind (its label
// without the layer, "blk.3.attn_q" -> "attn_q", the op and the rows it computes), and the
// whole graphs' time, in a table on stderr when the stream is destroyed. Off (the default),
// it costs one branch per dispatch.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include "hearth/backend/graph.h"

namespace hearth::backend::cpu_ops {

class StreamProfile {
public:
    using Clock = std::chrono::steady_clock;
    static bool enabled_from_env();

    explicit StreamProfile(bool on) : on_(on) {}
    ~StreamProfile();
    StreamProfile(const StreamProfile&) = delete;
    StreamProfile& operator=(const StreamProfile&) = delete;

    bool on() const { return on_; }
    // A dispatch that ran `nodes` nodes from `first` (1: not fused) since `t0`.
    void add(const Node& first, size_t nodes, Clock::time_point t0);
    void add_graph(Clock::time_point t0);
    std::string report() const;

private:
    struct Sum {
        uint64_t count = 0;
        double us = 0;
    };
    bool on_;
    Sum graphs_;
    std::map<std::string, Sum> kinds_;
};

}  // namespace hearth::backend::cpu_ops
