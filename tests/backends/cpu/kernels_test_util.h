// Random weight rows for every weight type, a float64 reference dot product, and the ISA paths
// a kernel test runs on.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/kernels.h"
#include "kernels/kernels_internal.h"
#include "quant/quant_ref.h"
#include "quant/quant_type.h"

namespace hearth::cpu::test {

// Puts the active ISA back when it goes out of scope: a member of the fixtures of tests that
// force other ISAs.
class IsaRestore {
public:
    IsaRestore() : saved_(active_isa()) {}
    ~IsaRestore() { force_isa(saved_); }
    IsaRestore(const IsaRestore&) = delete;
    IsaRestore& operator=(const IsaRestore&) = delete;

private:
    Isa saved_;
};

// An ISA; for AVX-512 also whether its VNNI variant and the AMX-INT8 prefill may run.
struct IsaPath {
    Isa isa;
    bool vnni = false;
    bool amx = false;
};

// Every path this CPU runs (both AVX-512 variants where it has VNNI); with_amx adds the AMX path
// where the CPU and OS run it.
inline std::vector<IsaPath> isa_paths(bool with_amx = false) {
    std::vector<IsaPath> out;
    for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Neon})
        if (isa_supported(isa)) out.push_back({isa});
    if (isa_supported(Isa::Avx512)) {
        const bool had = detail::allow_avx512vnni(true);
        if (detail::cpu_has_avx512vnni()) {
            out.push_back({Isa::Avx512, true});
            const bool had_amx = detail::allow_amx(true);
            if (with_amx && detail::cpu_has_amx()) out.push_back({Isa::Avx512, true, true});
            detail::allow_amx(had_amx);
        }
        detail::allow_avx512vnni(had);
    }
    return out;
}

inline std::string isa_path_name(const IsaPath& p) {
    return std::string(isa_name(p.isa)) + (p.vnni ? "vnni" : "") + (p.amx ? "amx" : "");
}

// `cells` attention cache rows of row_len elements in format f from a normal distribution: the
// bytes, and the floats they stand for (kernels_attn_test, cpu_kernel_bench --attn).
struct KvCache {
    std::vector<uint8_t> bytes;
    std::vector<float> values;
    size_t row_bytes;
};

inline KvCache random_kv_cache(KvFormat f, size_t row_len, size_t cells, std::mt19937& rng) {
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float> x(row_len * cells);
    for (auto& v : x) v = nd(rng);
    KvCache c;
    c.values.resize(x.size());
    switch (f) {
        case KvFormat::F32:
            c.row_bytes = 4 * row_len;
            c.bytes.resize(c.row_bytes * cells);
            std::memcpy(c.bytes.data(), x.data(), c.bytes.size());
            c.values = x;
            break;
        case KvFormat::F16:
            c.row_bytes = 2 * row_len;
            c.bytes.resize(c.row_bytes * cells);
            for (size_t i = 0; i < x.size(); ++i) {
                const uint16_t h = quant::f32_to_f16(x[i]);
                std::memcpy(&c.bytes[2 * i], &h, 2);
                c.values[i] = quant::f16_to_f32(h);
            }
            break;
        case KvFormat::Q8_0:
        case KvFormat::Q4_0: {
            const auto t = f == KvFormat::Q8_0 ? quant::Type::Q8_0 : quant::Type::Q4_0;
            c.row_bytes = quant::row_bytes(t, row_len);
            c.bytes.resize(c.row_bytes * cells);
            for (size_t r = 0; r < cells; ++r) {
                quant::quantize_row(t, &x[r * row_len], &c.bytes[r * c.row_bytes], row_len);
                quant::dequantize_row(t, &c.bytes[r * c.row_bytes], &c.values[r * row_len],
                                      row_len);
            }
            break;
        }
    }
    return c;
}

inline const std::vector<quant::Type>& weight_types() {
    using quant::Type;
    static const std::vector<Type> types = {Type::F32,  Type::F16,    Type::BF16,  Type::Q4_0,
                                            Type::Q4_1, Type::Q5_0,   Type::Q5_1,  Type::Q8_0,
                                            Type::Q2_K, Type::Q3_K,   Type::Q4_K,  Type::Q5_K,
                                            Type::Q6_K, Type::IQ4_NL, Type::IQ4_XS};
    return types;
}

// Byte offsets of the f16 scale fields inside one block; random bytes there could be inf/NaN.
inline std::vector<size_t> f16_fields(quant::Type t) {
    using quant::Type;
    switch (t) {
        case Type::Q4_1:
        case Type::Q5_1:
        case Type::Q4_K:
        case Type::Q5_K:
            return {0, 2};
        case Type::Q2_K:
            return {80, 82};
        case Type::Q3_K:
            return {108};
        case Type::Q6_K:
            return {208};
        default:
            return {0};
    }
}

// rows x k weights of type t: random codes everywhere, finite random scales.
inline std::vector<uint8_t> random_weights(quant::Type t, size_t rows, size_t k,
                                           std::mt19937& rng) {
    const size_t rb = quant::row_bytes(t, k);
    std::vector<uint8_t> w(rows * rb);
    std::uniform_real_distribution<float> val(-1.0f, 1.0f);
    if (!quant::traits(t).is_quantized) {
        for (size_t i = 0; i < rows * k; ++i) {
            const float f = val(rng);
            if (t == quant::Type::F32) {
                std::memcpy(&w[4 * i], &f, 4);
            } else {
                const uint16_t h =
                    t == quant::Type::F16 ? quant::f32_to_f16(f) : quant::f32_to_bf16(f);
                std::memcpy(&w[2 * i], &h, 2);
            }
        }
        return w;
    }
    for (auto& b : w) b = static_cast<uint8_t>(rng());
    std::uniform_real_distribution<float> scale(0.001f, 0.05f);
    const auto& tr = quant::traits(t);
    for (size_t blk = 0; blk < w.size() / tr.type_size; ++blk)
        for (size_t off : f16_fields(t)) {
            const float s = (rng() & 1 ? 1.0f : -1.0f) * scale(rng);
            const uint16_t h = quant::f32_to_f16(s);
            std::memcpy(&w[blk * tr.type_size + off], &h, 2);
        }
    return w;
}

inline std::vector<float> random_activation(size_t k, std::mt19937& rng) {
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float> x(k);
    for (auto& v : x) v = nd(rng);
    return x;
}

struct RefDot {
    double value;
    double abs_sum;  // sum |w_i x_i|, the scale of rounding error
};

inline RefDot ref_dot(const float* w, const float* x, size_t k) {
    RefDot r{0.0, 0.0};
    for (size_t i = 0; i < k; ++i) {
        const double p = static_cast<double>(w[i]) * static_cast<double>(x[i]);
        r.value += p;
        r.abs_sum += p < 0 ? -p : p;
    }
    return r;
}

}  // namespace hearth::cpu::test
