// Persistent workers woken by a job generation counter. Workers spin a little after each job
// (the next op usually follows within microseconds) and then sleep on the counter (futex).
#include "thread_pool.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace hearth::cpu {

namespace {

constexpr int kSpinIterations = 4000;  // tens of microseconds of pause instructions

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

// Waits until `value` differs from `old`: spins first, then sleeps on the atomic. `sleepers`
// counts threads that may be asleep so the writer only pays for a wake-up (a futex call) when
// someone needs it; seq_cst on both sides makes either the sleeper see the new value or the
// writer see the sleeper.
template <typename T>
T wait_change(const std::atomic<T>& value, T old, std::atomic<int>& sleepers) {
    for (int i = 0; i < kSpinIterations; ++i) {
        T v = value.load(std::memory_order_acquire);
        if (v != old) return v;
        cpu_relax();
    }
    for (;;) {
        sleepers.fetch_add(1, std::memory_order_seq_cst);
        value.wait(old, std::memory_order_seq_cst);
        sleepers.fetch_sub(1, std::memory_order_seq_cst);
        T v = value.load(std::memory_order_acquire);
        if (v != old) return v;
    }
}

}  // namespace

struct ThreadPool::Impl {
    int n_threads = 1;
    std::vector<std::thread> workers;

    // The current job; written by the caller before `generation` is bumped.
    const std::function<void(size_t, size_t, int)>* fn = nullptr;
    size_t n = 0;
    size_t chunk = 0;  // items per thread, a multiple of grain
    bool stop = false;

    std::atomic<uint64_t> generation{0};
    std::atomic<int> pending{0};
    std::atomic<int> worker_sleepers{0};
    std::atomic<int> caller_sleepers{0};

    void wake_workers() {
        generation.fetch_add(1, std::memory_order_seq_cst);
        if (worker_sleepers.load(std::memory_order_seq_cst) > 0) generation.notify_all();
    }

    void run_chunk(int t) const {
        const size_t begin = std::min(n, static_cast<size_t>(t) * chunk);
        const size_t end = std::min(n, begin + chunk);
        if (begin < end) (*fn)(begin, end, t);
    }

    void worker_loop(int t) {
        uint64_t seen = 0;
        for (;;) {
            seen = wait_change(generation, seen, worker_sleepers);
            if (stop) return;
            run_chunk(t);
            if (pending.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
                caller_sleepers.load(std::memory_order_seq_cst) > 0)
                pending.notify_one();
        }
    }
};

ThreadPool::ThreadPool(int n_threads) : impl_(std::make_unique<Impl>()) {
    impl_->n_threads = std::max(1, n_threads);
    impl_->workers.reserve(static_cast<size_t>(impl_->n_threads - 1));
    for (int t = 1; t < impl_->n_threads; ++t)
        impl_->workers.emplace_back([this, t] { impl_->worker_loop(t); });
}

ThreadPool::~ThreadPool() {
    impl_->stop = true;
    impl_->generation.fetch_add(1, std::memory_order_seq_cst);
    impl_->generation.notify_all();
    for (auto& w : impl_->workers) w.join();
}

int ThreadPool::size() const {
    return impl_->n_threads;
}

void ThreadPool::parallel_for(size_t n, size_t grain,
                              const std::function<void(size_t, size_t, int)>& fn) {
    if (n == 0) return;
    grain = std::max<size_t>(grain, 1);
    Impl& p = *impl_;
    const size_t units = (n + grain - 1) / grain;
    const size_t threads = std::min(units, static_cast<size_t>(p.n_threads));
    if (threads <= 1) {
        fn(0, n, 0);
        return;
    }
    p.fn = &fn;
    p.n = n;
    p.chunk = (units + threads - 1) / threads * grain;
    p.pending.store(p.n_threads - 1, std::memory_order_relaxed);
    p.wake_workers();
    p.run_chunk(0);
    // Wait for the workers; spin first, the chunks are usually equal in length.
    int left = p.pending.load(std::memory_order_acquire);
    while (left != 0) left = wait_change(p.pending, left, p.caller_sleepers);
    p.fn = nullptr;
}

}  // namespace hearth::cpu
