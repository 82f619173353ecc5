// Helpers for op tests: host data placed into a device buffer, random fills, error measures.
#pragma once

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "hearth/backend/device.h"
#include "quant/quant_ref.h"
#include "registry.h"

namespace hearth::backend::test {

// Every usable device the registry finds (plugins through HEARTH_BACKEND_PATH, which CTest
// sets): the op tests run on each of them, not on a fixed list.
inline std::vector<std::string> registry_devices() {
    std::vector<std::string> names;
    const Registry registry = Registry::probe();  // outlives the loop over its devices
    for (const auto& d : registry.devices())
        if (d.usable) names.push_back(d.name);
    return names;
}

inline std::unique_ptr<Device> create_device(const std::string& name) {
    auto d = Registry::probe().create(name);
    if (!d) return nullptr;
    return std::move(d.value());
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

}  // namespace hearth::backend::test
