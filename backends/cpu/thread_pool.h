// Persistent worker threads for the CPU backend: created once, spin briefly then sleep between
// jobs, never created per op or per token.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

namespace hearth::cpu {

class ThreadPool {
public:
    explicit ThreadPool(int n_threads);   // n_threads >= 1, includes the calling thread
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const;

    // Splits [0, n) into contiguous chunks of at least `grain` items and calls
    // fn(begin, end, thread_index) on every thread, the caller included; returns when all
    // chunks are done. Not reentrant: do not call parallel_for from inside fn.
    // Details: at most one chunk per thread, chunk t starting at t * chunk where chunk is a
    // multiple of grain (only the last one may be shorter); threads left without items are not
    // called (n = 0 calls nothing); when everything fits one chunk the caller runs it alone.
    void parallel_for(size_t n, size_t grain,
                      const std::function<void(size_t begin, size_t end, int thread)>& fn);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace hearth::cpu
