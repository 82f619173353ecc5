// Helpers for op tests: host data placed into a device buffer, random fills, error measures.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "hearth/backend/device.h"
#include "hearth/backend/graph.h"
#include "quant/quant_ref.h"
#include "ref/ref_device.h"
#include "registry.h"

namespace hearth::backend::test {

// Every usable device the registry finds (plugins through HEARTH_BACKEND_PATH, which CTest
// sets): the op tests run on each of them, not on a fixed list. HEARTH_TEST_DEVICES (a comma-
// separated list of device or backend names) keeps only those, so each backend has its own
// CTest entry and label (backends_vulkan_op_parity_test runs the suite on vulkan devices only).
inline std::vector<std::string> registry_devices() {
    std::vector<std::string> names;
    const char* filter = std::getenv("HEARTH_TEST_DEVICES");
    const std::string wanted = filter ? "," + std::string(filter) + "," : "";
    const Registry registry = Registry::probe();  // outlives the loop over its devices
    for (const auto& d : registry.devices()) {
        if (!d.usable) continue;
        if (filter && wanted.find("," + d.name + ",") == std::string::npos &&
            wanted.find("," + d.backend + ",") == std::string::npos)
            continue;
        names.push_back(d.name);
    }
    return names;
}

inline std::unique_ptr<Device> create_device(const std::string& name) {
    auto d = Registry::probe().create(name);
    if (!d) return nullptr;
    return std::move(d.value());
}

// Builds inputs on a device (deterministically), runs one graph, returns the output floats.
using Case = std::function<std::vector<float>(Device&, Stream&)>;

struct Compared {
    std::vector<float> ref, dev;  // the reference ops, the device under test
};

// Runs graphs on a device's stream unless a node is one the device does not support (an
// accelerator leaves such nodes to the CPU in a model): then nothing runs and the op is noted.
class SupportedOnly final : public Stream {
public:
    SupportedOnly(const Device& d, Stream& s) : d_(d), s_(s) {}
    Status compute(const Graph& g) override {
        for (const Node& n : g.nodes()) {
            if (!d_.supports(n)) {
                unsupported = std::string(op_name(n.op)) + " (" + dtype_name(n.src[0].type) + ", " +
                              dtype_name(n.dst.type) + ")";
                return Status::ok();
            }
        }
        return s_.compute(g);
    }
    std::string unsupported;

private:
    const Device& d_;
    Stream& s_;
};

// The case on the reference ops and on `device`, a device the registry found. A case the
// device does not support is reported and compared as equal (it would run on the CPU).
inline Compared run_both(const std::string& device, const Case& c, int threads) {
    auto ref = make_ref_device();
    auto dev = create_device(device);
    auto rs = ref->create_stream({1});
    // A device the registry listed that cannot be created now (its driver failed to load in
    // this process) is this test's failure, not a crash of the whole suite.
    if (!dev) {
        ADD_FAILURE() << device << ": the registry listed it but it could not be created";
        const auto out = c(*ref, **rs);
        return {out, out};
    }
    auto ds = dev->create_stream({threads});
    if (!ds) {
        ADD_FAILURE() << device << ": no stream: " << ds.error_message();
        const auto out = c(*ref, **rs);
        return {out, out};
    }
    SupportedOnly guarded(*dev, **ds);
    Compared r{c(*ref, **rs), c(*dev, guarded)};
    if (!guarded.unsupported.empty()) {
        std::printf("[ skip ] %s does not support %s: left to the CPU\n", device.c_str(),
                    guarded.unsupported.c_str());
        r.dev = r.ref;
    }
    return r;
}

// A dense tensor in its own device buffer, filled from host bytes.
struct Owned {
    std::unique_ptr<Buffer> buffer;
    Tensor t;
};

inline Owned upload(Device& dev, DType type, std::initializer_list<int64_t> dims,
                    const void* data) {
    Owned o;
    Tensor probe = Tensor::dense(nullptr, 0, type, dims);
    const size_t bytes = probe.span_bytes();
    o.buffer = std::move(dev.allocate(bytes).value());
    o.t = Tensor::dense(o.buffer.get(), 0, type, dims);
    if (data) (void)o.buffer->write(0, {static_cast<const std::byte*>(data), bytes});
    return o;
}

inline std::vector<float> download_f32(const Tensor& t) {
    std::vector<float> v(static_cast<size_t>(t.n_elements()));
    (void)t.buffer->read(t.offset, std::as_writable_bytes(std::span(v)));
    return v;
}

inline std::vector<float> random_floats(std::mt19937& rng, size_t n, float scale = 1.f) {
    std::normal_distribution<float> d(0.f, scale);
    std::vector<float> v(n);
    for (auto& x : v) x = d(rng);
    return v;
}

// Weight bytes of type t for rows x k floats (quantized with the reference quantizer).
inline std::vector<std::byte> encode_rows(quant::Type t, const std::vector<float>& f, size_t k) {
    const size_t rows = f.size() / k;
    const size_t rb = quant::row_bytes(t, k);
    std::vector<std::byte> out(rb * rows);
    for (size_t r = 0; r < rows; ++r)
        quant::quantize_row(t, f.data() + r * k, out.data() + r * rb, k);
    return out;
}

// Normalised mean squared error of a against the reference b.
inline double nmse(const std::vector<float>& a, const std::vector<float>& b) {
    double num = 0, den = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        num += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
        den += double(b[i]) * b[i];
    }
    return den > 0 ? num / den : num;
}

