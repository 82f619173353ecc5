// The CPU device's packed weights (cpu_weights.h): a model file's Q4_0 / Q8_0 matrices imported
// with import_host are packed on first use and multiply like the same bytes in an ordinary
// buffer (the file-format kernels), for single rows, rows not a multiple of 16, 1..9 tokens and
// more than one token chunk; packing follows the switch and the ISA, and several matrices of
// one file pack separately. Also how a short step's products are cut across threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cpu/cpu_device.h"
#include "cpu/cpu_ops.h"
#include "cpu/cpu_weights.h"
#include "cpu/kernels/kernels.h"
#include "hearth/backend/graph.h"
#include "quant/quant_ref.h"

namespace hearth::backend {
namespace {

std::vector<float> random_floats(std::mt19937& rng, size_t n) {
    std::normal_distribution<float> d(0.f, 1.f);
    std::vector<float> v(n);
    for (auto& x : v) x = d(rng);
    return v;
}

std::vector<std::byte> encode(quant::Type t, const std::vector<float>& f, size_t k) {
    const size_t rows = f.size() / k, rb = quant::row_bytes(t, k);
    std::vector<std::byte> out(rb * rows);
    for (size_t r = 0; r < rows; ++r) quant::quantize_row(t, &f[r * k], &out[r * rb], k);
    return out;
}

struct Buf {
    std::unique_ptr<Buffer> b;
    Tensor t;
};

Buf alloc(Device& d, DType type, std::initializer_list<int64_t> dims, const void* data) {
    Buf o;
    const size_t bytes = Tensor::dense(nullptr, 0, type, dims).span_bytes();
    o.b = std::move(d.allocate(bytes).value());
    o.t = Tensor::dense(o.b.get(), 0, type, dims);
    if (data) {
        EXPECT_TRUE(o.b->write(0, {static_cast<const std::byte*>(data), bytes}));
    }
    return o;
}

// y = W x on the CPU device with W at `w` (any buffer), x T columns of k floats.
std::vector<float> mat_mul(Device& d, Stream& s, const Tensor& w, const std::vector<float>& x,
                           int64_t T) {
    const int64_t k = w.ne[0], m = w.ne[1];
    auto xb = alloc(d, DType::F32, {k, T}, x.data());
    auto yb = alloc(d, DType::F32, {m, T}, nullptr);
    Graph g;
    g.mat_mul(yb.t, w, xb.t, "mm");
    EXPECT_TRUE(s.compute(g));
    std::vector<float> y(size_t(m * T));
    EXPECT_TRUE(yb.b->read(0, std::as_writable_bytes(std::span(y))));
    return y;
}

class CpuWeights : public ::testing::TestWithParam<quant::Type> {};

TEST_P(CpuWeights, ImportedMatricesPackAndMultiplyLikeTheFileFormat) {
    const quant::Type t = GetParam();
    auto dev = make_cpu_device();
    auto stream = std::move(dev->create_stream({2}).value());
    std::mt19937 rng(17);
    const bool had = cpu_set_repack(true);
    for (int64_t k : {32, 96, 512})
        for (int64_t m : {1, 7, 16, 33, 100}) {
            const auto wf = random_floats(rng, size_t(k * m));
            const auto wb = encode(t, wf, size_t(k));
            auto imported = std::move(dev->import_host(wb).value());
            auto* cw = dynamic_cast<CpuWeightBuffer*>(imported.get());
            ASSERT_NE(cw, nullptr) << "import_host should give the CPU's weight buffer";
            const Tensor wi = Tensor::dense(imported.get(), 0, t, {k, m});
            auto plain = alloc(*dev, t, {k, m}, wb.data());
            for (int64_t T : {1, 2, 3, 5, 8, 9, 17, 70}) {
                SCOPED_TRACE("k=" + std::to_string(k) + " m=" + std::to_string(m) +
                             " T=" + std::to_string(T));
                const auto x = random_floats(rng, size_t(k * T));
                const auto got = mat_mul(*dev, *stream, wi, x, T);
                const auto want = mat_mul(*dev, *stream, plain.t, x, T);
                double scale = 0, worst = 0;
                for (size_t i = 0; i < want.size(); ++i) {
                    scale = std::max(scale, std::fabs(double(want[i])));
                    worst = std::max(worst, std::fabs(double(got[i]) - double(want[i])));
                }
                EXPECT_LE(worst, 1e-5 * (scale + 1e-3));
            }
            if (cpu::active_isa() != cpu::Isa::Scalar) {
                EXPECT_EQ(cw->packed_bytes(),
                          size_t((m + 15) / 16 * 16 * k / 32) * quant::traits(t).type_size)
                    << "the packed copy is the file's blocks plus zero rows up to 16";
            }
        }
    cpu_set_repack(had);
}

// Two matrices of one imported file are two packed copies; with packing off, none is made.
TEST_P(CpuWeights, EachMatrixOfAFilePacksOnceAndTheSwitchHolds) {
    const quant::Type t = GetParam();
    if (cpu::active_isa() == cpu::Isa::Scalar) GTEST_SKIP() << "no packed kernel on scalar";
    auto dev = make_cpu_device();
    auto stream = std::move(dev->create_stream({2}).value());
    std::mt19937 rng(3);
    const int64_t k = 64, m0 = 20, m1 = 48;
    const auto w0 = encode(t, random_floats(rng, size_t(k * m0)), size_t(k));
    const auto w1 = encode(t, random_floats(rng, size_t(k * m1)), size_t(k));
    std::vector<std::byte> file(w0);
    file.insert(file.end(), w1.begin(), w1.end());
    const auto x = random_floats(rng, size_t(k * 3));
    for (bool on : {true, false}) {
        const bool had = cpu_set_repack(on);
        auto imported = std::move(dev->import_host(file).value());
        auto* cw = dynamic_cast<CpuWeightBuffer*>(imported.get());
        ASSERT_NE(cw, nullptr);
        const Tensor a = Tensor::dense(imported.get(), 0, t, {k, m0});
        const Tensor b = Tensor::dense(imported.get(), w0.size(), t, {k, m1});
        auto pa = alloc(*dev, t, {k, m0}, w0.data());
        auto pb = alloc(*dev, t, {k, m1}, w1.data());
        for (int rep = 0; rep < 2; ++rep) {  // the second run reuses the packed copies
            const auto ga = mat_mul(*dev, *stream, a, x, 3);
            const auto wa = mat_mul(*dev, *stream, pa.t, x, 3);
            ASSERT_EQ(ga.size(), wa.size());
            for (size_t i = 0; i < ga.size(); ++i)
                EXPECT_NEAR(ga[i], wa[i], 1e-4 * (std::fabs(wa[i]) + 1.0f));
            const auto gb = mat_mul(*dev, *stream, b, x, 3);
            const auto wb = mat_mul(*dev, *stream, pb.t, x, 3);
            ASSERT_EQ(gb.size(), wb.size());
            for (size_t i = 0; i < gb.size(); ++i)
                EXPECT_NEAR(gb[i], wb[i], 1e-4 * (std::fabs(wb[i]) + 1.0f));
        }
        const size_t per_block = quant::traits(t).type_size;
        EXPECT_EQ(cw->packed_bytes(), on ? size_t(32 + 48) * (k / 32) * per_block : 0u);
        cpu_set_repack(had);
    }
}

// Forced to the scalar kernels nothing is packed (the packed layout would only cost memory).
TEST(CpuWeightsScalar, ScalarIsaPacksNothing) {
    const cpu::Isa saved = cpu::active_isa();
    ASSERT_TRUE(cpu::force_isa(cpu::Isa::Scalar));
    auto dev = make_cpu_device();
    auto stream = std::move(dev->create_stream({1}).value());
    std::mt19937 rng(4);
    const int64_t k = 64, m = 40;
    const auto wf = random_floats(rng, size_t(k * m));
    const auto wb = encode(quant::Type::Q4_0, wf, size_t(k));
    auto imported = std::move(dev->import_host(wb).value());
    const Tensor w = Tensor::dense(imported.get(), 0, quant::Type::Q4_0, {k, m});
    auto plain = alloc(*dev, quant::Type::Q4_0, {k, m}, wb.data());
    const auto x = random_floats(rng, size_t(k * 2));
    EXPECT_EQ(mat_mul(*dev, *stream, w, x, 2), mat_mul(*dev, *stream, plain.t, x, 2));
    EXPECT_EQ(dynamic_cast<CpuWeightBuffer*>(imported.get())->packed_bytes(), 0u);
    cpu::force_isa(saved);
}

// A table that is also a packed matrix (a tied output head) looks its rows up in the packed
// copy, whose bytes are the file's: the lookups equal the file's rows dequantized, before the
// matrix is packed and after, even once the file's bytes have changed under the buffer (its
// pages were handed back; here the test's own bytes are overwritten to see which copy is read).
TEST(CpuWeightsTied, EmbeddingRowsComeFromThePackedCopyOnceItExists) {
    if (cpu::active_isa() == cpu::Isa::Scalar) GTEST_SKIP() << "no packed kernel on scalar";
    auto dev = make_cpu_device();
    auto stream = std::move(dev->create_stream({2}).value());
    std::mt19937 rng(9);
    const bool had = cpu_set_repack(true);
    for (quant::Type t : {quant::Type::Q4_0, quant::Type::Q5_0, quant::Type::Q8_0,
                          quant::Type::Q4_K, quant::Type::Q6_K}) {
        SCOPED_TRACE(std::string(quant::traits(t).name));
        const int64_t k = 256, m = 37;
        std::vector<std::byte> file = encode(t, random_floats(rng, size_t(k * m)), size_t(k));
        const std::vector<std::byte> original = file;
        auto imported = std::move(dev->import_host(file).value());
        auto* cw = dynamic_cast<CpuWeightBuffer*>(imported.get());
        ASSERT_NE(cw, nullptr);
        const Tensor table = Tensor::dense(imported.get(), 0, t, {k, m});
        const std::vector<int32_t> ids = {0, 36, 15, 16, 5, 36};
        const int64_t T = int64_t(ids.size());
        auto lookup = [&] {
            auto ib = alloc(*dev, DType::I32, {T}, ids.data());
            auto ob = alloc(*dev, DType::F32, {k, T}, nullptr);
            Graph g;
            g.get_rows(ob.t, table, ib.t, "token_embd");
            EXPECT_TRUE(stream->compute(g));
            std::vector<float> out(size_t(k * T));
            EXPECT_TRUE(ob.b->read(0, std::as_writable_bytes(std::span(out))));
            return out;
        };
        std::vector<float> want(size_t(k * T));
        const size_t rb = quant::row_bytes(t, size_t(k));
        for (int64_t i = 0; i < T; ++i)
            quant::dequantize_row(t, &original[size_t(ids[size_t(i)]) * rb], &want[size_t(i * k)],
                                  size_t(k));
        EXPECT_EQ(lookup(), want) << "before packing (the file's rows)";
        mat_mul(*dev, *stream, table, random_floats(rng, size_t(k)), 1);  // packs the matrix
        ASSERT_GT(cw->packed_bytes(), 0u);
        std::fill(file.begin(), file.end(), std::byte{0x7f});
        EXPECT_EQ(lookup(), want) << "after packing (the packed copy's rows)";
    }
    cpu_set_repack(had);
}

// Device::prepare_weights makes at load the packed copies the kernels would make at first use:
// a graph afterwards packs nothing more and multiplies as one whose matrix packed at first use;
// matrices of other buffers, and with packing off, are left alone; a progress callback that
// says no stops it with an error.
TEST_P(CpuWeights, PreparedAtLoadIsWhatTheFirstGraphWouldPack) {
    const quant::Type t = GetParam();
    auto dev = make_cpu_device();
    auto stream = std::move(dev->create_stream({2}).value());
    std::mt19937 rng(23);
    const int64_t k = 96, m = 33, T = 5;
    const auto wb = encode(t, random_floats(rng, size_t(k * m * 2)), size_t(k));
    const size_t half = wb.size() / 2;
    const auto x = random_floats(rng, size_t(k * T));
    const bool had = cpu_set_repack(true);
    for (bool on : {true, false}) {
        SCOPED_TRACE(on ? "packing on" : "packing off");
        cpu_set_repack(on);
        auto at_use = std::move(dev->import_host(wb).value());
        auto at_load = std::move(dev->import_host(wb).value());
        auto* cw = dynamic_cast<CpuWeightBuffer*>(at_load.get());
        ASSERT_NE(cw, nullptr);
        auto plain = alloc(*dev, t, {k, m}, wb.data());
        // Two matrices of one file (the second at an offset) and one in an ordinary buffer.
        const Tensor w0 = Tensor::dense(at_load.get(), 0, t, {k, m});
        const Tensor w1 = Tensor::dense(at_load.get(), half, t, {k, m});
        const Tensor* mats[] = {&w0, &w1, &plain.t};
        std::vector<uint64_t> seen;
        auto made = dev->prepare_weights(mats, [&](uint64_t done, uint64_t total) {
            seen.push_back(done);
            EXPECT_EQ(total, 3 * half);
            return true;
        });
        ASSERT_TRUE(made.is_ok()) << made.error_message();
        EXPECT_EQ(seen, (std::vector<uint64_t>{half, 2 * half, 3 * half}));
        const bool packs = on && cpu::active_isa() != cpu::Isa::Scalar;
        EXPECT_EQ(*made, cw->packed_bytes());
        EXPECT_EQ(*made > 0, packs);
        EXPECT_EQ(cw->packed_if_made(w0) != nullptr, packs);
        EXPECT_EQ(cw->packed_if_made(w1) != nullptr, packs);
        const size_t bytes = cw->packed_bytes();
        const auto got0 = mat_mul(*dev, *stream, w0, x, T);
        const auto got1 = mat_mul(*dev, *stream, w1, x, T);
        EXPECT_EQ(cw->packed_bytes(), bytes) << "the graph packed a matrix again";
        const Tensor u0 = Tensor::dense(at_use.get(), 0, t, {k, m});
        const Tensor u1 = Tensor::dense(at_use.get(), half, t, {k, m});
        EXPECT_EQ(got0, mat_mul(*dev, *stream, u0, x, T));
        EXPECT_EQ(got1, mat_mul(*dev, *stream, u1, x, T));
        // Preparing again makes nothing new.
        auto again = dev->prepare_weights(mats, {});
        ASSERT_TRUE(again.is_ok());
        EXPECT_EQ(*again, 0u);
    }
    cpu_set_repack(true);
    {
        auto fresh = std::move(dev->import_host(wb).value());
        const Tensor w0 = Tensor::dense(fresh.get(), 0, t, {k, m});
        const Tensor w1 = Tensor::dense(fresh.get(), half, t, {k, m});
        const Tensor* mats[] = {&w0, &w1};
        int calls = 0;
        auto stopped = dev->prepare_weights(mats, [&](uint64_t, uint64_t) { return ++calls < 1; });
        ASSERT_FALSE(stopped.is_ok());
        EXPECT_NE(stopped.error_message().find("cancelled"), std::string::npos);
        EXPECT_EQ(calls, 1);
        EXPECT_EQ(dynamic_cast<CpuWeightBuffer*>(fresh.get())->packed_if_made(w1), nullptr)
            << "the matrix after the cancel was packed";
    }
    cpu_set_repack(had);
}

// MatMuls of the same rows and weight type in a row share one preparation of the rows (a
// prefill's K and V after Q): a node that rewrites the rows in between (here an in-place Add),
// and a new graph after the host rewrote them, must not see the stale preparation. Every product
// must equal the same product alone in its own graph, bit for bit.
TEST_P(CpuWeights, ReusedActivationsFollowTheirRows) {
    const quant::Type t = GetParam();
    auto dev = make_cpu_device();
    auto stream = std::move(dev->create_stream({2}).value());
    std::mt19937 rng(29);
    const int64_t k = 96, m = 40;
    const auto wa = encode(t, random_floats(rng, size_t(k * m)), size_t(k));
    const auto wb = encode(t, random_floats(rng, size_t(k * m)), size_t(k));
    std::vector<std::byte> file(wa);
    file.insert(file.end(), wb.begin(), wb.end());
    auto imported = std::move(dev->import_host(file).value());
    const Tensor a = Tensor::dense(imported.get(), 0, t, {k, m});
    const Tensor b = Tensor::dense(imported.get(), wa.size(), t, {k, m});
    for (int64_t T : {3, 20}) {  // a short step (fused where fusion is on) and a long one
        SCOPED_TRACE("T=" + std::to_string(T));
        const auto x = random_floats(rng, size_t(k * T));
        std::vector<float> x2(x);
        for (float& v : x2) v += v;  // what the Add leaves: exact, so the products compare bitwise
        auto xb = alloc(*dev, DType::F32, {k, T}, x.data());
        auto y1 = alloc(*dev, DType::F32, {m, T}, nullptr);
        auto y2 = alloc(*dev, DType::F32, {m, T}, nullptr);
        auto y3 = alloc(*dev, DType::F32, {m, T}, nullptr);
        Graph g;
        g.mat_mul(y1.t, a, xb.t, "q");
        g.mat_mul(y2.t, b, xb.t, "k");            // the same rows: prepared once
        g.add(xb.t, xb.t, xb.t, "in_place_add");  // rewrites them
        g.mat_mul(y3.t, a, xb.t, "after_add");
        ASSERT_TRUE(stream->compute(g));
        auto read = [](Buf& o, size_t n) {
            std::vector<float> v(n);
            EXPECT_TRUE(o.b->read(0, std::as_writable_bytes(std::span(v))));
            return v;
        };
        const size_t n = size_t(m * T);
        EXPECT_EQ(read(y1, n), mat_mul(*dev, *stream, a, x, T));
        EXPECT_EQ(read(y2, n), mat_mul(*dev, *stream, b, x, T));
        EXPECT_EQ(read(y3, n), mat_mul(*dev, *stream, a, x2, T))
            << "stale activations after the Add";

        // The same graph shape again on new rows written by the host between the graphs.
        const auto x3 = random_floats(rng, size_t(k * T));
        ASSERT_TRUE(xb.b->write(0, std::as_bytes(std::span(x3))));
        Graph g2;
        g2.mat_mul(y1.t, a, xb.t, "q");
        ASSERT_TRUE(stream->compute(g2));
        EXPECT_EQ(read(y1, n), mat_mul(*dev, *stream, a, x3, T))
            << "stale activations across graphs";
    }
}

INSTANTIATE_TEST_SUITE_P(Types, CpuWeights, ::testing::Values(quant::Type::Q4_0, quant::Type::Q8_0),
                         [](const auto& info) {
                             return std::string(quant::traits(info.param).name);
                         });

// Every thread gets the same number of a short step's chunks (an odd one left one thread
// streaming alone), at least one and at most four, and beyond one a thread none is under
// 512 KiB of weights.
TEST(CpuShortSteps, ChunksComeInWholeRoundsOfTheThreads) {
    constexpr size_t kKiB = 1024, kMiB = 1024 * 1024;
    for (size_t threads = 1; threads <= 8; ++threads)
        for (size_t bytes : {size_t{0}, 100 * kKiB, 512 * kKiB, 1 * kMiB, 2450 * kKiB, 2990 * kKiB,
                             5 * kMiB, 50 * kMiB, 1024 * kMiB}) {
            const size_t c = cpu_ops::short_step_chunks(bytes, threads);
            SCOPED_TRACE(std::to_string(bytes) + " bytes, " + std::to_string(threads) + " threads");
            EXPECT_EQ(c % threads, 0u);
            EXPECT_GE(c, threads);
            EXPECT_LE(c, 4 * threads);
            if (c > threads) {
                EXPECT_GE(bytes / c, 512 * kKiB);
            }
        }
    // qwen2.5-0.5b's Q5_0 ffn_gate (2.99 MB) on 2 threads: 4 chunks, not 5.
    EXPECT_EQ(cpu_ops::short_step_chunks(2990 * kKiB, 2), 4u);
    EXPECT_EQ(cpu_ops::short_step_chunks(0, 0), 1u);
}

}  // namespace
}  // namespace hearth::backend
