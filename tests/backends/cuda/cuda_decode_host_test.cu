// The CUDA kernels' weight decoders and int8 dot products, run on the host (they are
// __host__ __device__): checked here on every machine, GPU or not. deq32 must equal the
// reference decoders bit for bit (GetRows is exact on the GPU); ArgMax's scan and reduction
// (k_argmax, replayed here thread by thread) must give the defined index; the dp4a units of Q4_0,
// Q8_0, Q4_K and Q6_K must give the float dot product of the decoded weights with the decoded 8-bit
// activations.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "cuda_kernels.h"

#include "cuda_argmax.cuh"
#include "cuda_kv.cuh"
#include "cuda_q8dot.cuh"
#include "quant/quant_ref.h"

namespace hearth::backend::cuda {
namespace {

struct Case {
    quant::Type type;
    void (*deq)(const uint8_t*, int64_t, float*);
};

template <uint32_t T>
void deq(const uint8_t* row, int64_t g, float* y) {
    deq32<T>(row, g, y);
}

const Case kCases[] = {
    {quant::Type::F32, deq<kF32>},       {quant::Type::F16, deq<kF16>},
    {quant::Type::BF16, deq<kBF16>},     {quant::Type::Q4_0, deq<kQ4_0>},
    {quant::Type::Q4_1, deq<kQ4_1>},     {quant::Type::Q5_0, deq<kQ5_0>},
    {quant::Type::Q5_1, deq<kQ5_1>},     {quant::Type::Q8_0, deq<kQ8_0>},
    {quant::Type::Q2_K, deq<kQ2_K>},     {quant::Type::Q3_K, deq<kQ3_K>},
    {quant::Type::Q4_K, deq<kQ4_K>},     {quant::Type::Q5_K, deq<kQ5_K>},
    {quant::Type::Q6_K, deq<kQ6_K>},     {quant::Type::IQ4_NL, deq<kIQ4_NL>},
    {quant::Type::IQ4_XS, deq<kIQ4_XS>},
};

// Bytes of a row of k elements: quantized from random floats where the reference can encode
// the type, else random bytes with small finite f16 scales (every bit pattern of the quants is
// then decoded).
std::vector<uint8_t> random_row(quant::Type t, size_t k, std::mt19937& rng) {
    const size_t bytes = quant::row_bytes(t, k);
    std::vector<uint8_t> row(bytes);
    if (quant::can_quantize(t)) {
        std::normal_distribution<float> nd(0.f, 1.f);
        std::vector<float> f(k);
        for (auto& x : f) x = nd(rng);
        quant::quantize_row(t, f.data(), row.data(), k);
        return row;
    }
    std::uniform_int_distribution<int> byte(0, 255);
    for (auto& b : row) b = uint8_t(byte(rng));
    // Every f16 in these layouts gets a modest value (exponent 0x38..0x3B: about 0.5..2).
    const auto& tr = quant::traits(t);
    for (size_t blk = 0; blk < bytes / tr.type_size; ++blk) {
        uint8_t* b = row.data() + blk * tr.type_size;
        auto fix = [&](size_t off) { b[off + 1] = uint8_t(0x38 | (b[off + 1] & 0x03)); };
        if (t == quant::Type::Q2_K) {
            fix(80);
            fix(82);
        }
        if (t == quant::Type::Q3_K) fix(108);
        if (t == quant::Type::IQ4_XS || t == quant::Type::IQ4_NL) fix(0);
    }
    return row;
}

TEST(CudaDecodeOnHost, Deq32EqualsTheReferenceBitForBit) {
    std::mt19937 rng(3);
    for (const Case& c : kCases) {
        SCOPED_TRACE(quant::traits(c.type).name);
        const size_t k = 512;
        for (int rep = 0; rep < 4; ++rep) {
            const auto row = random_row(c.type, k, rng);
            std::vector<float> ref(k), got(k);
            quant::dequantize_row(c.type, row.data(), ref.data(), k);
            for (int64_t g = 0; g < int64_t(k / 32); ++g) c.deq(row.data(), g, got.data() + g * 32);
            for (size_t i = 0; i < k; ++i) {
                ASSERT_EQ(std::memcmp(&got[i], &ref[i], sizeof(float)), 0)
                    << "element " << i << ": " << got[i] << " vs " << ref[i];
            }
        }
    }
}

// Activations quantized as k_quantize_q8 does: blocks of 32, d = max|x| / 127, q = rint(x / d).
void quantize_q8(const std::vector<float>& x, std::vector<int8_t>& q, std::vector<float2>& ds) {
    const size_t blocks = x.size() / 32;
    q.assign(x.size(), 0);
    ds.assign(blocks, make_float2(0.f, 0.f));
    for (size_t b = 0; b < blocks; ++b) {
        float amax = 0.f;
        for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[b * 32 + j]));
        const float d = amax / 127.f;
        int sum = 0;
        for (int j = 0; j < 32; ++j) {
            const int v = d > 0.f ? int(std::nearbyint(x[b * 32 + j] / d)) : 0;
            q[b * 32 + j] = int8_t(v);
            sum += v;
        }
        ds[b] = make_float2(d, d * float(sum));
    }
}

