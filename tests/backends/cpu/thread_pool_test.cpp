// The thread pool: every index covered exactly once, chunks contiguous and grain-sized, thread
// indices in range and never shared by calls running at once, free threads taking the chunks
// of a busy one, many calls in a row, pools of 1..8 threads, clean shutdown; pools that
// together ask for more threads than there are cores still finish with exact results.
#include "thread_pool.h"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace hearth::cpu {
namespace {

TEST(ThreadPool, SizeCountsTheCaller) {
    EXPECT_EQ(ThreadPool(1).size(), 1);
    EXPECT_EQ(ThreadPool(3).size(), 3);
    EXPECT_EQ(ThreadPool(0).size(), 1);
}

TEST(ThreadPool, EveryIndexOnceForUnevenSizesAndThreadCounts) {
    for (int threads = 1; threads <= 8; ++threads) {
        ThreadPool pool(threads);
        for (size_t n : {size_t{1}, size_t{2}, size_t{7}, size_t{63}, size_t{64}, size_t{1001}})
            for (size_t grain : {size_t{1}, size_t{4}, size_t{16}, size_t{5000}}) {
                std::vector<std::atomic<int>> hits(n);
                std::atomic<bool> bad_thread{false}, bad_chunk{false};
                pool.parallel_for(n, grain, [&](size_t b, size_t e, int t) {
                    if (t < 0 || t >= threads) bad_thread = true;
                    if (b >= e || e > n || b % grain != 0) bad_chunk = true;
                    for (size_t i = b; i < e; ++i) hits[i].fetch_add(1);
                });
                for (size_t i = 0; i < n; ++i)
                    ASSERT_EQ(hits[i].load(), 1)
                        << "threads=" << threads << " n=" << n << " grain=" << grain << " i=" << i;
                EXPECT_FALSE(bad_thread);
                EXPECT_FALSE(bad_chunk);
            }
    }
}

TEST(ThreadPool, ZeroItemsCallsNothing) {
    ThreadPool pool(4);
    std::atomic<int> calls{0};
    pool.parallel_for(0, 1, [&](size_t, size_t, int) { ++calls; });
    EXPECT_EQ(calls.load(), 0);
}

TEST(ThreadPool, ManyCallsInARowNeverLoseWork) {
    ThreadPool pool(4);
    std::atomic<long> total{0};
    long expected = 0;
    for (int call = 0; call < 2000; ++call) {
        const size_t n = 1 + static_cast<size_t>(call % 97);
        expected += static_cast<long>(n * (n - 1) / 2);
        pool.parallel_for(n, 1, [&](size_t b, size_t e, int) {
            long s = 0;
            for (size_t i = b; i < e; ++i) s += static_cast<long>(i);
            total += s;
        });
    }
    EXPECT_EQ(total.load(), expected);
}

// Every worker takes part: chunks that each wait until four different threads hold one can
// only finish if the three workers claim the chunks the blocked caller cannot. Calls that run
// at the same time never share a thread index (per-thread scratch depends on it).
TEST(ThreadPool, EveryWorkerTakesChunksAndConcurrentCallsHaveDistinctIndices) {
    ThreadPool pool(4);
    for (int round = 0; round < 20; ++round) {
        std::atomic<int> arrived{0};
        std::atomic<bool> clash{false};
        std::array<std::atomic<int>, 4> busy{};
        std::mutex m;
        std::set<int> seen;
        pool.parallel_for(4, 1, [&](size_t, size_t, int t) {
            if (busy[static_cast<size_t>(t)].fetch_add(1) != 0) clash = true;
            {
                std::lock_guard lock(m);
                seen.insert(t);
            }
            arrived.fetch_add(1);
            while (arrived.load() < 4) std::this_thread::yield();
            busy[static_cast<size_t>(t)].fetch_sub(1);
        });
        EXPECT_EQ(seen.size(), 4u);
        EXPECT_FALSE(clash);
    }
}

// Chunks are claimed by free threads: while one thread is stuck in its chunk (descheduled,
// in effect) the other runs everything else, and the stuck one holds at most a quarter of
// the items (a pool that gave each thread one fixed half would leave half of them waiting).
TEST(ThreadPool, FreeThreadsTakeTheChunksOfAStuckOne) {
    ThreadPool pool(2);
    constexpr size_t n = 64;
    std::atomic<size_t> others_done{0};
    size_t stuck_items = 0;
    bool others_finished = false;
    pool.parallel_for(n, 1, [&](size_t b, size_t e, int) {
        if (b != 0) {
            others_done.fetch_add(e - b);
            return;
        }
        stuck_items = e - b;
        for (int i = 0; i < 20000 && others_done.load() < n - stuck_items; ++i)
            std::this_thread::sleep_for(std::chrono::microseconds(100));
        others_finished = others_done.load() == n - stuck_items;
    });
    EXPECT_TRUE(others_finished);
    EXPECT_LE(stuck_items, n / 4);
    EXPECT_EQ(others_done.load(), n - stuck_items);
}

TEST(ThreadPool, SleepingWorkersWakeForTheNextJob) {
    ThreadPool pool(3);
    for (int round = 0; round < 3; ++round) {
        // Long enough for the workers to stop spinning and sleep.
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        std::atomic<int> items{0};
        pool.parallel_for(300, 1,
                          [&](size_t b, size_t e, int) { items += static_cast<int>(e - b); });
        EXPECT_EQ(items.load(), 300);
    }
}

TEST(ThreadPool, ManyPoolsCreatedAndDestroyed) {
    for (int i = 0; i < 50; ++i) {
        ThreadPool pool(1 + i % 5);
        std::atomic<int> items{0};
        if (i % 2)
            pool.parallel_for(10, 1,
                              [&](size_t b, size_t e, int) { items += static_cast<int>(e - b); });
        EXPECT_EQ(items.load(), i % 2 ? 10 : 0);
    }
}

// Deterministic work whose result depends on every index: a pool that lost, repeated or
// mis-assigned a chunk gives a different checksum.
uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

// Runs `jobs` parallel_for calls of varying sizes and grains; returns one checksum per job.
std::vector<uint64_t> run_jobs(ThreadPool& pool, int jobs, uint64_t seed) {
    std::vector<uint64_t> sums;
    sums.reserve(static_cast<size_t>(jobs));
    for (int j = 0; j < jobs; ++j) {
        const size_t n = 1 + static_cast<size_t>(mix(seed + static_cast<uint64_t>(j)) % 3000);
        const size_t grain = 1 + static_cast<size_t>(j % 7) * 16;
        std::vector<uint64_t> out(n, 0);
        pool.parallel_for(n, grain, [&](size_t b, size_t e, int) {
            for (size_t i = b; i < e; ++i) out[i] += mix(seed ^ (i * 2654435761ULL + j));
        });
        uint64_t s = 0;
        for (size_t i = 0; i < n; ++i) s = s * 31 + out[i];
        sums.push_back(s);
    }
    return sums;
}

// The oversubscribed machine: two pools, each with twice as many threads as there are
// cores, run at the same time beside a thread that never yields. Workers of one pool are
// descheduled in the middle of the other's jobs (spin, then sleep); both must finish every
// job with the same results as a one-thread pool. (ctest's timeout catches a hang; the test
// asserts results, not time.)
TEST(ThreadPool, TwoOversubscribedPoolsAtOnceFinishWithExactResults) {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int threads = std::max(4, 2 * cores);
    constexpr int kJobs = 600;
    ThreadPool serial(1);
    const auto want_a = run_jobs(serial, kJobs, 11), want_b = run_jobs(serial, kJobs, 22);

    std::atomic<bool> done{false};
    std::thread hog([&] {
        volatile uint64_t x = 0;
        while (!done.load(std::memory_order_relaxed)) x = x + 1;
    });
    std::vector<uint64_t> got_a, got_b;
    std::thread a([&] {
        ThreadPool pool(threads);
        got_a = run_jobs(pool, kJobs, 11);
    });
    std::thread b([&] {
        ThreadPool pool(threads);
        got_b = run_jobs(pool, kJobs, 22);
    });
    a.join();
    b.join();
    done = true;
    hog.join();
    EXPECT_EQ(got_a, want_a);
    EXPECT_EQ(got_b, want_b);
}

// A pool with many more threads than cores (`-t 16` on a small machine) still covers every
// index exactly once per call, call after call, with the workers mostly descheduled.
TEST(ThreadPool, FarMoreThreadsThanCoresStillExact) {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    ThreadPool pool(std::max(8, 8 * cores));
    ThreadPool serial(1);
    EXPECT_EQ(run_jobs(pool, 300, 33), run_jobs(serial, 300, 33));
}

}  // namespace
}  // namespace hearth::cpu
