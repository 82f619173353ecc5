// Kernel micro-benchmark, run by hand (not a test):
//   cpu_kernel_bench [--quick] [--types Q4_0,Q8_0,...] [--isa avx512vnni] [--no-gemm]
//                    [--tokens 4,9,16]: gemm GFLOP/s for those token counts too, weights from
//                    memory (the copies cycled: a speculative verification step's case)
//   cpu_kernel_bench --packed [--isa NAME] [--tokens 16,64]: Q4_0 / Q8_0, file-format vs packed
//   (packed.h) GFLOP/s for 1 to 8, 16 and 512 tokens or those of --tokens (process CPU time
//   over 2 threads), the packed kernel also with its weights from memory (up to 16 tokens) and
//   on one thread with them in L2
//   cpu_kernel_bench --attn [--rounds N] [--isa NAME] [--types f16,q8_0] [--shape TEXT]: the
//   attention kernels alone (attn_main); --shape keeps the shapes whose name contains TEXT
//   cpu_kernel_bench --stream [--types Q4_0,...] [--k 896,2048]: a decode step's matrix
//   products (one token, packed weights, 2 threads) one matrix of ~5 MB after another from
//   memory, for rows of each --k (default 896, 2048, 5632): wall-clock GB/s of weights and
//   their share of the read bandwidth measured next to each row (stream_main), and the same
//   kernel on one thread over a matrix that stays in L2 (its compute ceiling: a core streams
//   half the read bandwidth in a 2-thread decode)
// Prints the measured read bandwidth (2 threads), then per ISA path and weight type:
// gemv GB/s of weights streamed for a 2048 x 5632 matrix (1 and 2 threads; enough copies are
// cycled to defeat the caches) and gemm GFLOP/s for 512 tokens on 2 threads.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/bandwidth.h"
#include "kernels/kernels.h"
#include "kernels/kernels_internal.h"
#include "kernels/packed.h"
#include "kernels_test_util.h"
#include "thread_pool.h"

using namespace hearth;
using namespace hearth::cpu;
using Clock = std::chrono::steady_clock;

