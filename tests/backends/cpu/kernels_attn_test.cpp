// The attention kernels (attn_begin / attn_chunk / attn_end / attn_export) on every ISA this CPU
// runs, every KV format and the shape edges (row counts around the 16-lane vectors, heads that
// straddle quantization blocks, chunks that are not multiples of the 8-cell register tiles, sliding
// windows, soft-capping, rows that see nothing) against a float64 softmax over the same cells.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/kernels.h"
#include "kernels/kernels_internal.h"
#include "kernels_test_util.h"
#include "quant/attn_query.h"
#include "quant/quant_ref.h"

namespace hearth::cpu {
namespace {

struct Shape {
    size_t hd, heads_kv, kvh, rows, cells;
    int32_t window;  // 0: none
    float softcap;   // 0: none
};

const char* name(KvFormat f) {
    switch (f) {
        case KvFormat::F32:
            return "f32";
        case KvFormat::F16:
            return "f16";
        case KvFormat::Q8_0:
            return "q8_0";
        case KvFormat::Q4_0:
            return "q4_0";
    }
    return "?";
}

// The pre-scaled query as a Q8_0 or Q4_0 cache's integer scores see it (kernels.h attn_begin): per
// 32 elements, codes round(x / d) with d = max|x| / 127, times d.
std::vector<double> q8_query(const float* q, size_t hd, float scale) {
    std::vector<double> out(hd);
    for (size_t b = 0; b < hd; b += 32) {
        float amax = 0.0f;
        for (size_t i = b; i < b + 32; ++i) amax = std::max(amax, std::fabs(q[i] * scale));
        const float d = amax / 127.0f, id = d > 0.0f ? 1.0f / d : 0.0f;
        for (size_t i = b; i < b + 32; ++i)
            out[i] = double(d) * std::clamp(std::nearbyint(q[i] * scale * id), -127.0f, 127.0f);
    }
    return out;
}

// Runs the kernels over cells [0, cells) in chunks of `chunk` and compares with float64: over
// the query as given, and, where the scores are integer products (Q8_0, Q4_0), over the query
// as quantized (tight) and as given (how much the 8-bit query moves the output).
void check(KvFormat f, const Shape& sh, size_t chunk, uint32_t seed) {
    std::mt19937 rng(seed);
    const size_t row_len = sh.hd * sh.heads_kv, off = sh.kvh * sh.hd;
    const test::KvCache k = test::random_kv_cache(f, row_len, sh.cells, rng),
                        v = test::random_kv_cache(f, row_len, sh.cells, rng);
    std::normal_distribution<float> nd(0.0f, 1.5f);
    std::vector<float> q(sh.rows * sh.hd);
    for (auto& x : q) x = nd(rng);
    std::vector<int32_t> lo(sh.rows), hi(sh.rows);
    std::uniform_int_distribution<int32_t> pick(0, int32_t(sh.cells) - 1);
    for (size_t r = 0; r < sh.rows; ++r) {
        hi[r] = r == 0 ? int32_t(sh.cells) - 1 : pick(rng);  // one row sees every cell
        lo[r] = sh.window > 0 ? std::max(0, hi[r] + 1 - sh.window) : 0;
    }
    if (sh.rows > 2) {  // a row that sees nothing (a padding-like row) must come out as zeros
        lo[1] = 1;
        hi[1] = 0;
    }
    const float scale = 1.0f / std::sqrt(float(sh.hd));
    std::vector<const float*> qp(sh.rows);
    std::vector<float> out(sh.rows * sh.hd, 123.0f);
    std::vector<float*> op(sh.rows);
    for (size_t r = 0; r < sh.rows; ++r) {
        qp[r] = &q[r * sh.hd];
        op[r] = &out[r * sh.hd];
    }
    std::vector<float> state(attn_state_floats(sh.hd, sh.rows), std::nanf(""));
    attn_begin(state.data(), sh.hd, sh.rows, qp.data(), scale, lo.data(), hi.data(), f);
    for (size_t j0 = 0; j0 < sh.cells; j0 += chunk) {
        const size_t n = std::min(chunk, sh.cells - j0);
        std::vector<const uint8_t*> kp(n), vp(n);
        for (size_t c = 0; c < n; ++c) {
            kp[c] = &k.bytes[(j0 + c) * k.row_bytes];
            vp[c] = &v.bytes[(j0 + c) * v.row_bytes];
        }
        // As the CPU backend calls it: the next chunk's K rows requested meanwhile.
        const size_t next = std::min(chunk, sh.cells - std::min(sh.cells, j0 + n));
        std::vector<const uint8_t*> np(next);
        for (size_t c = 0; c < next; ++c) np[c] = &k.bytes[(j0 + n + c) * k.row_bytes];
        attn_chunk(state.data(), sh.hd, sh.rows, f, kp.data(), vp.data(), off, n, int32_t(j0),
                   sh.softcap, AttnPrefetch{np.data(), next, 0, k.row_bytes});
    }
    attn_end(state.data(), sh.hd, sh.rows, op.data());
    // The exported partial results (a segment's, for combining) are the same running sums:
    // divided by their l they give attn_end's bits.
    const size_t pf = sh.hd + kAttnPartFloats;
    std::vector<float> parts(sh.rows * pf, std::nanf(""));
    attn_export(state.data(), sh.hd, sh.rows, parts.data());
    for (size_t r = 0; r < sh.rows; ++r) {
        const float l = parts[r * pf + 1], inv = l > 0.0f ? 1.0f / l : 0.0f;
        for (size_t i = 0; i < sh.hd; ++i) {
            const float got = parts[r * pf + kAttnPartFloats + i] * inv;
            ASSERT_EQ(std::memcmp(&got, &out[r * sh.hd + i], sizeof(float)), 0)
                << name(f) << " hd=" << sh.hd << " rows=" << sh.rows << " row " << r << " i " << i;
        }
    }

    const bool q8 = (f == KvFormat::Q8_0 || f == KvFormat::Q4_0) && sh.hd % 32 == 0;
    double max_err = 0, max_ref = 1e-30, max_err_unquantized = 0;
    for (size_t r = 0; r < sh.rows; ++r) {
        const std::vector<double> qq =
            q8 ? q8_query(&q[r * sh.hd], sh.hd, scale) : std::vector<double>();
        std::vector<double> sc, sc_unquantized;
        double mx = -INFINITY;
        for (int32_t j = lo[r]; j <= hi[r]; ++j) {
            double s = 0, su = 0;
            for (size_t i = 0; i < sh.hd; ++i) {
                const double kv = k.values[size_t(j) * row_len + off + i];
                su += double(q[r * sh.hd + i]) * kv;
                if (q8) s += qq[i] * kv;
            }
            su *= scale;
            if (!q8) s = su;
            if (sh.softcap > 0) su = sh.softcap * std::tanh(su / sh.softcap);
            sc_unquantized.push_back(su);
            if (sh.softcap > 0) s = sh.softcap * std::tanh(s / sh.softcap);
            sc.push_back(s);
            mx = std::max(mx, s);
        }
        const double mxu = sc_unquantized.empty()
                               ? 0.0
                               : *std::max_element(sc_unquantized.begin(), sc_unquantized.end());
        double l = 0, lu = 0;
        for (auto& s : sc) l += (s = std::exp(s - mx));
        for (auto& s : sc_unquantized) lu += (s = std::exp(s - mxu));
        for (size_t i = 0; i < sh.hd; ++i) {
            double o = 0, ou = 0;
            for (size_t c = 0; c < sc.size(); ++c) {
                const double vv = v.values[size_t(lo[r] + int32_t(c)) * row_len + off + i];
                o += sc[c] * vv;
                ou += sc_unquantized[c] * vv;
            }
            o = sc.empty() ? 0.0 : o / l;
            ou = sc.empty() ? 0.0 : ou / lu;
            max_err = std::max(max_err, std::fabs(o - out[r * sh.hd + i]));
            max_err_unquantized = std::max(max_err_unquantized, std::fabs(ou - out[r * sh.hd + i]));
            max_ref = std::max(max_ref, std::fabs(o));
        }
    }
    const auto where = [&] {
        return std::string(name(f)) + " isa=" + std::string(isa_name(active_isa())) +
               (active_isa() == Isa::Avx512 && detail::cpu_has_avx512vnni() ? "vnni" : "") +
               " hd=" + std::to_string(sh.hd) + " kvh=" + std::to_string(sh.kvh) +
               " rows=" + std::to_string(sh.rows) + " cells=" + std::to_string(sh.cells) +
               " chunk=" + std::to_string(chunk) + " window=" + std::to_string(sh.window) +
               " softcap=" + std::to_string(sh.softcap);
    };
    EXPECT_LT(max_err / max_ref, 1e-5) << where();
    // The 8-bit query's rounding: at most 1.4e-2 of the largest output on these shapes.
    if (q8) {
        EXPECT_LT(max_err_unquantized / max_ref, 3e-2) << where();
    }
}

// Makes `p` (kernels_test_util.h: each ISA, and AVX-512 with and without VNNI, where a Q8_0 or
// Q4_0 cache's integer scores differ) the active path.
void use_path(const test::IsaPath& p) {
    force_isa(p.isa);
    detail::allow_avx512vnni(p.vnni);
}

class AttnKernels : public ::testing::Test {
protected:
    void SetUp() override { saved_ = active_isa(); }
    void TearDown() override {
        force_isa(saved_);
        detail::allow_avx512vnni(true);
    }
    Isa saved_ = Isa::Scalar;
};

TEST_F(AttnKernels, EveryIsaFormatAndShapeEdgeMatchesFloat64) {
    const Shape shapes[] = {
        {64, 4, 1, 1, 200, 0, 0},     // decode: one row
        {64, 4, 3, 7, 130, 0, 0},     // qwen2.5-0.5b's group, cells not a multiple of 8
        {64, 4, 2, 16, 64, 0, 0},     // exactly one 16-lane vector and one chunk
        {64, 2, 1, 17, 97, 0, 0},     // one lane past a vector
        {128, 2, 1, 130, 75, 0, 0},   // a prefill item: 9 row vectors, hd 128
        {8, 4, 3, 9, 40, 0, 0},       // stories260K: heads of 8 inside one 32-block
        {80, 3, 1, 5, 33, 0, 0},      // a head that straddles blocks (offset 80)
        {64, 2, 1, 12, 150, 20, 0},   // sliding window
        {64, 2, 0, 6, 50, 0, 30.0f},  // soft-capped scores (Gemma 2)
        {64, 2, 1, 3, 1, 0, 0},       // a single cell
        {128, 2, 1, 8, 140, 0, 0},    // decode of an 8-query-head group, hd 128 (few rows)
        {64, 8, 5, 4, 77, 9, 0},      // decode, 4 rows, window shorter than a chunk
        {12, 2, 1, 20, 70, 0, 0},     // a head size that is not a multiple of 8
        {96, 2, 1, 6, 90, 0, 0},      // three 32-blocks a head (few rows)
        {96, 2, 1, 21, 90, 0, 0},     // three 32-blocks a head (rows in lanes)
        {32, 4, 2, 3, 70, 0, 0},      // one 32-block a head
    };
    for (const test::IsaPath& path : test::isa_paths()) {
        use_path(path);
        for (KvFormat f : {KvFormat::F32, KvFormat::F16, KvFormat::Q8_0, KvFormat::Q4_0})
            for (const Shape& sh : shapes) {
                if ((f == KvFormat::Q8_0 || f == KvFormat::Q4_0) && (sh.hd * sh.heads_kv) % 32)
                    continue;  // quantized caches hold rows of whole blocks
                for (size_t chunk : {size_t{64}, size_t{13}}) check(f, sh, chunk, 7);
            }
    }
}

// What run_item requests ahead during each chunk: nothing, or bytes [begin, begin + bytes) of
// the next chunk's first `rows` K rows and then V rows (rows = 0: all of them).
struct PrefetchPlan {
    bool on = false;
    size_t begin = 0, bytes = 0, rows = 0;
};

// Rows [0, rows) of an item of `total` rows (the others attend too), in chunks of `chunk`.
std::vector<float> run_item(KvFormat f, const test::KvCache& k, const test::KvCache& v, size_t hd,
                            size_t off, size_t cells, const std::vector<float>& q, size_t rows,
                            size_t total, const std::vector<int32_t>& lo,
                            const std::vector<int32_t>& hi, size_t chunk, float softcap,
                            const PrefetchPlan& plan = {}) {
    std::vector<const float*> qp(total);
    std::vector<float> out(total * hd);
    std::vector<float*> op(total);
    for (size_t r = 0; r < total; ++r) {
        qp[r] = &q[r * hd];
        op[r] = &out[r * hd];
    }
    std::vector<float> state(attn_state_floats(hd, total), std::nanf(""));
    attn_begin(state.data(), hd, total, qp.data(), 0.1f, lo.data(), hi.data(), f);
    for (size_t j0 = 0; j0 < cells; j0 += chunk) {
        const size_t n = std::min(chunk, cells - j0);
        std::vector<const uint8_t*> kp(n), vp(n);
        for (size_t c = 0; c < n; ++c) {
            kp[c] = &k.bytes[(j0 + c) * k.row_bytes];
            vp[c] = &v.bytes[(j0 + c) * v.row_bytes];
        }
        std::vector<const uint8_t*> next;
        for (size_t c = j0 + n; plan.on && c < std::min(cells, j0 + n + chunk); ++c)
            next.push_back(&k.bytes[c * k.row_bytes]);
        for (size_t c = j0 + n; plan.on && c < std::min(cells, j0 + n + chunk); ++c)
            next.push_back(&v.bytes[c * v.row_bytes]);
        if (plan.rows > 0) next.resize(std::min(next.size(), plan.rows));
        attn_chunk(state.data(), hd, total, f, kp.data(), vp.data(), off, n, int32_t(j0), softcap,
                   AttnPrefetch{next.data(), next.size(), plan.begin, plan.bytes});
    }
    attn_end(state.data(), hd, total, op.data());
    out.resize(rows * hd);
    return out;
}

TEST_F(AttnKernels, FewRowsAreBitIdenticalInsideALargerItem) {
    // A decode step's item (1-8 rows: the few-rows path on AVX-512, 1-4 on AVX2) must give the
    // same bits as the same rows inside a prefill's item of many rows (batch invariance).
    struct Case {
        size_t hd, heads, kvh, cells;
        int32_t window;
        float softcap;
    };
    const Case cases[] = {{64, 4, 1, 300, 0, 0},     {128, 2, 1, 150, 0, 0}, {64, 2, 0, 97, 40, 0},
                          {64, 2, 1, 130, 0, 25.0f}, {256, 1, 0, 70, 0, 0},  {32, 4, 3, 90, 0, 0},
                          {16, 2, 1, 66, 0, 0},      {8, 4, 2, 45, 0, 0},    {48, 2, 1, 80, 0, 0},
                          {96, 2, 1, 70, 0, 0}};
    size_t compared = 0;
    for (const test::IsaPath& path : test::isa_paths()) {
        if (path.isa == Isa::Scalar) continue;
        use_path(path);
        for (KvFormat f : {KvFormat::F32, KvFormat::F16, KvFormat::Q8_0, KvFormat::Q4_0})
            for (const Case& cs : cases)
                for (size_t rows = 1; rows <= 8; ++rows)
                    for (size_t chunk : {size_t{64}, size_t{13}}) {
                        std::mt19937 rng(uint32_t(rows * 31 + cs.hd));
                        const size_t row_len = cs.hd * cs.heads, off = cs.kvh * cs.hd;
                        const test::KvCache k = test::random_kv_cache(f, row_len, cs.cells, rng),
                                            v = test::random_kv_cache(f, row_len, cs.cells, rng);
                        const size_t total = rows + 19;
                        std::vector<float> q(total * cs.hd);
                        std::normal_distribution<float> nd(0.0f, 2.0f);
                        for (auto& x : q) x = nd(rng);
                        std::vector<int32_t> lo(total), hi(total);
                        std::uniform_int_distribution<int32_t> pick(0, int32_t(cs.cells) - 1);
                        for (size_t r = 0; r < total; ++r) {
                            hi[r] = r == 0 ? int32_t(cs.cells) - 1 : pick(rng);
                            lo[r] = cs.window > 0 ? std::max(0, hi[r] + 1 - cs.window) : 0;
                        }
                        if (rows > 2) hi[1] = lo[1] - 1;  // sees nothing
                        const auto few = run_item(f, k, v, cs.hd, off, cs.cells, q, rows, rows, lo,
                                                  hi, chunk, cs.softcap);
                        const auto many = run_item(f, k, v, cs.hd, off, cs.cells, q, rows, total,
                                                   lo, hi, chunk, cs.softcap);
                        ASSERT_EQ(std::memcmp(few.data(), many.data(), few.size() * 4), 0)
                            << name(f) << " path=" << test::isa_path_name(path) << " hd=" << cs.hd
                            << " rows=" << rows << " chunk=" << chunk << " window=" << cs.window
                            << " softcap=" << cs.softcap;
                        ++compared;
                    }
    }
    if (compared == 0) GTEST_SKIP() << "no SIMD attention path on this CPU";
}

TEST_F(AttnKernels, RequestingTheNextChunkNeverChangesTheResults) {
    // attn_chunk's AttnPrefetch only moves memory: decode items (the few-rows path, which spreads
    // the requests over its steps) and prefill items give the same bits with any plan: none,
    // whole rows, a slice that starts mid-line, an empty slice, fewer rows than the chunk's.
    const PrefetchPlan plans[] = {{true, 0, 256, 0},
                                  {true, 37, 100, 0},
                                  {true, 64, 0, 0},
                                  {true, 0, 256, 5},
                                  {true, 200, 1, 1}};
    size_t compared = 0;
    for (const test::IsaPath& path : test::isa_paths()) {
        use_path(path);
        for (KvFormat f : {KvFormat::F16, KvFormat::Q8_0, KvFormat::Q4_0})
            for (size_t rows : {size_t{1}, size_t{7}, size_t{8}, size_t{40}})
                for (size_t chunk : {size_t{64}, size_t{13}}) {
                    std::mt19937 rng(uint32_t(rows + chunk));
                    const size_t hd = 64, cells = 150, off = 64;
                    const test::KvCache k = test::random_kv_cache(f, 2 * hd, cells, rng),
                                        v = test::random_kv_cache(f, 2 * hd, cells, rng);
                    std::vector<float> q(rows * hd);
                    std::normal_distribution<float> nd(0.0f, 2.0f);
                    for (auto& x : q) x = nd(rng);
                    std::vector<int32_t> lo(rows, 0), hi(rows, int32_t(cells) - 1);
                    const auto plain =
                        run_item(f, k, v, hd, off, cells, q, rows, rows, lo, hi, chunk, 0.0f);
                    for (const PrefetchPlan& plan : plans) {
                        const auto with = run_item(f, k, v, hd, off, cells, q, rows, rows, lo, hi,
                                                   chunk, 0.0f, plan);
                        ASSERT_EQ(std::memcmp(plain.data(), with.data(), plain.size() * 4), 0)
                            << name(f) << " path=" << test::isa_path_name(path) << " rows=" << rows
                            << " chunk=" << chunk << " begin=" << plan.begin
                            << " bytes=" << plan.bytes << " plan rows=" << plan.rows;
                        ++compared;
                    }
                }
    }
    EXPECT_GT(compared, 0u);
}

TEST_F(AttnKernels, NonFiniteQueryRowsLeaveTheOthersAlone) {
    // A query with NaN or infinite elements (a diverged model) must not disturb the other rows
    // of its item, whose integer-score codes (Q8_0) and float products are per row.
    size_t compared = 0;
    for (const test::IsaPath& path : test::isa_paths()) {
        use_path(path);
        for (KvFormat f : {KvFormat::F16, KvFormat::Q8_0, KvFormat::Q4_0})
            for (size_t rows : {size_t{7}, size_t{20}}) {
                std::mt19937 rng(11);
                const test::KvCache k = test::random_kv_cache(f, 128, 90, rng),
                                    v = test::random_kv_cache(f, 128, 90, rng);
                std::vector<float> q(rows * 64);
                std::normal_distribution<float> nd(0.0f, 1.0f);
                for (auto& x : q) x = nd(rng);
                std::vector<int32_t> lo(rows, 0), hi(rows, 89);
                const auto good = run_item(f, k, v, 64, 64, 90, q, rows, rows, lo, hi, 64, 0.0f);
                for (size_t i = 0; i < 64; ++i) q[2 * 64 + i] = std::nanf("");
                q[3 * 64 + 40] = INFINITY;
                q[4 * 64 + 17] = std::nanf("");  // one NaN among numbers
                const auto bad = run_item(f, k, v, 64, 64, 90, q, rows, rows, lo, hi, 64, 0.0f);
                for (size_t r = 0; r < rows; ++r) {
                    if (r >= 2 && r <= 4) continue;
                    ASSERT_EQ(std::memcmp(&good[r * 64], &bad[r * 64], 64 * 4), 0)
                        << name(f) << " path=" << test::isa_path_name(path) << " rows=" << rows
                        << " row=" << r;
                }
                ++compared;
            }
    }
    EXPECT_GT(compared, 0u);
}

TEST(AttnQueryRounding, EdgesOfTheSharedRule) {
    // quant/attn_query.h, which every backend follows: ties to even, the clamp, NaN and
    // infinity, all zeros, and a subnormal largest element (1 / d would be infinite).
    float x[32] = {};
    int8_t c[32];
    EXPECT_EQ(quant::attention_query_block(x, 1.0f, c), 0.0f);
    for (int8_t v : c) EXPECT_EQ(v, 0);
    x[0] = 127.0f;  // d = 1: codes are the values rounded half to even
    x[1] = 2.5f;
    x[2] = -3.5f;
    x[3] = 0.5f;
    x[4] = -127.0f;
    EXPECT_EQ(quant::attention_query_block(x, 1.0f, c), 1.0f);
    EXPECT_EQ(c[0], 127);
    EXPECT_EQ(c[1], 2);
    EXPECT_EQ(c[2], -4);
    EXPECT_EQ(c[3], 0);
    EXPECT_EQ(c[4], -127);
    x[5] = std::nanf("");
    EXPECT_TRUE(std::isnan(quant::attention_query_block(x, 1.0f, c)));
    for (int8_t v : c) EXPECT_EQ(v, 0);
    x[5] = -INFINITY;
    EXPECT_TRUE(std::isnan(quant::attention_query_block(x, 1.0f, c)));
    float tiny[32] = {};
    tiny[3] = 1e-40f;  // subnormal
    tiny[7] = -5e-41f;
    quant::attention_query_block(tiny, 1.0f, c);
    for (int8_t v : c) EXPECT_EQ(v, 0);
}

TEST_F(AttnKernels, IsasAgreeClosely) {
    // The same item on every ISA: only the summation order differs.
    const Shape sh{64, 4, 1, 40, 300, 0, 0};
    std::vector<std::vector<float>> outs;
    for (const test::IsaPath& path : test::isa_paths()) {
        use_path(path);
        std::mt19937 rng(3);
        const test::KvCache k = test::random_kv_cache(KvFormat::Q8_0, 256, sh.cells, rng);
        const test::KvCache v = test::random_kv_cache(KvFormat::Q8_0, 256, sh.cells, rng);
        std::vector<float> q(sh.rows * 64);
        std::normal_distribution<float> nd(0.0f, 1.0f);
        for (auto& x : q) x = nd(rng);
        std::vector<const float*> qp(sh.rows);
        std::vector<float> out(sh.rows * 64);
        std::vector<float*> op(sh.rows);
        std::vector<int32_t> lo(sh.rows, 0), hi(sh.rows);
        for (size_t r = 0; r < sh.rows; ++r) {
            qp[r] = &q[r * 64];
            op[r] = &out[r * 64];
            hi[r] = int32_t(sh.cells) - 1 - int32_t(r);
        }
        std::vector<float> state(attn_state_floats(64, sh.rows));
        attn_begin(state.data(), 64, sh.rows, qp.data(), 0.125f, lo.data(), hi.data(),
                   KvFormat::Q8_0);
        for (size_t j0 = 0; j0 < sh.cells; j0 += kAttnChunk) {
            const size_t n = std::min(kAttnChunk, sh.cells - j0);
            std::vector<const uint8_t*> kp(n), vp(n);
            for (size_t c = 0; c < n; ++c) {
                kp[c] = &k.bytes[(j0 + c) * k.row_bytes];
                vp[c] = &v.bytes[(j0 + c) * v.row_bytes];
            }
            attn_chunk(state.data(), 64, sh.rows, KvFormat::Q8_0, kp.data(), vp.data(), 64, n,
                       int32_t(j0), 0.0f);
        }
        attn_end(state.data(), 64, sh.rows, op.data());
        outs.push_back(out);
    }
    ASSERT_FALSE(outs.empty());
    for (size_t o = 1; o < outs.size(); ++o)
        for (size_t i = 0; i < outs[0].size(); ++i)
            ASSERT_NEAR(outs[o][i], outs[0][i], 1e-5f * (1.0f + std::fabs(outs[0][i]))) << i;
}

}  // namespace
}  // namespace hearth::cpu
