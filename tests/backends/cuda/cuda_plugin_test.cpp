// hearth-backend-cuda without and with a GPU. Everywhere: the plugin loads, its probe says in
// words why there is no device (no driver on CI machines), and the registry falls back to the
// CPU with that reason. With an NVIDIA GPU: allocations are zeroed and reused, uploads larger
// than the pinned staging arrive intact. (The op-by-op parity and the index errors as statuses
// on the GPU are OpParity* and OpErrors of backends_op_parity_test, which run on every device
// the registry finds: scripts/gpu-check.sh runs them with --gtest_filter='*/cuda*'.)
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <numeric>

#include "op_test_util.h"
#include "registry.h"

namespace hearth::backend::test {
namespace {

bool driver_present() {
    void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (lib) dlclose(lib);
    return lib != nullptr;
}

TEST(CudaPlugin, ProbeSaysWhyThereIsNoDevice) {
    const auto file = std::filesystem::path(HEARTH_BIN_DIR) / "hearth-backend-cuda.so";
    auto table = load_plugin(file);
    ASSERT_TRUE(table.is_ok()) << table.error_message();
    EXPECT_STREQ((*table)->name, "cuda");
    HearthDeviceInfo infos[8] = {};
    char err[256] = {};
    const int32_t n = (*table)->probe(infos, 8, err, sizeof err);
    if (!driver_present()) {
        EXPECT_EQ(n, -1);
        EXPECT_STREQ(err, "no NVIDIA driver (libcuda.so.1 not found)");
        return;
    }
    // A driver: either devices, or a sentence saying why not (no device, driver too old).
    if (n <= 0) {
        EXPECT_NE(err[0], '\0');
    } else {
        EXPECT_STREQ(infos[0].name, "cuda0");
        EXPECT_GT(infos[0].total_bytes, 0u);
    }
}

TEST(CudaPlugin, RegistryFallsBackToTheCpuWithTheReason) {
    ProbeOptions o;
    o.dirs = {HEARTH_BIN_DIR};
    const Registry r = Registry::probe(o);
    bool cuda_device = false;
    for (const auto& d : r.devices()) cuda_device |= d.backend == "cuda" && d.usable;
    if (cuda_device) {
        EXPECT_EQ(r.best().rfind("cuda", 0), 0u) << r.best();
        return;
    }
    EXPECT_EQ(r.best(), "cpu");
    std::string reason;
    for (const auto& s : r.skipped())
        if (s.name == "cuda") reason = s.reason;
    if (!driver_present()) {
        EXPECT_EQ(reason, "no NVIDIA driver (libcuda.so.1 not found)");
        auto dev = r.create("cuda");
        ASSERT_FALSE(dev.is_ok());
        EXPECT_NE(dev.error_message().find("no NVIDIA driver"), std::string::npos)
            << dev.error_message();
    }
}

// The GPU tests: skipped, with the reason, where no CUDA device is usable.
class CudaDevice : public ::testing::Test {
protected:
    void SetUp() override {
        auto d = Registry::probe().create("cuda");
        if (!d) GTEST_SKIP() << "no CUDA device: " << d.error_message();
        dev_ = std::move(d.value());
        stream_ = std::move(dev_->create_stream({}).value());
    }
    std::unique_ptr<Device> dev_;
    std::unique_ptr<Stream> stream_;
};

TEST_F(CudaDevice, AllocationsAreZeroedWhenReused) {
    std::vector<std::byte> ones(1000, std::byte{1});
    {
        auto b = dev_->allocate(ones.size());
        ASSERT_TRUE(b.is_ok());
        ASSERT_TRUE((*b)->write(0, ones).is_ok());
    }  // back to the pool
    auto b = dev_->allocate(ones.size());
    ASSERT_TRUE(b.is_ok());
    std::vector<std::byte> back(ones.size(), std::byte{7});
    ASSERT_TRUE((*b)->read(0, back).is_ok());
    EXPECT_EQ(back, std::vector<std::byte>(ones.size(), std::byte{0}));
}

TEST_F(CudaDevice, LargeUploadsArriveIntactAndAreReadOnly) {
    std::vector<uint32_t> v(size_t(40) << 18);  // 40 MiB: several rounds of pinned staging
    std::iota(v.begin(), v.end(), 12345u);
    auto b = dev_->import_host(std::as_bytes(std::span(v)));
    ASSERT_TRUE(b.is_ok()) << b.error_message();
    EXPECT_TRUE((*b)->read_only());
    std::vector<uint32_t> back(v.size());
    ASSERT_TRUE((*b)->read(0, std::as_writable_bytes(std::span(back))).is_ok());
    EXPECT_EQ(back, v);
    EXPECT_FALSE((*b)->write(0, std::as_bytes(std::span(v).first(4))).is_ok());
}

TEST_F(CudaDevice, ReportsItsMemoryAndSupportsEveryOp) {
    const MemoryInfo m = dev_->memory();
    EXPECT_GT(m.total_bytes, 0u);
    EXPECT_GT(m.free_bytes, 0u);
    Node n;
    n.op = Op::MatMul;
    for (DType t : {DType::F32, DType::F16, DType::BF16, DType::Q4_0, DType::Q4_1, DType::Q5_0,
                    DType::Q5_1, DType::Q8_0, DType::Q2_K, DType::Q3_K, DType::Q4_K, DType::Q5_K,
                    DType::Q6_K, DType::IQ4_NL, DType::IQ4_XS}) {
        n.src[0].type = t;
        EXPECT_TRUE(dev_->supports(n)) << dtype_name(t);
    }
    n.op = Op::Attention;
    n.src[0].ne[0] = 512;  // head size above the kernels' limit
    n.src[1].type = DType::F16;
    EXPECT_FALSE(dev_->supports(n));
}

}  // namespace
}  // namespace hearth::backend::test