namespace {

constexpr size_t kRows = 2048, kK = 5632;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// CPU time of the calling thread: on a shared machine, the kernel's own speed.
double thread_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Matrix {
    quant::Type type;
    size_t bytes;
    std::vector<std::vector<uint8_t>> copies;  // cycled so gemv streams from memory
};

Matrix make_matrix(quant::Type t, size_t min_total, std::mt19937& rng) {
    Matrix m{t, quant::row_bytes(t, kK) * kRows, {}};
    const auto first = test::random_weights(t, kRows, kK, rng);
    const size_t n = std::max<size_t>(1, (min_total + m.bytes - 1) / m.bytes);
    for (size_t i = 0; i < n; ++i) m.copies.push_back(first);
    return m;
}

// hot: always the first copy (cache resident: the kernel's own speed); else cycle the copies.
double bench_gemv(ThreadPool& pool, const Matrix& m, const std::vector<uint8_t>& xq, int iters,
                  bool hot = false) {
    std::vector<float> out(kRows);
    // hot: 256 rows of the first copy, which stay in L2
    const size_t rows = hot ? 256 : kRows;
    auto one = [&](size_t i) {
        const uint8_t* w = m.copies[hot ? 0 : i % m.copies.size()].data();
        pool.parallel_for(rows, 16, [&](size_t b, size_t e, int) {
            gemv(m.type, w, kK, b, e, xq.data(), out.data() + b);
        });
    };
    for (size_t i = 0; i < m.copies.size(); ++i) one(i);  // warm up, fault pages in
    if (hot) iters *= 8;
    const auto t0 = Clock::now();
    const double c0 = thread_cpu_seconds();
    for (int i = 0; i < iters; ++i) one(static_cast<size_t>(i));
    // hot runs single-threaded on the caller: count its CPU time, not the wall clock
    const double s = hot ? thread_cpu_seconds() - c0 : seconds_since(t0);
    return static_cast<double>(m.bytes / kRows * rows) * iters / s / 1e9;
}

double process_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Seconds of `clock` per call of `one` (after a warm-up call), the calls repeated until `min_s`
// have passed on it: this VM's process clock moves in steps of a few ms, and 40 calls of a 2 MB
// product once read 0 or 6 ms for 2 ms of wall time.
template <class F>
double clock_per_call(double (*clock)(), double min_s, F&& one) {
    one();
    const double c0 = clock();
    size_t calls = 0;
    double used = 0;
    do {
        one();
        ++calls;
        used = clock() - c0;
    } while (used < min_s);
    return used / static_cast<double>(calls);
}

// Seconds of one call of `one` on the pool: process CPU time over the pool size, what the pool
// would take on otherwise idle cores (on a shared machine the wall clock mostly measures the
// neighbours).
template <class F>
double seconds_per_call(ThreadPool& pool, F&& one) {
    return clock_per_call(process_cpu_seconds, 0.4, one) / static_cast<double>(pool.size());
}

// cycle: walk the copies (weights from memory, as a verify step of a few tokens reads them);
// else always the first copy.
double bench_gemm(ThreadPool& pool, const Matrix& m, const std::vector<uint8_t>& xq, size_t stride,
                  size_t n, bool cycle = false) {
    std::vector<float> y(n * kRows);
    size_t next = 0;
    auto one = [&] {
        const uint8_t* w = m.copies[cycle ? next++ % m.copies.size() : 0].data();
        pool.parallel_for(kRows, 16, [&](size_t b, size_t e, int) {
            gemm(m.type, w, kK, b, e, xq.data(), stride, n, y.data(), kRows);
        });
    };
    return 2.0 * kRows * kK * static_cast<double>(n) / seconds_per_call(pool, one) / 1e9;
}

// Like bench_gemm, over the packed copies (n = 1 included: the decode case): always the first
// (cache resident), or one after another when there are several (weights from memory).
double bench_packed(ThreadPool& pool, const std::vector<std::unique_ptr<PackedWeight>>& pws,
                    const std::vector<uint8_t>& xq, size_t stride, size_t n) {
    std::vector<float> y(n * kRows);
    size_t next = 0;
    auto one = [&] {
        const PackedWeight& pw = *pws[next++ % pws.size()];
        pool.parallel_for(pw.groups(), 1, [&](size_t b, size_t e, int) {
            gemm_packed(pw, b * kPackRows, e * kPackRows, xq.data(), stride, n, y.data(), kRows);
        });
    };
    return 2.0 * kRows * kK * static_cast<double>(n) / seconds_per_call(pool, one) / 1e9;
}

// The packed kernel's own speed: one thread, 128 rows (405 KB of Q4_0) that stay in L2, as
// multiply-adds per second (a 512-bit vpdpbusd does 64).
double packed_l2_gmacs(const PackedWeight& pw, const std::vector<uint8_t>& xq, size_t stride,
                       size_t n) {
    constexpr size_t rows = 128;
    std::vector<float> y(n * kRows);
    const double s = clock_per_call(thread_cpu_seconds, 0.3, [&] {
        gemm_packed(pw, 0, rows, xq.data(), stride, n, y.data(), kRows);
    });
    return static_cast<double>(rows * kK * n) / s / 1e9;
}

int packed_main(const std::string& only_isa, const std::vector<size_t>& tokens) {
    ThreadPool pool(2);
    std::mt19937 rng(42);
    std::printf("%-11s %-5s %5s %14s %14s %6s %12s %16s\n", "path", "type", "n", "file GFLOP/s",
                "packed GFLOP/s", "x", "from memory", "1 thread, L2");
    for (quant::Type t : {quant::Type::Q4_0, quant::Type::Q8_0}) {
        const Matrix m = make_matrix(t, 0, rng);
        std::vector<std::unique_ptr<PackedWeight>> hot, cold;
        hot.push_back(make_packed(t, m.copies[0].data(), kK, kRows));
        pack_groups(*hot[0], 0, hot[0]->groups());
        // 256 MiB of copies: each pass reads its weights from memory
        for (size_t i = 0; i * m.bytes < (size_t{256} << 20); ++i) {
            cold.push_back(make_packed(t, m.copies[0].data(), kK, kRows));
            pack_groups(*cold.back(), 0, cold.back()->groups());
        }
        const size_t stride = activation_row_bytes(t, kK);
        size_t most = 512;
        for (size_t n : tokens) most = std::max(most, n);
        std::vector<uint8_t> xq(most * stride);
        for (size_t j = 0; j < most; ++j) {
            const auto x = test::random_activation(kK, rng);
            quantize_activation(t, x.data(), kK, &xq[j * stride]);
        }
        for (Isa isa : {Isa::Avx2, Isa::Avx512}) {
            for (int variant : {0, 1, 2}) {  // plain, VNNI, VNNI + AMX
                const bool vnni = variant >= 1, amx = variant == 2;
                if (!isa_supported(isa) || (vnni && isa != Isa::Avx512)) continue;
                force_isa(isa);
                detail::allow_avx512vnni(vnni);
                detail::allow_amx(amx);
                if (vnni && !detail::cpu_has_avx512vnni()) continue;
                if (amx && !detail::cpu_has_amx()) continue;
                const std::string name =
                    std::string(isa_name(isa)) + (vnni ? "vnni" : "") + (amx ? "amx" : "");
                if (!only_isa.empty() && only_isa != name) continue;
                const std::vector<size_t> counts =
                    tokens.empty() ? std::vector<size_t>{1, 2, 3, 4, 5, 6, 7, 8, 16, 512} : tokens;
                for (size_t n : counts) {
                    const double f = bench_gemm(pool, m, xq, stride, n);
                    const double p = bench_packed(pool, hot, xq, stride, n);
                    const double c = n <= 16 ? bench_packed(pool, cold, xq, stride, n) : 0;
                    const double l2 = 2.0 * packed_l2_gmacs(*hot[0], xq, stride, n);
                    std::printf("%-11s %-5s %5zu %14.1f %14.1f %6.2f %12.1f %16.1f\n", name.c_str(),
                                quant::traits(t).name.data(), n, f, p, p / f, c, l2);
                    std::fflush(stdout);
                }
            }
        }
    }
    return 0;
}

// --attn: the attention kernels alone (attn_begin / attn_chunk / attn_end) on one thread, in the
// shape of qwen2.5-0.5b (head size 64, 7 query heads per KV head, 2 KV heads a cache row):
//   decode, in cache: 7 rows against 256 cells of one layer, over and over (the kernel's own
//     speed: the cache rows stay in L2);
//   decode, in memory: 7 rows against 4,096 cells in each of 24 layers, a 64 MiB sweep
//     before each pass (what a decode step at a 4k context waits on);
//   prefill: 128 rows (a new turn's item) against 3,072 cells of one layer.
// As cpu_attention.cpp's attend_item: a state per layer and head, restarted every 256 cells
// (a segment; the old one's results exported), the next chunk's rows requested by the heads'
// calls (AttnPrefetch), K rows by the first and V rows by the second.
// Per path and cache format: microseconds per chunk of 64 cells and KV head (thread CPU time),
// and for the in-memory decode the cache bytes read per second.
struct AttnCacheFmt {
    KvFormat fmt;
    const char* name;
};

struct AttnShape {
    const char* name;
    size_t rows, cells, layers, passes;
    bool evict;
};

// Microseconds per chunk and head (thread CPU time); bytes_per_s: cache bytes over wall time.
double bench_attn(KvFormat f, const AttnShape& sh, std::mt19937& rng, double& bytes_per_s) {
    constexpr size_t hd = 64, heads = 2, chunk = kAttnChunk;
    const auto kc = test::random_kv_cache(f, hd * heads, sh.cells * sh.layers, rng);
    const auto vc = test::random_kv_cache(f, hd * heads, sh.cells * sh.layers, rng);
    const std::vector<uint8_t>&k = kc.bytes, &v = vc.bytes;
    const size_t rb = kc.row_bytes;
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float> q(sh.rows * hd), out(sh.rows * hd);
    for (auto& x : q) x = nd(rng);
    std::vector<const float*> qp(sh.rows);
    std::vector<float*> op(sh.rows);
    std::vector<int32_t> lo(sh.rows, 0), hi(sh.rows, int32_t(sh.cells) - 1);
    for (size_t r = 0; r < sh.rows; ++r) {
        qp[r] = &q[r * hd];
        op[r] = &out[r * hd];
    }
    std::vector<std::vector<float>> st(heads, std::vector<float>(attn_state_floats(hd, sh.rows)));
    std::vector<float> parts(sh.rows * (hd + kAttnPartFloats));
    constexpr size_t kSegment = 256;  // cpu_attention.cpp's kSegmentCells
    std::vector<uint8_t> sweep(sh.evict ? (size_t{64} << 20) : 0, 1);
    volatile uint64_t sink = 0;
    double cpu = 0, wall = 0;
    size_t chunks = 0;
    for (size_t pass = 0; pass <= sh.passes; ++pass) {  // pass 0 warms up
        for (size_t i = 0; i < sweep.size(); i += 64) sink = sink + sweep[i];
        const double c0 = thread_cpu_seconds();
        const auto t0 = Clock::now();
        for (size_t layer = 0; layer < sh.layers; ++layer) {
            const uint8_t* kl = &k[layer * sh.cells * rb];
            const uint8_t* vl = &v[layer * sh.cells * rb];
            const uint8_t* kp[chunk];
            const uint8_t* vp[chunk];
            for (size_t j0 = 0; j0 < sh.cells; j0 += chunk) {
                for (auto& s : st)  // a state per layer, restarted per segment (attend_item)
                    if (j0 == 0) {
                        attn_begin(s.data(), hd, sh.rows, qp.data(), 0.125f, lo.data(), hi.data(),
                                   f);
                    } else if (j0 % kSegment == 0) {
                        attn_export(s.data(), hd, sh.rows, parts.data());
                        attn_restart(s.data(), hd, sh.rows);
                    }
                const size_t n = std::min(chunk, sh.cells - j0);
                for (size_t c = 0; c < n; ++c) {
                    kp[c] = kl + (j0 + c) * rb;
                    vp[c] = vl + (j0 + c) * rb;
                }
                const size_t next_n =
                    j0 + chunk < sh.cells ? std::min(chunk, sh.cells - j0 - chunk) : 0;
                const uint8_t* next[2 * chunk];  // the next chunk's K rows, then its V rows
                for (size_t c = 0; c < next_n; ++c) {
                    next[c] = kl + (j0 + chunk + c) * rb;
                    next[next_n + c] = vl + (j0 + chunk + c) * rb;
                }
                for (size_t h = 0; h < heads; ++h) {
                    const size_t x0 = 2 * next_n * h / heads, x1 = 2 * next_n * (h + 1) / heads;
                    attn_chunk(st[h].data(), hd, sh.rows, f, kp, vp, h * hd, n, int32_t(j0), 0.0f,
                               AttnPrefetch{next + x0, x1 - x0, 0, rb});
                    if (pass > 0) ++chunks;
                }
            }
            for (auto& s : st) attn_end(s.data(), hd, sh.rows, op.data());
        }
        if (pass > 0) {
            cpu += thread_cpu_seconds() - c0;
            wall += seconds_since(t0);
        }
    }
    bytes_per_s = 2.0 * double(rb) * double(sh.cells * sh.layers * sh.passes) / wall;
    return 1e6 * cpu / double(chunks);
}

// True when list (comma-separated; empty: everything) names item.
bool listed(const std::string& list, const std::string& item) {
    return list.empty() || ("," + list + ",").find("," + item + ",") != std::string::npos;
}

int attn_main(const std::string& only_isa, const std::string& only_kv, const std::string& shape,
              int rounds) {
    const AttnCacheFmt fmts[] = {
        {KvFormat::F16, "f16"}, {KvFormat::Q8_0, "q8_0"}, {KvFormat::Q4_0, "q4_0"}};
    const AttnShape shapes[] = {{"decode, in cache", 7, 256, 1, 4000, false},
                                {"decode, in memory", 7, 4096, 24, 3, true},
                                {"prefill, 128 rows", 128, 3072, 1, 20, false}};
    std::printf("%-11s %-6s %-18s %5s %12s %10s\n", "path", "kv", "shape", "round", "us/chunk-head",
                "GB/s");
    for (const auto& p : test::isa_paths()) {
        const std::string name = test::isa_path_name(p);
        if (p.isa == Isa::Scalar || (!only_isa.empty() && only_isa != name)) continue;
        force_isa(p.isa);
        detail::allow_avx512vnni(p.vnni);
        for (const auto& sh : shapes)
            for (int round = 0; round < rounds; ++round)
                for (const auto& f : fmts) {  // formats alternate within a round
                    if (!listed(only_kv, f.name) ||
                        std::string_view(sh.name).find(shape) == std::string_view::npos)
                        continue;
                    std::mt19937 rng(7);
                    double bps = 0;
                    const double us = bench_attn(f.fmt, sh, rng, bps);
                    std::printf("%-11s %-6s %-18s %5d %12.3f %10.1f\n", name.c_str(), f.name,
                                sh.name, round + 1, us, bps / 1e9);
                    std::fflush(stdout);
                }
    }
    return 0;
}

// GB/s of one thread's one-token products over a packed matrix of about 600 KB, read again and
// again from L2: the best of 5 rounds of 400 passes.
double stream_in_l2_gbs(quant::Type t, size_t k, const uint8_t* xq, size_t stride,
                        std::mt19937& rng) {
    const size_t row_bytes = quant::row_bytes(t, k);
    const size_t rows =
        std::max<size_t>(kPackRows, (size_t{600} << 10) / row_bytes / kPackRows * kPackRows);
    const auto w = test::random_weights(t, rows, k, rng);
    const auto pw = make_packed(t, w.data(), k, rows);
    if (!pw) return 0.0;
    pack_groups(*pw, 0, pw->groups());
    std::vector<float> y(rows);
    constexpr int kPasses = 400;
    double best = 1e30;
    for (int round = 0; round < 5; ++round) {
        const auto t0 = Clock::now();
        for (int i = 0; i < kPasses; ++i) gemm_packed(*pw, 0, rows, xq, stride, 1, y.data(), rows);
        best = std::min(best, seconds_since(t0) / kPasses);
    }
    return static_cast<double>(rows * row_bytes) / best / 1e9;
}

// --stream: per packable weight type and row length k, a matrix of about 5 MB (whole 16-row
// groups), packed, in enough copies to fill 256 MiB; each pass multiplies one token by the
// next copy on 2 threads, cut into 4 chunks a thread as a decode step's large products are
// (cpu_ops.cpp short_step_chunks). Reports the best of 3 rounds of passes over every copy,
// then stream_in_l2_gbs.
int stream_main(const std::string& only_types, const std::vector<size_t>& ks) {
    ThreadPool pool(2);
    std::mt19937 rng(7);
    std::printf("%-7s %6s %6s %9s %10s %10s %6s %14s\n", "type", "k", "rows", "us/pass", "GB/s",
                "read GB/s", "share", "1 thread, L2");
    for (quant::Type t : {quant::Type::Q4_0, quant::Type::Q5_0, quant::Type::Q8_0,
                          quant::Type::Q4_K, quant::Type::Q6_K, quant::Type::F16}) {
        const std::string tname(quant::traits(t).name);
        if (!listed(only_types, tname)) continue;
        for (size_t k : ks) {
            if (!packable(t, k)) {
                std::printf("%-7s %6zu  (not packed for this ISA / row length)\n", tname.c_str(),
                            k);
                continue;
            }
            const size_t row_bytes = quant::row_bytes(t, k);
            const size_t rows =
                std::max<size_t>(kPackRows, (size_t{5} << 20) / row_bytes / kPackRows * kPackRows);
            const auto w = test::random_weights(t, rows, k, rng);
            std::vector<std::unique_ptr<PackedWeight>> copies;
            for (size_t total = 0; total < (size_t{256} << 20); total += rows * row_bytes) {
                copies.push_back(make_packed(t, w.data(), k, rows));
                if (!copies.back()) return 1;
                pack_groups(*copies.back(), 0, copies.back()->groups());
            }
            const size_t stride = activation_row_bytes(t, k);
            std::vector<uint8_t> xq(stride);
            const auto x = test::random_activation(k, rng);
            quantize_activation(t, x.data(), k, xq.data());
            std::vector<float> y(rows);
            const double bw = measure_read_bandwidth_gbs(pool, size_t{256} << 20, 2);
            double best = 1e30;
            for (int round = 0; round < 3; ++round) {
                const auto t0 = Clock::now();
                for (const auto& pw : copies) {
                    const PackedWeight* p = pw.get();
                    const size_t groups = p->groups(), per = (groups + 7) / 8;
                    pool.parallel_for(groups, per, [&](size_t b, size_t e, int) {
                        gemm_packed(*p, b * kPackRows, e * kPackRows, xq.data(), stride, 1,
                                    y.data(), rows);
                    });
                }
                best = std::min(best, seconds_since(t0) / static_cast<double>(copies.size()));
            }
            const double gbs = static_cast<double>(rows * row_bytes) / best / 1e9;
            copies.clear();
            const double l2 = stream_in_l2_gbs(t, k, xq.data(), stride, rng);
            std::printf("%-7s %6zu %6zu %9.1f %10.1f %10.1f %5.0f%% %9.1f GB/s\n", tname.c_str(), k,
                        rows, best * 1e6, gbs, bw, 100.0 * gbs / bw, l2);
            std::fflush(stdout);
        }
    }
    return 0;
}

// Appends a comma-separated list of counts in [1, most] ("16,64") to out, up to the first that
// is not one.
void append_counts(const char* list, unsigned long most, std::vector<size_t>& out) {
    for (const char* p = list; *p;) {
        char* end = nullptr;
        const unsigned long v = std::strtoul(p, &end, 10);
        if (end == p || v == 0 || v > most) break;
        out.push_back(v);
        p = *end == ',' ? end + 1 : end;
    }
}

}  // namespace

