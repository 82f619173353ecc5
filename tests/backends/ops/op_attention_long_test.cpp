// Attention over a long paged history on the CPU backend against the reference device, on every
// ISA this CPU runs: a new turn's prefill (more tokens than one work item holds) and a decode
// step over hundreds of cells, for each KV type, with qwen2.5-0.5b's group of 7 heads.
#include <gtest/gtest.h>

#include <string>

#include "cpu/cpu_device.h"
#include "cpu/kernels/kernels.h"
#include "op_test_util.h"
#include "ref/ref_device.h"

namespace hearth::backend::test {
namespace {

// Steps on one sequence of a cache of 32 blocks of 16 cells, in shuffled order.
std::vector<float> run_steps(Device& d, Stream& s, DType kv, int64_t hd, int64_t H, int64_t Hkv,
                             std::initializer_list<std::pair<int64_t, int64_t>> steps) {
    std::vector<int32_t> table(32);
    for (int32_t b = 0; b < 32; ++b) table[size_t(b)] = (b * 7) % 32;
    return attention_steps(d, s, kv, hd, H, Hkv, 16, table, steps, 5);
}

TEST(OpAttentionLong, NewTurnAndDecodeOverLongHistoryEveryKvTypeAndIsa) {
    const cpu::Isa saved = cpu::active_isa();
    // History of 300, a new turn of 41 tokens (three work items of 18 tokens x 7 heads), then
    // two decode steps.
    const auto steps = {std::pair<int64_t, int64_t>{0, 300}, {300, 41}, {341, 1}, {342, 1}};
    for (DType kv : {DType::F32, DType::F16, DType::Q8_0, DType::Q4_0}) {
        auto ref = make_ref_device();
        auto rs = ref->create_stream({1});
        const auto r = run_steps(*ref, **rs, kv, 64, 14, 2, steps);
        for (cpu::Isa isa : {cpu::Isa::Scalar, cpu::Isa::Avx2, cpu::Isa::Avx512}) {
            if (!cpu::force_isa(isa)) continue;
            SCOPED_TRACE(std::string(dtype_name(kv)) + " " + std::string(cpu::isa_name(isa)));
            auto cpu = make_cpu_device();
            auto cs = cpu->create_stream({2});
            const auto c = run_steps(*cpu, **cs, kv, 64, 14, 2, steps);
            ASSERT_EQ(r.size(), c.size());
            EXPECT_LT(max_rel(c, r), 1e-5);
        }
    }
    cpu::force_isa(saved);
}

}  // namespace
}  // namespace hearth::backend::test
