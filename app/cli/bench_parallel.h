// hearth-cli bench --parallel: continuous batching throughput and latency, driving the
// scheduler directly and (--http) through the API server.
#pragma once

#include "args.h"

namespace hearth::cli {

// Options: -m, -p, -n, -t, --parallel LIST, --http, --batch. Returns the exit code.
int run_bench_parallel(const Args& args);

}  // namespace hearth::cli
