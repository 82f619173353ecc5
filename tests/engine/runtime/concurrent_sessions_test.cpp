// Sessions on an oversubscribed machine (stories260K): two sessions on their own threads, each
// with a pool of more threads than the machine has cores, beside a thread that never yields,
// all finish and produce exactly the greedy tokens of a one-thread run; so does one session
// with far more threads than cores. Behaviour only: ctest's timeout catches a hang.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "hearth/session.h"
#include "test_data.h"

namespace hearth {
namespace {

GenerateOptions greedy(int32_t n) {
    GenerateOptions o;
    o.max_tokens = n;
    o.sampling.temperature = 0.f;
    o.stop_at_end_of_generation = false;
    return o;
}

// Prefill + greedy generation on a fresh store and session with `threads` threads, `rounds`
// times (the session is cleared in between); returns each round's tokens, or nothing.
std::vector<std::vector<int32_t>> run(const std::shared_ptr<Model>& model,
                                      const std::vector<int32_t>& prompt, int threads, int rounds) {
    std::vector<std::vector<int32_t>> out;
    auto store = KvStore::create(model, {.kv_type = KvType::F16, .n_ctx = 512});
    if (!store) return out;
    auto s = Session::create(*store, {.n_threads = threads, .n_batch = 64});
    if (!s) return out;
    for (int r = 0; r < rounds; ++r) {
        (*s)->clear();
        if (!(*s)->prefill(prompt)) return out;
        auto g = (*s)->generate(greedy(48));
        if (!g) return out;
        out.push_back(g->tokens);
    }
    return out;
}

struct Loaded {
    std::shared_ptr<Model> model;
    std::vector<int32_t> a, b;
};

#define LOAD_OR_SKIP(l)                                                                \
    HEARTH_REQUIRE_SHARED(model_path_, "models/stories260K.gguf");                     \
    Loaded l;                                                                          \
    {                                                                                  \
        auto m_ = Model::load(model_path_);                                            \
        ASSERT_TRUE(m_.is_ok());                                                       \
        l.model = *m_;                                                                 \
        auto a_ = l.model->tokenize(                                                   \
            "Once upon a time, there was a little girl named Lily. She loved to play " \
            "outside in the park with her dog. One day, she saw a big red ball.",      \
            true, false);                                                              \
        auto b_ = l.model->tokenize(                                                   \
            "Tom and his mom went to the store. They wanted to buy apples, bread and " \
            "milk, but the store was closed, so they walked home in the rain.",        \
            true, false);                                                              \
        ASSERT_TRUE(a_.is_ok() && b_.is_ok());                                         \
        l.a = *a_;                                                                     \
        l.b = *b_;                                                                     \
    }

int cores() {
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

TEST(ConcurrentSessions, TwoOversubscribedSessionsAtOnceGiveTheOneThreadTokens) {
    LOAD_OR_SKIP(l);
    const auto want_a = run(l.model, l.a, 1, 1), want_b = run(l.model, l.b, 1, 1);
    ASSERT_EQ(want_a.size(), 1u);
    ASSERT_EQ(want_b.size(), 1u);
    ASSERT_NE(want_a[0], want_b[0]);

    const int threads = std::max(4, 2 * cores());
    std::atomic<bool> done{false};
    std::thread hog([&] {
        volatile uint64_t x = 0;
        while (!done.load(std::memory_order_relaxed)) x = x + 1;
    });
    std::vector<std::vector<int32_t>> got_a, got_b;
    std::thread ta([&] { got_a = run(l.model, l.a, threads, 3); });
    std::thread tb([&] { got_b = run(l.model, l.b, threads, 3); });
    ta.join();
    tb.join();
    done = true;
    hog.join();
    ASSERT_EQ(got_a.size(), 3u);
    ASSERT_EQ(got_b.size(), 3u);
    for (int r = 0; r < 3; ++r) {
        EXPECT_EQ(got_a[size_t(r)], want_a[0]) << "round " << r;
        EXPECT_EQ(got_b[size_t(r)], want_b[0]) << "round " << r;
    }
}

TEST(ConcurrentSessions, FarMoreThreadsThanCoresGiveTheOneThreadTokens) {
    LOAD_OR_SKIP(l);
    const auto want = run(l.model, l.a, 1, 1);
    ASSERT_EQ(want.size(), 1u);
    const auto got = run(l.model, l.a, std::max(16, 8 * cores()), 2);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0], want[0]);
    EXPECT_EQ(got[1], want[0]);
}

}  // namespace
}  // namespace hearth
