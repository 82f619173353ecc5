// The CPU stream's profile (cpu_profile.h): dispatches are summed per kind, the layer taken out
// of the label, fused runs, rows and tokens kept apart, and the table lists them by time.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "cpu/cpu_profile.h"

namespace hearth::backend::cpu_ops {
namespace {

Node node(Op op, const char* label, int64_t rows) {
    Node n;
    n.op = op;
    n.label = label;
    n.dst.ne[1] = rows;
    return n;
}

TEST(CpuProfile, SumsDispatchesPerKindAcrossLayers) {
    StreamProfile p(true);
    const auto t0 = StreamProfile::Clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    p.add(node(Op::MatMul, "blk.0.ffn_gate", 8), 3, t0);
    p.add(node(Op::MatMul, "blk.17.ffn_gate", 8), 3, t0);
    p.add(node(Op::MatMul, "blk.17.ffn_gate", 1), 3, StreamProfile::Clock::now());
    p.add(node(Op::RmsNorm, "output_norm", 1), 1, StreamProfile::Clock::now());
    p.add_graph(t0);
    const std::string r = p.report();
    EXPECT_NE(r.find("graphs 1,"), std::string::npos) << r;
    // both layers' 8-row dispatches in one row, counted twice, and first (the slowest)
    const size_t slow = r.find("2 x");
    const size_t key = r.find("ffn_gate (mat_mul +2 fused, 8 rows)");
    ASSERT_NE(slow, std::string::npos) << r;
    ASSERT_NE(key, std::string::npos) << r;
    EXPECT_LT(slow, key);
    EXPECT_LT(key, r.find("ffn_gate (mat_mul +2 fused, 1 rows)")) << r;
    EXPECT_NE(r.find("output_norm (rms_norm, 1 rows)"), std::string::npos) << r;
    EXPECT_EQ(r.find("blk."), std::string::npos) << r;
}

// Attention's rows are its heads and its tokens the third axis: a decode step's dispatches and a
// prefill's are listed apart.
TEST(CpuProfile, AttentionKeepsDecodeAndPrefillApart) {
    StreamProfile p(true);
    Node decode = node(Op::Attention, "blk.3.attention", 14);
    Node prefill = decode;
    prefill.dst.ne[2] = 512;
    p.add(decode, 1, StreamProfile::Clock::now());
    p.add(prefill, 1, StreamProfile::Clock::now());
    const std::string r = p.report();
    EXPECT_NE(r.find("attention (attention, 14 rows)"), std::string::npos) << r;
    EXPECT_NE(r.find("attention (attention, 14 rows x 512)"), std::string::npos) << r;
}

TEST(CpuProfile, OffByDefaultAndByZero) {
    unsetenv("HEARTH_CPU_PROFILE");
    EXPECT_FALSE(StreamProfile::enabled_from_env());
    setenv("HEARTH_CPU_PROFILE", "0", 1);
    EXPECT_FALSE(StreamProfile::enabled_from_env());
    setenv("HEARTH_CPU_PROFILE", "1", 1);
    EXPECT_TRUE(StreamProfile::enabled_from_env());
    unsetenv("HEARTH_CPU_PROFILE");
}

}  // namespace
}  // namespace hearth::backend::cpu_ops
