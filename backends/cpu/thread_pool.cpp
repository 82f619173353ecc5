// Persistent workers woken by a job generation counter. Workers spin a little after each job
// (the next op usually follows within microseconds) and then sleep on the counter (futex).
// A job is cut into a few chunks per thread that every thread, the caller included, claims
// from one atomic word: on a busy machine a descheduled worker delays at most the chunk it
// is running, instead of the caller waiting for the OS to run it (a convoy per op).
// Sleeping workers are woken one by one, each by a thread that is running and sees chunks
// still unclaimed: with more threads than cores (-t 8 on 2 cores) a job no longer wakes every
// worker at once only for most of them to find the chunks taken, and a job is cut for the
// threads that can run at once (the cores), not for every thread.
#include "thread_pool.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace hearth::cpu {

namespace {

constexpr int kSpinIterations = 4000;  // tens of microseconds of pause instructions
// With more threads than cores a spinning thread takes the core from one that has work: spin
// only briefly, then sleep.
constexpr int kOversubscribedSpinIterations = 64;
constexpr size_t kChunksPerThread = 4;  // balance when a thread is slow or descheduled
constexpr size_t kMaxChunks = 0xFFFF;   // the claim word's count field

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
T wait_change(const std::atomic<T>& value, T old, std::atomic<int>& sleepers, int spins) {
    for (int i = 0; i < spins; ++i) {
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
    int spins = kSpinIterations;
    std::vector<std::thread> workers;

    // The current job; written by the caller before `claims` is published and unchanged until
    // every chunk of it is done.
    const std::function<void(size_t, size_t, int)>* fn = nullptr;
    size_t n = 0;
    size_t chunk = 0;  // items per chunk, a multiple of grain
    std::atomic<bool> stop{false};

    // Claims: job number (32 bits) | chunk count (16) | next unclaimed chunk (16). One word,
    // so a thread that read an older job's state fails its compare-exchange instead of
    // claiming a chunk of a job that is no longer there.
    std::atomic<uint64_t> claims{0};
    uint32_t job = 0;
    std::atomic<int> remaining{0};  // chunks of the current job not yet finished

    // 32 bits: the size std::atomic::wait / notify_one map straight onto a futex (wider
    // types go through a shared proxy that wakes every waiter).
    std::atomic<uint32_t> generation{0};
    std::atomic<int> worker_sleepers{0};
    std::atomic<int> caller_sleepers{0};

    int parallel = 1;  // threads that can run at once: min(n_threads, cores)

    // Wakes one sleeping worker (if any); it wakes the next if chunks are still unclaimed.
    void wake_one() {
        if (worker_sleepers.load(std::memory_order_seq_cst) > 0) generation.notify_one();
    }

    void start_job() {
        generation.fetch_add(1, std::memory_order_seq_cst);
        wake_one();
    }

    // Whether more than one chunk of the current job is unclaimed (one for the thread asking,
    // the rest for a worker it would wake).
    bool more_than_one_left() const {
        const uint64_t w = claims.load(std::memory_order_acquire);
        return (w & 0xFFFF) + 1 < ((w >> 16) & 0xFFFF);
    }

    bool claim(size_t& index) {
        uint64_t w = claims.load(std::memory_order_acquire);
        for (;;) {
            const uint64_t next = w & 0xFFFF, count = (w >> 16) & 0xFFFF;
            if (next >= count) return false;
            if (claims.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel,
                                             std::memory_order_acquire)) {
                index = static_cast<size_t>(next);
                return true;
            }
        }
    }

    void run_chunk(size_t index, int t) {
        const size_t begin = std::min(n, index * chunk);
        const size_t end = std::min(n, begin + chunk);
        if (begin < end) (*fn)(begin, end, t);
        // Nothing of the job is touched after this: the caller may return at once.
        if (remaining.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
            caller_sleepers.load(std::memory_order_seq_cst) > 0)
            remaining.notify_one();
    }

    void worker_loop(int t) {
        uint32_t seen = 0;
        for (;;) {
            seen = wait_change(generation, seen, worker_sleepers, spins);
            if (stop.load(std::memory_order_acquire)) return;
            if (more_than_one_left()) wake_one();
            size_t index = 0;
            while (claim(index)) run_chunk(index, t);
        }
    }
};

ThreadPool::ThreadPool(int n_threads) : impl_(std::make_unique<Impl>()) {
    impl_->n_threads = std::max(1, n_threads);
    const unsigned cores = std::thread::hardware_concurrency();  // 0: unknown
    impl_->parallel = impl_->n_threads;
    if (cores > 0 && static_cast<unsigned>(impl_->n_threads) > cores) {
        impl_->spins = kOversubscribedSpinIterations;
        impl_->parallel = static_cast<int>(cores);
    }
    impl_->workers.reserve(static_cast<size_t>(impl_->n_threads - 1));
    for (int t = 1; t < impl_->n_threads; ++t)
        impl_->workers.emplace_back([this, t] { impl_->worker_loop(t); });
}

ThreadPool::~ThreadPool() {
    impl_->stop.store(true, std::memory_order_release);
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
    if (units <= 1 || p.n_threads <= 1) {
        fn(0, n, 0);
        return;
    }
    const size_t want = std::min(kMaxChunks, kChunksPerThread * static_cast<size_t>(p.parallel));
    const size_t per_chunk = (units + std::min(units, want) - 1) / std::min(units, want);
    const size_t chunks = (units + per_chunk - 1) / per_chunk;
    p.fn = &fn;
    p.n = n;
    p.chunk = per_chunk * grain;
    p.remaining.store(static_cast<int>(chunks), std::memory_order_relaxed);
    ++p.job;
    p.claims.store((uint64_t{p.job} << 32) | (uint64_t{chunks} << 16), std::memory_order_release);
    p.start_job();
    size_t index = 0;
    while (p.claim(index)) p.run_chunk(index, 0);
    // Wait for the chunks other threads are still running.
    int left = p.remaining.load(std::memory_order_acquire);
    while (left != 0) left = wait_change(p.remaining, left, p.caller_sleepers, p.spins);
    p.fn = nullptr;
}

}  // namespace hearth::cpu
