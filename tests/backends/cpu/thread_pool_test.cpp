// The thread pool: every index covered exactly once, chunks contiguous and grain-sized, thread
// indices in range, many calls in a row, pools of 1..8 threads, clean shutdown.
#include "thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
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

TEST(ThreadPool, ManyCallsInARowUseAllThreadsAndNeverLoseWork) {
    ThreadPool pool(4);
    std::atomic<long> total{0};
    std::mutex m;
    std::set<int> seen_threads;
    long expected = 0;
    for (int call = 0; call < 2000; ++call) {
        const size_t n = 1 + static_cast<size_t>(call % 97);
        expected += static_cast<long>(n * (n - 1) / 2);
        pool.parallel_for(n, 1, [&](size_t b, size_t e, int t) {
            long s = 0;
            for (size_t i = b; i < e; ++i) s += static_cast<long>(i);
            total += s;
            if (call % 500 == 0) {
                std::lock_guard lock(m);
                seen_threads.insert(t);
            }
        });
    }
    EXPECT_EQ(total.load(), expected);
    EXPECT_EQ(seen_threads.size(), 4u);
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

}  // namespace
}  // namespace hearth::cpu