template <uint32_t T>
double q8_row_dot(const uint8_t* row, int64_t k, const int8_t* a, const float2* ds) {
    double s = 0;
    for (int64_t u = 0; u < k / Q8Dot<T>::kUnit; ++u) s += Q8Dot<T>::dot(row, u, a, ds);
    return s;
}

TEST(CudaDecodeOnHost, Dp4aUnitsGiveTheDotProduct) {
    std::mt19937 rng(5);
    std::normal_distribution<float> nd(0.f, 1.f);
    const int64_t k = 1024;
    struct Q8Case {
        quant::Type type;
        double (*dot)(const uint8_t*, int64_t, const int8_t*, const float2*);
    };
    const Q8Case cases[] = {{quant::Type::Q4_0, q8_row_dot<kQ4_0>},
                            {quant::Type::Q8_0, q8_row_dot<kQ8_0>},
                            {quant::Type::Q4_K, q8_row_dot<kQ4_K>},
                            {quant::Type::Q6_K, q8_row_dot<kQ6_K>}};
    for (const Q8Case& c : cases) {
        SCOPED_TRACE(quant::traits(c.type).name);
        for (int rep = 0; rep < 8; ++rep) {
            const auto row = random_row(c.type, size_t(k), rng);
            std::vector<float> x(static_cast<size_t>(k));
            for (auto& v : x) v = nd(rng);
            std::vector<int8_t> q;
            std::vector<float2> ds;
            quantize_q8(x, q, ds);
            // The exact dot of the decoded weights with the decoded activations.
            std::vector<float> w(static_cast<size_t>(k));
            quant::dequantize_row(c.type, row.data(), w.data(), size_t(k));
            double ref = 0, mag = 0;
            for (int64_t i = 0; i < k; ++i) {
                const double a = double(q[size_t(i)]) * double(ds[size_t(i / 32)].x);
                ref += double(w[size_t(i)]) * a;
                mag += std::fabs(double(w[size_t(i)]) * a);
            }
            const double got = c.dot(row.data(), k, q.data(), ds.data());
            EXPECT_NEAR(got, ref, 1e-5 * mag + 1e-6);
        }
    }
}

// The coalesced decode layout: every lane's share of every block, summed, gives the same dot.
template <uint32_t T>
double q8_lanes_row_dot(const uint8_t* row, int64_t k, const int8_t* a, const float2* ds) {
    using L = Q8Lane<T>;
    double s = 0;
    for (int64_t b = 0; b < k / L::kElems; ++b) {
        for (int j = 0; j < L::kLanes; ++j) {
            const typename L::W w = L::load(row + b * L::kBytes, j);
            s += L::dot(w, j, a + b * L::kElems, ds + b * (L::kElems / 32));
        }
    }
    return s;
}