inline double max_rel(const std::vector<float>& a, const std::vector<float>& b) {
    double mx = 0, ref = 1e-30;
    for (size_t i = 0; i < a.size(); ++i) {
        mx = std::max(mx, std::fabs(double(a[i]) - b[i]));
        ref = std::max(ref, std::fabs(double(b[i])));
    }
    return mx / ref;
}

// Where max_rel's worst difference is (for failure messages): "element i: a[i] vs b[i] of n".
inline std::string worst_at(const std::vector<float>& a, const std::vector<float>& b) {
    size_t w = 0;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i)
        if (std::fabs(double(a[i]) - b[i]) > std::fabs(double(a[w]) - b[w])) w = i;
    if (a.empty() || b.empty()) return "empty output";
    return "element " + std::to_string(w) + ": " + std::to_string(a[w]) + " vs " +
           std::to_string(b[w]) + " of " + std::to_string(a.size());
}

// Steps of (first position, tokens) on one sequence of a paged cache of `kv` cells (blocks of
// bs cells, in the order of `table`): each appends random K and V at its positions and attends
// with random queries (hd x H, Hkv KV heads). Returns the outputs of every step, in order.
// With rope: each step first rotates Q and K in place (the forward pass's order, which a
// backend may run as one launch), and the result also holds each step's rotated K after its
// output and both caches at the end.
inline std::vector<float> attention_steps(Device& d, Stream& s, DType kv, int64_t hd, int64_t H,
                                          int64_t Hkv, int32_t bs, std::span<const int32_t> table,
                                          std::initializer_list<std::pair<int64_t, int64_t>> steps,
                                          unsigned seed, const RopeParams* rope = nullptr) {
    const auto blocks = static_cast<int64_t>(table.size());
    std::mt19937 rng(seed);
    auto kc = upload(d, kv, {hd * Hkv, bs * blocks}, nullptr);
    auto vc = upload(d, kv, {hd * Hkv, bs * blocks}, nullptr);
    auto bt = upload(d, DType::I32, {blocks, 1}, table.data());
    std::vector<float> out;
    auto keep = [&out](const Tensor& t) {
        const auto o = download_f32(t);
        out.insert(out.end(), o.begin(), o.end());
    };
    for (auto [first, n] : steps) {
        std::vector<int32_t> pos(static_cast<size_t>(n));
        std::iota(pos.begin(), pos.end(), static_cast<int32_t>(first));
        const auto kf = random_floats(rng, size_t(hd * Hkv * n));
        const auto vf = random_floats(rng, size_t(hd * Hkv * n));
        const auto qf = random_floats(rng, size_t(hd * H * n), 2.f);
        auto k = upload(d, DType::F32, {hd * Hkv, n}, kf.data());
        auto v = upload(d, DType::F32, {hd * Hkv, n}, vf.data());
        auto q = upload(d, DType::F32, {hd, H, n}, qf.data());
        auto p = upload(d, DType::I32, {n}, pos.data());
        auto y = upload(d, DType::F32, {hd, H, n}, nullptr);
        const KvIndex idx{p.t, bt.t, Tensor{}};
        Graph g;
        if (rope) {
            const Tensor k3 = k.t.reshaped({hd, Hkv, n});
            g.rope(q.t, q.t, p.t, Tensor{}, *rope, "rope_q");
            g.rope(k3, k3, p.t, Tensor{}, *rope, "rope_k");
        }
        g.kv_append(kc.t, k.t, idx, bs, "k");
        g.kv_append(vc.t, v.t, idx, bs, "v");
        g.attention(y.t, q.t, kc.t, vc.t, idx, {bs, 1.f / std::sqrt(float(hd))}, "attn");
        const Status st = s.compute(g);
        EXPECT_TRUE(st.is_ok()) << st.message();
        keep(y.t);
        if (rope) keep(k.t);
    }
    if (rope) {
        keep(kc.t);
        keep(vc.t);
    }
    return out;
}

}  // namespace hearth::backend::test
