// Q8_0 / Q4_0 MatMul with integer dot products (VK_KHR_shader_integer_dot_product): the
// activation columns are quantized to 8 bits per block of 32 the way the CPU backend does it,
// so the Vulkan result must match the CPU backend's 8-bit-activation kernels far more closely
// than the float kernel does (which multiplies by the activations as they are). Decode and
// small batches (prefill batches of 16 or more go to the tiled float kernel); rows and
// columns that are not multiples of the workgroup tile, one and several blocks per row; the
// ctest entry vulkan_int_dot_split_test runs it again with shared-memory sums and 16 KiB
// bindings (weights in row ranges, the quantized columns in chunks). Skips when the device has
// no integer dot products.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>

#include "cpu/cpu_device.h"
#include "op_test_util.h"
#include "scoped_env.h"

namespace hearth::backend {
namespace {

using test::encode_rows;
using test::nmse;
using test::random_floats;
using test::upload;

using hearth::test::ScopedEnv;

std::vector<float> mat_mul(Device& dev, quant::Type wt, int64_t k, int64_t m, int64_t T) {
    std::mt19937 rng(uint32_t(k * 131 + m * 7 + T));
    const auto wf = random_floats(rng, size_t(k * m));
    const auto wb = encode_rows(wt, wf, size_t(k));
    const auto xf = random_floats(rng, size_t(k * T));
    auto w = upload(dev, wt, {k, m}, wb.data());
    auto x = upload(dev, DType::F32, {k, T}, xf.data());
    auto y = upload(dev, DType::F32, {m, T}, nullptr);
    Graph g;
    g.mat_mul(y.t, w.t, x.t, "mm");
    auto s = dev.create_stream({2});
    EXPECT_TRUE(s.is_ok());
    const Status st = (*s)->compute(g);
    EXPECT_TRUE(st.is_ok()) << st.message();
    return test::download_f32(y.t);
}

std::string vulkan_device(const Registry& reg) {
    for (const auto& d : reg.devices())
        if (d.backend == "vulkan" && d.usable) return d.name;
    return "";
}

TEST(VulkanIntDot, Q8ActivationsMatchTheCpuBackend) {
    const Registry reg = Registry::probe();
    const std::string name = vulkan_device(reg);
    if (name.empty()) GTEST_SKIP() << "no usable Vulkan device";
    if (reg.find(name)->description.find("integer dot products") == std::string::npos)
        GTEST_SKIP() << name << " has no integer dot products";
    auto vk = std::move(reg.create(name).value());
    std::unique_ptr<Device> vk_float;
    {
        ScopedEnv off("HEARTH_VULKAN_NO_INT_DOT", "1");
        const Registry without = Registry::probe();
        EXPECT_EQ(without.find(name)->description.find("integer dot products"), std::string::npos);
        vk_float = std::move(without.create(name).value());
    }
    auto cpu = make_cpu_device();
    for (quant::Type wt : {quant::Type::Q8_0, quant::Type::Q4_0}) {
        double worst = 0, float_best = 1;
        // Fewer than 16 columns: more go to the tiled prefill kernel (float activations).
        // k = 2048 under 16 KiB bindings: the quantized columns come in chunks of 6.
        for (int64_t k : {32, 96, 512, 2048}) {
            for (auto [m, T] :
                 {std::pair<int64_t, int64_t>{1, 1}, {7, 1}, {33, 3}, {65, 15}, {70, 13}}) {
                SCOPED_TRACE(std::string(quant::traits(wt).name) + " k=" + std::to_string(k) +
                             " m=" + std::to_string(m) + " T=" + std::to_string(T));
                const auto c = mat_mul(*cpu, wt, k, m, T);
                const double e = nmse(mat_mul(*vk, wt, k, m, T), c);
                const double ef = nmse(mat_mul(*vk_float, wt, k, m, T), c);
                EXPECT_LT(e, 1e-9);
                worst = std::max(worst, e);
                float_best = std::min(float_best, ef);
            }
        }
        std::printf(
            "[ info ] %s: integer-dot kernel vs the CPU's 8-bit activations: worst NMSE "
            "%.2e; the float kernel's best %.2e\n",
            quant::traits(wt).name.data(), worst, float_best);
        // The float kernel does not quantize the activations: it lands much further away, so
        // the check above tells the paths apart.
        EXPECT_GT(float_best, 100 * worst);
    }
}

}  // namespace
}  // namespace hearth::backend
