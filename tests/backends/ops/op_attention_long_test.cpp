// Attention over a long paged history on the CPU backend against the reference device, on every
// ISA this CPU runs: a new turn's prefill (more tokens than one work item holds) and a decode
// step over hundreds of cells, for each KV type, with qwen2.5-0.5b's group of 7 heads; and a
// token's output the same bits alone, in a verification step and in a prefill.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <span>
#include <string>

#include "cpu/cpu_device.h"
#include "cpu/kernels/kernels.h"
#include "op_test_util.h"
#include "ref/ref_device.h"

namespace hearth::backend::test {
namespace {

// Steps on one sequence of qwen2.5-0.5b's head shape (64 wide, 14 query heads, 2 KV heads)
// in a cache of `blocks` blocks of 16 cells in shuffled order, on the reference device and on
// the CPU with 2 threads under every ISA this CPU runs, for each KV type: the same outputs.
void expect_steps_match_reference(std::initializer_list<DType> kvs, int32_t blocks,
                                  std::initializer_list<std::pair<int64_t, int64_t>> steps) {
    const cpu::Isa saved = cpu::active_isa();
    std::vector<int32_t> table(static_cast<size_t>(blocks));
    for (int32_t b = 0; b < blocks; ++b) table[size_t(b)] = (b * 7) % blocks;
    for (DType kv : kvs) {
        auto ref = make_ref_device();
        auto rs = ref->create_stream({1});
        const auto r = attention_steps(*ref, **rs, kv, 64, 14, 2, 16, table, steps, 5);
        for (cpu::Isa isa : {cpu::Isa::Scalar, cpu::Isa::Avx2, cpu::Isa::Avx512}) {
            if (!cpu::force_isa(isa)) continue;
            SCOPED_TRACE(std::string(dtype_name(kv)) + " " + std::string(cpu::isa_name(isa)));
            auto cpu = make_cpu_device();
            auto cs = cpu->create_stream({2});
            const auto c = attention_steps(*cpu, **cs, kv, 64, 14, 2, 16, table, steps, 5);
            ASSERT_EQ(r.size(), c.size());
            EXPECT_LT(max_rel(c, r), 1e-5);
        }
    }
    cpu::force_isa(saved);
}

TEST(OpAttentionLong, NewTurnAndDecodeOverLongHistoryEveryKvTypeAndIsa) {
    // History of 300, a new turn of 41 tokens (three work items of 18 tokens x 7 heads), then
    // two decode steps.
    expect_steps_match_reference({DType::F32, DType::F16, DType::Q8_0, DType::Q4_0}, 32,
                                 {{0, 300}, {300, 41}, {341, 1}, {342, 1}});
}

struct AttendShape {
    int64_t hd, H, Hkv;
    int32_t bs, window;
};

// One graph: the K and V rows of pos.size() tokens appended to the paged caches at their
// positions (of their sequences; none: sequence 0), then those tokens' attention output.
std::vector<float> append_and_attend(Device& d, Stream& s, const AttendShape& sh, const Tensor& kc,
                                     const Tensor& vc, const Tensor& bt, const float* kf,
                                     const float* vf, const float* qf, std::span<const int32_t> pos,
                                     std::span<const int32_t> seq) {
    const auto T = int64_t(pos.size());
    auto k = upload(d, DType::F32, {sh.hd * sh.Hkv, T}, kf);
    auto v = upload(d, DType::F32, {sh.hd * sh.Hkv, T}, vf);
    auto q = upload(d, DType::F32, {sh.hd, sh.H, T}, qf);
    auto p = upload(d, DType::I32, {T}, pos.data());
    auto sq = upload(d, DType::I32, {T}, seq.empty() ? nullptr : seq.data());
    auto y = upload(d, DType::F32, {sh.hd, sh.H, T}, nullptr);
    const KvIndex idx{p.t, bt, seq.empty() ? Tensor{} : sq.t};
    KvParams kp{sh.bs, 1.f / std::sqrt(float(sh.hd))};
    kp.window = sh.window;
    Graph g;
    g.kv_append(kc, k.t, idx, sh.bs, "k");
    g.kv_append(vc, v.t, idx, sh.bs, "v");
    g.attention(y.t, q.t, kc, vc, idx, kp, "attn");
    const Status st = s.compute(g);
    EXPECT_TRUE(st.is_ok()) << st.message();
    return download_f32(y.t);
}

// Positions [0, total) fed in steps of the given sizes on one sequence (64 blocks of 16 cells,
// shuffled): the attention output of every token, whatever the split. K, V and Q of each
// position are fixed in advance, so two splits see the same numbers.
std::vector<float> attention_split(Device& d, Stream& s, DType kv, int64_t hd, int64_t H,
                                   int64_t Hkv, int32_t window, std::span<const int64_t> sizes) {
    constexpr int32_t bs = 16, blocks = 64;
    int64_t total = 0;
    for (int64_t n : sizes) total += n;
    std::mt19937 rng(17);
    const auto kf = random_floats(rng, size_t(hd * Hkv * total));
    const auto vf = random_floats(rng, size_t(hd * Hkv * total));
    const auto qf = random_floats(rng, size_t(hd * H * total), 2.f);
    std::vector<int32_t> table(blocks);
    for (int32_t b = 0; b < blocks; ++b) table[size_t(b)] = (b * 7) % blocks;
    auto kc = upload(d, kv, {hd * Hkv, bs * blocks}, nullptr);
    auto vc = upload(d, kv, {hd * Hkv, bs * blocks}, nullptr);
    auto bt = upload(d, DType::I32, {blocks, 1}, table.data());
    std::vector<float> out;
    int64_t first = 0;
    for (int64_t n : sizes) {
        std::vector<int32_t> pos(static_cast<size_t>(n));
        std::iota(pos.begin(), pos.end(), static_cast<int32_t>(first));
        const AttendShape sh{hd, H, Hkv, bs, window};
        const auto o =
            append_and_attend(d, s, sh, kc.t, vc.t, bt.t, kf.data() + first * hd * Hkv,
                              vf.data() + first * hd * Hkv, qf.data() + first * hd * H, pos, {});
        out.insert(out.end(), o.begin(), o.end());
        first += n;
    }
    return out;
}

// A token's attention output on the CPU (`threads` threads) the same bits decoded alone, in a
// verification step and in a prefill (the three ways of feeding the same positions).
void expect_same_bits(DType kv, int32_t window, int threads, std::span<const int64_t> decode,
                      std::span<const int64_t> verify, std::span<const int64_t> prefill) {
    auto cpu = make_cpu_device();
    auto cs = cpu->create_stream({threads});
    const auto a = attention_split(*cpu, **cs, kv, 64, 14, 2, window, decode);
    const auto b = attention_split(*cpu, **cs, kv, 64, 14, 2, window, verify);
    const auto c = attention_split(*cpu, **cs, kv, 64, 14, 2, window, prefill);
    ASSERT_EQ(a.size(), b.size());
    ASSERT_EQ(a.size(), c.size());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0)
        << "decode alone vs a verification step";
    EXPECT_EQ(std::memcmp(a.data(), c.data(), a.size() * sizeof(float)), 0)
        << "decode alone vs a prefill";
}

// Batch invariance (cpu/kernels/kernels.h): a token's attention output is the same bits
// whether it is decoded alone, verified among 6 (a speculative step) or inside a prefill, with
// and without a sliding window (100 cells: a lone token's first visible cell and a step's differ,
// and the cells run over more than one 64-cell chunk), on every KV type and ISA.
TEST(OpAttentionLong, TokenAloneEqualsTokenInAStepEveryWindowKvTypeAndIsa) {
    const cpu::Isa saved = cpu::active_isa();
    const int64_t decode[] = {200, 1, 1, 1, 1, 1, 1};
    const int64_t verify[] = {200, 6};
    const int64_t prefill[] = {150, 56};
    for (int32_t window : {0, 100}) {
        for (DType kv : {DType::F32, DType::F16, DType::Q8_0, DType::Q4_0}) {
            for (cpu::Isa isa : {cpu::Isa::Scalar, cpu::Isa::Avx2, cpu::Isa::Avx512}) {
                if (!cpu::force_isa(isa)) continue;
                SCOPED_TRACE(std::string(dtype_name(kv)) + " " + std::string(cpu::isa_name(isa)) +
                             " window " + std::to_string(window));
                expect_same_bits(kv, window, 2, decode, verify, prefill);
            }
        }
    }
    cpu::force_isa(saved);
}

// The same over a context of several 256-cell segments (cpu_attention.cpp): a decode step
// or a verification step splits its segments across the threads (2 and 3 threads: runs of
// different lengths) and combines them, a prefill folds them one after the other; the
// windows make a row's first segment start mid-way and skip whole segments.
// fn(kv, window, threads) for each window, F16 and Q8_0 caches, 2 and 3 threads (runs of
// different lengths), under the scalar and AVX-512 paths where this CPU runs them.
template <class Fn>
void for_kv_isa_threads(std::initializer_list<int32_t> windows, Fn&& fn) {
    const cpu::Isa saved = cpu::active_isa();
    for (int32_t window : windows) {
        for (DType kv : {DType::F16, DType::Q8_0}) {
            for (cpu::Isa isa : {cpu::Isa::Scalar, cpu::Isa::Avx512}) {
                if (!cpu::force_isa(isa)) continue;
                for (int threads : {2, 3}) {
                    SCOPED_TRACE(std::string(dtype_name(kv)) + " " +
                                 std::string(cpu::isa_name(isa)) + " window " +
                                 std::to_string(window) + " threads " + std::to_string(threads));
                    fn(kv, window, threads);
                }
            }
        }
    }
    cpu::force_isa(saved);
}

TEST(OpAttentionLong, TokenAloneEqualsTokenInAStepAcrossSegmentsAndThreads) {
    const int64_t decode[] = {700, 1, 1, 1, 1, 1, 1};
    const int64_t verify[] = {700, 6};
    const int64_t prefill[] = {470, 236};
    for_kv_isa_threads({0, 300}, [&](DType kv, int32_t window, int threads) {
        expect_same_bits(kv, window, threads, decode, verify, prefill);
    });
}

// One decode step of several sequences with histories of different lengths (paged, shuffled
// blocks of 16 cells; qwen2.5-0.5b's head shape): each sequence's token gets the same bits as
// decoded alone. With more sequences than threads each thread runs a run of consecutive
// sequences cut by their cells (cpu_attention.cpp), the next sequence's first cells requested
// ahead; alone, a long history splits its segments across the threads instead.
std::vector<float> decode_sequences(DType kv, int32_t window, int threads, bool together) {
    constexpr int64_t hd = 64, H = 14, Hkv = 2;
    constexpr int32_t bs = 16, per_seq = 20;
    const std::vector<int32_t> history = {300, 70, 130, 250, 5};
    const auto n_seq = static_cast<int32_t>(history.size());
    auto d = make_cpu_device();
    auto st = d->create_stream({threads});
    std::vector<int32_t> table(size_t(per_seq * n_seq));
    for (size_t i = 0; i < table.size(); ++i) table[i] = int32_t(i * 7 % table.size());
    const int64_t cells = int64_t(table.size()) * bs;
    auto kc = upload(*d, kv, {hd * Hkv, cells}, nullptr);
    auto vc = upload(*d, kv, {hd * Hkv, cells}, nullptr);
    auto bt = upload(*d, DType::I32, {per_seq, n_seq}, table.data());
    // Positions [p0, p0 + n) of each listed sequence in one graph; the attention output.
    auto step = [&](std::span<const int32_t> seqs, int64_t n, bool first) {
        std::vector<int32_t> pos, sq;
        std::vector<float> kf, vf, qf;
        for (int32_t s : seqs) {
            const int32_t p0 = first ? 0 : history[size_t(s)];
            for (int64_t t = 0; t < n; ++t) {
                pos.push_back(p0 + int32_t(t));
                sq.push_back(s);
                std::mt19937 rng(
                    uint32_t(1000 * s + pos.back()));  // fixed per (sequence, position)
                const auto k1 = random_floats(rng, size_t(hd * Hkv));
                const auto v1 = random_floats(rng, size_t(hd * Hkv));
                const auto q1 = random_floats(rng, size_t(hd * H), 2.f);
                kf.insert(kf.end(), k1.begin(), k1.end());
                vf.insert(vf.end(), v1.begin(), v1.end());
                qf.insert(qf.end(), q1.begin(), q1.end());
            }
        }
        return append_and_attend(*d, **st, {hd, H, Hkv, bs, window}, kc.t, vc.t, bt.t, kf.data(),
                                 vf.data(), qf.data(), pos, sq);
    };
    for (int32_t s = 0; s < n_seq; ++s) step(std::span(&s, 1), history[size_t(s)], true);
    if (together) {
        std::vector<int32_t> all(static_cast<size_t>(n_seq));
        std::iota(all.begin(), all.end(), 0);
        return step(all, 1, false);
    }
    std::vector<float> out;
    for (int32_t s = 0; s < n_seq; ++s) {
        const auto o = step(std::span(&s, 1), 1, false);
        out.insert(out.end(), o.begin(), o.end());
    }
    return out;
}

TEST(OpAttentionLong, SequencesDecodedTogetherEqualEachAlone) {
    for_kv_isa_threads({0, 100}, [](DType kv, int32_t window, int threads) {
        const auto alone = decode_sequences(kv, window, threads, false);
        const auto together = decode_sequences(kv, window, threads, true);
        ASSERT_EQ(alone.size(), together.size());
        EXPECT_EQ(std::memcmp(alone.data(), together.data(), alone.size() * sizeof(float)), 0);
    });
}

// Against the reference device over several segments: a history of 600 cells, a new turn of
// 30 tokens and decode steps, with 2 threads (the decode steps split their segments).
TEST(OpAttentionLong, DecodeAcrossSegmentsMatchesReference) {
    expect_steps_match_reference({DType::F32, DType::F16, DType::Q4_0}, 48,
                                 {{0, 600}, {600, 30}, {630, 1}, {631, 1}});
}

}  // namespace
}  // namespace hearth::backend::test
