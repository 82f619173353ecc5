// Persistent worker threads for the CPU backend: created once, spin briefly then sleep between
// jobs, never created per op or per token.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

namespace hearth::cpu {

class ThreadPool {
public:
    explicit ThreadPool(int n_threads);  // n_threads >= 1, includes the calling thread
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const;

    // Splits [0, n) into contiguous chunks of a multiple of `grain` items (only the last one
    // may be shorter), calls fn(begin, end, thread) once per chunk and returns when all chunks
    // are done. Not reentrant: do not call parallel_for from inside fn.
    // Chunks are claimed by whichever thread is free (the caller included), so a worker the OS
    // has descheduled never holds up the others: its chunks go to the threads that run.
    // `thread` (0 = the caller, < size()) names the thread running the chunk: two calls that
    // run at the same time never have the same index, so it can pick per-thread scratch; one
    // thread may run several chunks, one after the other. n = 0 calls nothing; when everything
    // fits one chunk the caller runs it alone.
    void parallel_for(size_t n, size_t grain,
                      const std::function<void(size_t begin, size_t end, int thread)>& fn);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace hearth::cpu