TEST(CudaDecodeOnHost, Dp4aLaneSharesGiveTheDotProduct) {
    std::mt19937 rng(6);
    std::normal_distribution<float> nd(0.f, 1.f);
    const int64_t k = 1024;
    struct Q8Case {
        quant::Type type;
        double (*dot)(const uint8_t*, int64_t, const int8_t*, const float2*);
    };
    const Q8Case cases[] = {{quant::Type::Q4_0, q8_lanes_row_dot<kQ4_0>},
                            {quant::Type::Q8_0, q8_lanes_row_dot<kQ8_0>},
                            {quant::Type::Q4_K, q8_lanes_row_dot<kQ4_K>},
                            {quant::Type::Q6_K, q8_lanes_row_dot<kQ6_K>}};
    for (const Q8Case& c : cases) {
        SCOPED_TRACE(quant::traits(c.type).name);
        for (int rep = 0; rep < 8; ++rep) {
            // Two rows back to back, as in a matrix. Blocks of 18, 34 and 210 bytes alternate
            // between word-aligned and 2-byte offsets: the funnel-shifted loads meet both.
            const auto r0 = random_row(c.type, size_t(k), rng);
            const auto r1 = random_row(c.type, size_t(k), rng);
            std::vector<uint8_t> rows(r0);
            rows.insert(rows.end(), r1.begin(), r1.end());
            std::vector<float> x(static_cast<size_t>(k));
            for (auto& v : x) v = nd(rng);
            std::vector<int8_t> q;
            std::vector<float2> ds;
            quantize_q8(x, q, ds);
            for (int r = 0; r < 2; ++r) {
                const uint8_t* row = rows.data() + size_t(r) * r0.size();
                std::vector<float> w(static_cast<size_t>(k));
                quant::dequantize_row(c.type, row, w.data(), size_t(k));
                double ref = 0, mag = 0;
                for (int64_t i = 0; i < k; ++i) {
                    const double a = double(q[size_t(i)]) * double(ds[size_t(i / 32)].x);
                    ref += double(w[size_t(i)]) * a;
                    mag += std::fabs(double(w[size_t(i)]) * a);
                }
                EXPECT_NEAR(c.dot(row, k, q.data(), ds.data()), ref, 1e-5 * mag + 1e-6)
                    << "row " << r;
            }
        }
    }
}

// KV append quantizes on the device: the blocks must equal the reference encoder's (the parity
// suite compares caches), and attention's element decode must equal the reference decoder.
TEST(CudaDecodeOnHost, KvBlocksEqualTheReferenceEncoder) {
    std::mt19937 rng(9);
    std::normal_distribution<float> nd(0.f, 2.f);
    for (quant::Type t : {quant::Type::Q8_0, quant::Type::Q4_0}) {
        SCOPED_TRACE(quant::traits(t).name);
        for (int rep = 0; rep < 200; ++rep) {
            std::vector<float> v(32);
            for (auto& x : v) x = nd(rng);
            if (rep == 0) std::fill(v.begin(), v.end(), 0.f);  // an all-zero block
            if (rep == 1) {
                v[5] = 7.f;
                v[9] = -7.f;
            }  // a tie of magnitudes
            if (rep == 2)
                for (size_t j = 0; j < 32; ++j) v[j] = float(int(j) - 16) * 0.5f;  // exact halves
            uint8_t ref[34] = {}, got[34] = {};
            quant::quantize_row(t, v.data(), ref, 32);
            if (t == quant::Type::Q8_0)
                quantize_kv_block<kQ8_0>(v.data(), got);
            else
                quantize_kv_block<kQ4_0>(v.data(), got);
            ASSERT_EQ(std::memcmp(ref, got, quant::row_bytes(t, 32)), 0) << "block " << rep;
            float dec[32];
            quant::dequantize_row(t, ref, dec, 32);
            for (int i = 0; i < 32; ++i) {
                const float e =
                    t == quant::Type::Q8_0 ? kv_elem<kQ8_0>(ref, i) : kv_elem<kQ4_0>(ref, i);
                ASSERT_EQ(e, dec[i]) << i;
            }
        }
    }
}

