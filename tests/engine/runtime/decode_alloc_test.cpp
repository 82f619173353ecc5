// Decode allocates nothing per step: after a prompt and a few warm-up steps (which size the
// graph, the scratch and the packed weights once), further one-token steps on the CPU make no
// heap allocation on any thread. The whole program's operator new is replaced by a counting
// one (hence this test's own executable); with fusion on and off, F16 and packed Q4_0 weights,
// 1 and 3 threads, step() and step_argmax(). Under AddressSanitizer / ThreadSanitizer, which own
// operator new themselves, the counting one is left out and the test skips.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "cpu/cpu_device.h"
#include "cpu/cpu_fuse.h"
#include "runtime/forward.h"
#include "runtime/kv_cache.h"
#include "synthetic_model.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HEARTH_COUNT_NEW 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define HEARTH_COUNT_NEW 0
#endif
#endif
#ifndef HEARTH_COUNT_NEW
#define HEARTH_COUNT_NEW 1
#endif

// The replacement delete frees what the replacement new got from malloc; GCC, seeing only the
// inlined pair, takes it for a mismatched new/free.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
}  // namespace

#if HEARTH_COUNT_NEW
void* operator new(std::size_t n) {
    if (g_counting.load(std::memory_order_relaxed))
        g_allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
    return ::operator new(n);
}
void operator delete(void* p) noexcept {
    std::free(p);
}
void operator delete[](void* p) noexcept {
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
    std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
    std::free(p);
}
#endif

namespace hearth::runtime::test {
namespace {

using backend::DType;

TEST(DecodeAllocations, NoHeapAllocationPerStep) {
    if (!HEARTH_COUNT_NEW) GTEST_SKIP() << "a sanitizer owns operator new in this build";
    for (quant::Type wt : {quant::Type::F16, quant::Type::Q4_0}) {
        const auto m = make_synthetic(Arch::Llama, wt, 6);
        for (bool fuse : {true, false}) {
            for (int threads : {1, 3}) {
                const bool had = backend::cpu_set_fusion(fuse);
                auto device = backend::make_cpu_device();
                auto weights = bind_weights(m.params, m.source, *device);
                ASSERT_TRUE(weights.is_ok());
                auto kv = KvCache::create(*device, m.params, 64, DType::F16);
                auto fw = Forward::create(*device, m.params, weights.value(), 64, 16, threads);
                backend::cpu_set_fusion(had);
                ASSERT_TRUE(kv.is_ok() && fw.is_ok());
                const std::vector<int32_t> prompt = {1, 17, 299, 42, 5};
                ASSERT_TRUE(fw.value()->step(prompt, *kv.value()).is_ok());
                int32_t tok = 7;
                auto one = [&](bool argmax) {
                    if (argmax) {
                        auto r = fw.value()->step_argmax(std::span(&tok, 1), *kv.value());
                        ASSERT_TRUE(r.is_ok()) << r.error_message();
                        tok = r.value();
                    } else {
                        auto r = fw.value()->step(std::span(&tok, 1), *kv.value());
                        ASSERT_TRUE(r.is_ok()) << r.error_message();
                        tok = int32_t(std::max_element(r->begin(), r->end()) - r->begin());
                    }
                };
                for (int i = 0; i < 3; ++i) {  // warm-up: both kinds of step once
                    one(false);
                    one(true);
                }
                g_allocations = 0;
                g_counting = true;
                for (int i = 0; i < 10; ++i) one(i % 2 == 1);
                g_counting = false;
                EXPECT_EQ(g_allocations.load(), 0)
                    << quant::traits(wt).name << " fuse " << fuse << " threads " << threads;
            }
        }
    }
}

// The counter itself works (else the test above could not fail).
TEST(DecodeAllocations, CounterSeesAnAllocation) {
    if (!HEARTH_COUNT_NEW) GTEST_SKIP() << "a sanitizer owns operator new in this build";
    g_allocations = 0;
    g_counting = true;
    auto* v = new std::vector<int>(100);
    g_counting = false;
    delete v;
    EXPECT_GE(g_allocations.load(), 1);
}

}  // namespace
}  // namespace hearth::runtime::test