int main(int argc, char** argv) {
    bool quick = false, do_gemm = true, packed = false, attn = false, stream = false;
    std::vector<size_t> ks;  // --stream's row lengths
    int rounds = 3;
    std::string only_types, only_isa, shape;
    std::vector<size_t> few;  // --tokens: gemm GFLOP/s for these token counts too
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--quick")
            quick = true;
        else if (a == "--no-gemm")
            do_gemm = false;
        else if (a == "--packed")
            packed = true;
        else if (a == "--attn")
            attn = true;
        else if (a == "--stream")
            stream = true;
        else if (a == "--k" && i + 1 < argc)
            append_counts(argv[++i], 65536, ks);
        else if (a == "--rounds" && i + 1 < argc)
            rounds = std::max(1, std::atoi(argv[++i]));
        else if (a == "--types" && i + 1 < argc)
            only_types = argv[++i];
        else if (a == "--isa" && i + 1 < argc)
            only_isa = argv[++i];
        else if (a == "--shape" && i + 1 < argc)
            shape = argv[++i];
        else if (a == "--tokens" && i + 1 < argc)
            append_counts(argv[++i], 512, few);
        else {
            std::fprintf(stderr,
                         "usage: %s [--quick] [--no-gemm] [--packed] [--attn [--rounds N] "
                         "[--shape TEXT]] [--stream [--k 896,2048]] [--types A,B] [--isa NAME] "
                         "[--tokens 1,9,16]\n",
                         argv[0]);
            return 2;
        }
    }
    if (packed) return packed_main(only_isa, few);
    if (stream) {
        if (!only_isa.empty()) {
            std::fprintf(stderr, "--stream runs the best ISA path only\n");
            return 2;
        }
        return stream_main(only_types, ks.empty() ? std::vector<size_t>{896, 2048, 5632} : ks);
    }
    if (attn) return attn_main(only_isa, only_types, shape, rounds);
    ThreadPool pool1(1), pool2(2);
    const size_t bw_bytes = quick ? (size_t{256} << 20) : (size_t{1} << 30);
    double bw = measure_read_bandwidth_gbs(pool2, bw_bytes);
    std::printf("read bandwidth (2 threads): %.1f GB/s\n", bw);

    const std::vector<test::IsaPath> paths = test::isa_paths();
    std::mt19937 rng(42);
    const size_t min_total = quick ? (size_t{64} << 20) : (size_t{256} << 20);
    std::printf("%-11s %-7s %10s %10s %6s %6s %10s %12s\n", "path", "type", "gemv1 GB/s",
                "gemv2 GB/s", "bw", "%bw", "hot1 GB/s", "gemm GFLOP/s");
    for (quant::Type t : test::weight_types()) {
        const std::string tname(quant::traits(t).name);
        if (!listed(only_types, tname)) continue;
        const Matrix m = make_matrix(t, min_total, rng);
        const size_t stride = activation_row_bytes(t, kK);
        const size_t n = 512;
        std::vector<uint8_t> xq(n * stride);
        for (size_t j = 0; j < n; ++j) {
            const auto x = test::random_activation(kK, rng);
            quantize_activation(t, x.data(), kK, &xq[j * stride]);
        }
        for (const auto& p : paths) {
            const std::string name = test::isa_path_name(p);
            if (!only_isa.empty() && only_isa != name) continue;
            // The machine may be shared: measure the bandwidth again next to each row.
            bw = measure_read_bandwidth_gbs(pool2, size_t{256} << 20, 2);
            force_isa(p.isa);
            detail::allow_avx512vnni(p.vnni);
            const bool scalar = p.isa == Isa::Scalar;
            const int iters = scalar ? 2 : (quick ? 20 : 60);
            const double g1 = bench_gemv(pool1, m, xq, iters);
            const double g2 = bench_gemv(pool2, m, xq, iters);
            const double hot = bench_gemv(pool1, m, xq, iters, true);
            double gf = 0.0;
            if (do_gemm) gf = bench_gemm(pool2, m, xq, stride, scalar ? 16 : n);
            std::printf("%-11s %-7s %10.1f %10.1f %6.1f %5.0f%% %10.1f %12.1f\n", name.c_str(),
                        tname.c_str(), g1, g2, bw, bw > 0 ? 100.0 * g2 / bw : 0.0, hot, gf);
            for (size_t f : few)  // weights from memory: cycle the copies
                std::printf("%-11s %-7s gemm %3zu tokens: %7.1f GFLOP/s\n", name.c_str(),
                            tname.c_str(), f, bench_gemm(pool2, m, xq, stride, f, true));
            std::fflush(stdout);
        }
    }
    return 0;
}