// The same blocks encoded and decoded by device code on the GPU (skipped without one): the
// host build of these functions proves nothing about what nvcc made of them for the device.
__global__ void k_kv_blocks(const float* v, int n_blocks, uint8_t* q8, uint8_t* q4, float* e8,
                            float* e4) {
    const int b = int(blockIdx.x * blockDim.x + threadIdx.x);
    if (b >= n_blocks) return;
    quantize_kv_block<kQ8_0>(v + 32 * b, q8 + 34 * b);
    quantize_kv_block<kQ4_0>(v + 32 * b, q4 + 18 * b);
    for (int i = 0; i < 32; ++i) {
        e8[32 * b + i] = kv_elem<kQ8_0>(q8 + 34 * b, i);
        e4[32 * b + i] = kv_elem<kQ4_0>(q4 + 18 * b, i);
    }
}

TEST(CudaDecodeOnDevice, KvBlocksEqualTheReferenceEncoder) {
    int n_dev = 0;
    if (const cudaError_t e = cudaGetDeviceCount(&n_dev); e != cudaSuccess || n_dev == 0)
        GTEST_SKIP() << "no CUDA device (" << cudaGetErrorString(e) << ")";
    constexpr int kBlocks = 256;
    std::mt19937 rng(11);
    std::normal_distribution<float> nd(0.f, 2.f);
    std::vector<float> v(32 * kBlocks);
    for (auto& x : v) x = nd(rng);
    std::fill(v.begin(), v.begin() + 32, 0.f);  // an all-zero block
    v[32 + 5] = 7.f;                            // a tie of magnitudes
    v[32 + 9] = -7.f;
    for (int j = 0; j < 32; ++j) v[64 + j] = float(j - 16) * 0.5f;  // exact halves
    float* dv = nullptr;
    uint8_t *d8 = nullptr, *d4 = nullptr;
    float *de8 = nullptr, *de4 = nullptr;
    ASSERT_EQ(cudaMalloc(&dv, v.size() * 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d8, 34 * kBlocks), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d4, 18 * kBlocks), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&de8, v.size() * 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&de4, v.size() * 4), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(dv, v.data(), v.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
    k_kv_blocks<<<kBlocks / 64, 64>>>(dv, kBlocks, d8, d4, de8, de4);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<uint8_t> g8(34 * kBlocks), g4(18 * kBlocks);
    std::vector<float> ge8(v.size()), ge4(v.size());
    ASSERT_EQ(cudaMemcpy(g8.data(), d8, g8.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(g4.data(), d4, g4.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(ge8.data(), de8, v.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(ge4.data(), de4, v.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    for (void* p : {static_cast<void*>(dv), static_cast<void*>(d8), static_cast<void*>(d4),
                    static_cast<void*>(de8), static_cast<void*>(de4)})
        cudaFree(p);
    for (quant::Type t : {quant::Type::Q8_0, quant::Type::Q4_0}) {
        const bool q8 = t == quant::Type::Q8_0;
        const size_t bytes = q8 ? 34 : 18;
        for (int b = 0; b < kBlocks; ++b) {
            uint8_t ref[34] = {};
            quant::quantize_row(t, v.data() + 32 * b, ref, 32);
            const uint8_t* got = (q8 ? g8.data() : g4.data()) + bytes * size_t(b);
            std::string diff;
            for (size_t i = 0; i < bytes; ++i)
                if (ref[i] != got[i])
                    diff += " byte " + std::to_string(i) + ": " + std::to_string(got[i]) +
                            " (reference " + std::to_string(ref[i]) + ")";
            ASSERT_TRUE(diff.empty()) << quant::traits(t).name << " block " << b << diff;
            float dec[32];
            quant::dequantize_row(t, ref, dec, 32);
            for (int i = 0; i < 32; ++i)
                ASSERT_EQ((q8 ? ge8 : ge4)[size_t(32 * b + i)], dec[i])
                    << quant::traits(t).name << " block " << b << " element " << i;
        }
    }
}

// The two-pass prefill (weights and activations to half, then the tiled product) against the
// one-pass tensor-core kernel: the same operands summed in the same order, so the same floats,
// on shapes with partial row and token tiles and matrices split into row chunks or not.
TEST(CudaDecodeOnDevice, TwoPassPrefillEqualsTheOnePassKernelBitForBit) {
    int n_dev = 0;
    if (const cudaError_t e = cudaGetDeviceCount(&n_dev); e != cudaSuccess || n_dev == 0)
        GTEST_SKIP() << "no CUDA device (" << cudaGetErrorString(e) << ")";
    int major = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
    if (major < 8) GTEST_SKIP() << "the two-pass kernel needs sm_80";
    struct Shape {
        int64_t k, m, nt;
    };
    const std::pair<quant::Type, uint32_t> types[] = {{quant::Type::Q4_0, kQ4_0},
                                                      {quant::Type::Q8_0, kQ8_0},
                                                      {quant::Type::Q4_K, kQ4_K},
                                                      {quant::Type::Q5_K, kQ5_K},
                                                      {quant::Type::Q6_K, kQ6_K}};
    std::mt19937 rng(23);
    std::normal_distribution<float> nd(0.f, 1.f);
    for (auto [qt, dt] : types) {
        for (Shape sh : {Shape{256, 200, 17}, Shape{512, 300, 130}, Shape{1024, 129, 257}}) {
            SCOPED_TRACE(std::string(quant::traits(qt).name) + " k=" + std::to_string(sh.k) +
                         " m=" + std::to_string(sh.m) + " tokens=" + std::to_string(sh.nt));
            std::vector<uint8_t> w;
            for (int64_t r = 0; r < sh.m; ++r) {
                const auto row = random_row(qt, size_t(sh.k), rng);
                w.insert(w.end(), row.begin(), row.end());
            }
            std::vector<float> x(size_t(sh.k * sh.nt));
            for (auto& v : x) v = nd(rng);
            void *dw = nullptr, *dx = nullptr, *dy1 = nullptr, *dy2 = nullptr, *scratch = nullptr;
            const DevTensor probe = dev_matrix(nullptr, dt, sh.k, sh.m, int64_t(w.size()) / sh.m);
            const size_t scratch_bytes = gemm_f16_scratch_bytes(probe, sh.nt);
            ASSERT_GT(scratch_bytes, 0u);
            const size_t ybytes = size_t(sh.m * sh.nt) * 4;
            ASSERT_EQ(cudaMalloc(&dw, w.size()), cudaSuccess);
            ASSERT_EQ(cudaMalloc(&dx, x.size() * 4), cudaSuccess);
            ASSERT_EQ(cudaMalloc(&dy1, ybytes), cudaSuccess);
            ASSERT_EQ(cudaMalloc(&dy2, ybytes), cudaSuccess);
            ASSERT_EQ(cudaMalloc(&scratch, scratch_bytes), cudaSuccess);
            ASSERT_EQ(cudaMemcpy(dw, w.data(), w.size(), cudaMemcpyHostToDevice), cudaSuccess);
            ASSERT_EQ(cudaMemcpy(dx, x.data(), x.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
            cudaMemset(dy1, 0xFF, ybytes);  // NaNs where nothing is written
            const DevTensor wt = dev_matrix(dw, dt, sh.k, sh.m, int64_t(w.size()) / sh.m);
            const DevTensor xt = dev_matrix(dx, kF32, sh.k, sh.nt, sh.k * 4);
            EXPECT_EQ(
                launch_mat_mul(nullptr, dev_matrix(dy1, kF32, sh.m, sh.nt, sh.m * 4), wt, xt, true),
                cudaSuccess);
            ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
            std::vector<float> y1(size_t(sh.m * sh.nt)), y2(y1.size());
            ASSERT_EQ(cudaMemcpy(y1.data(), dy1, ybytes, cudaMemcpyDeviceToHost), cudaSuccess);
            // The whole matrix decoded at once, then in chunks of 128 rows (the least scratch).
            const size_t x_bytes = (size_t(sh.nt * sh.k) * 2 + 255) / 256 * 256;
            for (size_t bytes : {scratch_bytes, x_bytes + size_t(128 * sh.k) * 2}) {
                SCOPED_TRACE("scratch " + std::to_string(bytes));
                cudaMemset(dy2, 0xFF, ybytes);
                EXPECT_EQ(launch_gemm_f16(nullptr, dev_matrix(dy2, kF32, sh.m, sh.nt, sh.m * 4), wt,
                                          xt, scratch, bytes),
                          cudaSuccess);
                ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
                ASSERT_EQ(cudaMemcpy(y2.data(), dy2, ybytes, cudaMemcpyDeviceToHost), cudaSuccess);
                size_t diffs = 0, first = y1.size();
                for (size_t i = 0; i < y1.size(); ++i) {
                    if (std::memcmp(&y1[i], &y2[i], 4) != 0) {
                        if (first == y1.size()) first = i;
                        ++diffs;
                    }
                }
                EXPECT_EQ(diffs, 0u)
                    << "first at token " << first / size_t(sh.m) << " row " << first % size_t(sh.m)
                    << ": " << y2[first] << " (one-pass " << y1[first] << ")";
                EXPECT_TRUE(std::isfinite(y2[0]) && std::isfinite(y2.back()));
            }
            for (void* p : {dw, dx, dy1, dy2, scratch}) cudaFree(p);
        }
    }
}

// k_argmax replayed on the host: kArgMaxThreads strided scans, then the same shared-memory
// tree, against a plain scan of the definition (NaN below every number, first of equals).
int32_t argmax_like_the_kernel(const std::vector<float>& x) {
    std::vector<uint32_t> sv(kArgMaxThreads), si(kArgMaxThreads);
    for (int tid = 0; tid < kArgMaxThreads; ++tid)
        argmax_scan(x.data(), int64_t(x.size()), tid, kArgMaxThreads, sv[size_t(tid)],
                    si[size_t(tid)]);
    for (int s = kArgMaxThreads / 2; s > 0; s >>= 1)
        for (int tid = 0; tid < s; ++tid) {
            const size_t a = size_t(tid), b = size_t(tid + s);
            if (argmax_better(sv[b], si[b], sv[a], si[a])) {
                sv[a] = sv[b];
                si[a] = si[b];
            }
        }
    return si[0] == kArgMaxNone ? 0 : int32_t(si[0]);
}

int32_t argmax_plain(const std::vector<float>& x) {
    int64_t best = -1;
    for (size_t i = 0; i < x.size(); ++i)
        if (!std::isnan(x[i]) && (best < 0 || x[i] > x[size_t(best)])) best = int64_t(i);
    return best < 0 ? 0 : int32_t(best);
}

TEST(CudaDecodeOnHost, ArgMaxReductionGivesTheDefinedIndex) {
    const float nan = std::nanf(""), inf = INFINITY;
    const std::vector<std::vector<float>> hand = {
        {1.f, 3.f, 3.f, 2.f}, {nan, 1.f, 2.f, nan}, {nan, nan, nan}, {-inf, nan, -inf},
        {nan, -inf},          {-0.f, 0.f, -1.f},    {inf, nan, inf}, {4.f},
    };
    const int32_t want[] = {1, 2, 0, 0, 1, 0, 0, 0};
    for (size_t c = 0; c < hand.size(); ++c) {
        EXPECT_EQ(argmax_plain(hand[c]), want[c]) << c;
        EXPECT_EQ(argmax_like_the_kernel(hand[c]), want[c]) << c;
    }
    std::mt19937 rng(5);
    std::normal_distribution<float> nd(0.f, 3.f);
    for (size_t n : {size_t(151936), size_t(4099), size_t(257), size_t(255), size_t(1)}) {
        for (int variant = 0; variant < 3; ++variant) {
            std::vector<float> x(n);
            for (auto& v : x) v = nd(rng);
            if (variant == 1) {  // the maximum twice, far apart (threads 0 and 255 hold them)
                x[n / 2] = 99.f;
                x[n - 1] = 99.f;
            }
            if (variant == 2)
                for (size_t i = 0; i < n; i += 3) x[i] = nan;
            EXPECT_EQ(argmax_like_the_kernel(x), argmax_plain(x)) << n << " " << variant;
        }
    }
}

}  // namespace
}  // namespace hearth::backend::cuda
