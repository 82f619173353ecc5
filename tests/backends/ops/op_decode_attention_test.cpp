// Decode-shaped attention on every device against the reference ops: one to three tokens over
// a cache long enough that GPU backends split its cells (flash-decoding) and merge the parts,
// for each KV type and the head sizes whose V rows a GPU lane loads whole (64, 128, 256) as
// well as one it does not (48); and the forward pass's order of RoPE (Q, K) then KvAppend (K,
// V) then Attention, which a backend may run as one launch.
#include <gtest/gtest.h>

#include "op_test_util.h"

namespace hearth::backend::test {
namespace {

class OpDecodeAttention : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Devices, OpDecodeAttention, ::testing::ValuesIn(registry_devices()),
                         [](const auto& info) { return info.param; });

// A 70-token prefill, then steps of 1, 3 and 1 tokens over 8 shuffled blocks of 16 cells.
TEST_P(OpDecodeAttention, SplitCellsOverLongCacheEveryKvTypeAndHeadSize) {
    for (DType kv : {DType::F32, DType::F16, DType::Q8_0, DType::Q4_0}) {
        for (int64_t hd : {64, 128, 256, 48}) {
            if (kv != DType::F32 && kv != DType::F16 && hd % 32 != 0) continue;
            SCOPED_TRACE(std::string(dtype_name(kv)) + " hd=" + std::to_string(hd));
            const int32_t table[] = {6, 2, 7, 0, 5, 1, 4, 3};
            Case c = [&](Device& d, Stream& s) {
                return attention_steps(d, s, kv, hd, 4, 2, 16, table,
                                       {{0, 70}, {70, 1}, {71, 3}, {74, 1}}, 33);
            };
            const auto r = run_both(GetParam(), c, 2);
            EXPECT_LT(max_rel(r.dev, r.ref), 1e-5) << worst_at(r.dev, r.ref);
        }
    }
}

// RoPE of Q and K in place, K's and V's appends, attention: a prefill of 9 tokens, then one
// token, then two; both RoPE modes, full and partial rotation. The outputs compared are the
// attention's, the rotated K and both caches.
TEST_P(OpDecodeAttention, RopeThenAppendThenAttendAsTheForwardPassOrdersThem) {
    const int32_t table[] = {2, 0, 3, 1};
    for (DType kv : {DType::F32, DType::F16, DType::Q8_0}) {
        for (RopeMode mode : {RopeMode::Adjacent, RopeMode::RotateHalf}) {
            for (int32_t n_rot : {64, 32}) {
                SCOPED_TRACE(std::string(dtype_name(kv)) + " n_rot " + std::to_string(n_rot) +
                             (mode == RopeMode::Adjacent ? " adjacent" : " rotate-half"));
                const RopeParams rp{mode, n_rot, 500000.f, 1.f, 1.f};
                Case c = [&](Device& d, Stream& s) {
                    return attention_steps(d, s, kv, 64, 4, 2, 8, table, {{0, 9}, {9, 1}, {10, 2}},
                                           41, &rp);
                };
                const auto r = run_both(GetParam(), c, 2);
                EXPECT_LT(max_rel(r.dev, r.ref), 1e-5) << worst_at(r.dev, r.ref);
            }
        }
    }
}

}  // namespace
}  // namespace hearth::backend::test
