// hearth-cli bench (default mode): prompt processing and token generation speed in the manner
// of llama-bench, plus the memory-bandwidth floor of decoding.
#pragma once

#include "args.h"

namespace hearth::cli {

// Options: -m, -p, -n, -t, -r, --json, --kv-type, --no-floor. Returns the exit code.
int run_bench_speed(const Args& args);

}  // namespace hearth::cli
