// A STREAM-like read bandwidth measurement: every thread of the pool sums its share of a large
// buffer. `hearth-cli bench` uses it for the decode floor (bytes per token / bandwidth), so it
// must be an upper bound: several read patterns (scalar, 256- and 512-bit loads, software
// prefetch, streaming loads; contiguous or interleaved shares), the best pass of all.
#pragma once

#include <cstddef>

#include "thread_pool.h"

namespace hearth::cpu {

// Best of `reps` rounds (each round runs every pattern once) over a freshly allocated buffer of
// `bytes` (default 1 GiB; on transparent huge pages where granted, like the packed weights), in
// GB/s (1e9 bytes per second). Returns 0 if the buffer cannot be allocated.
double measure_read_bandwidth_gbs(ThreadPool& pool, size_t bytes = size_t{1} << 30, int reps = 5);

}  // namespace hearth::cpu
