// The public kernel entry points: activation preparation and gemv / gemm dispatch by ISA.
#include "kernels/kernels.h"

#include <algorithm>
#include <cmath>

#include "kernels/kernels_internal.h"
#include "quant/quant_ref.h"

namespace hearth::cpu {

namespace detail {

ActKind act_kind(quant::Type wtype) {
    switch (wtype) {
        case quant::Type::F32:
        case quant::Type::F16:
        case quant::Type::BF16:
            return ActKind::F32;
        case quant::Type::Q2_K:
        case quant::Type::Q3_K:
        case quant::Type::Q4_K:
        case quant::Type::Q5_K:
        case quant::Type::Q6_K:
        case quant::Type::IQ4_XS:
            return ActKind::Q8x256;
        default:
            return ActKind::Q8x32;
    }
}

const SimdKernels* simd_for(Isa isa) {
    switch (isa) {
        case Isa::Avx2:
            return avx2_kernels();
        case Isa::Avx512:
            if (cpu_has_avx512vnni() && avx512vnni_kernels()) return avx512vnni_kernels();
            return avx512_kernels();
        default:
            return nullptr;
    }
}

}  // namespace detail

namespace {

using detail::ActKind;

// Symmetric 8-bit codes in [-127, 127]; NaN becomes 0 so the float->int conversion is defined.
int8_t to_code(float v) {
    if (!(v == v)) return 0;
    v = std::clamp(v, -127.0f, 127.0f);
    return static_cast<int8_t>(std::lrintf(v));
}

float block_scale(const float* x, size_t n) {
    float amax = 0.0f;
    for (size_t i = 0; i < n; ++i) amax = std::max(amax, std::fabs(x[i]));
    if (!std::isfinite(amax)) return 0.0f;
    return amax / 127.0f;
}

}  // namespace

bool supports_weight_type(quant::Type wtype) {
    switch (wtype) {
        case quant::Type::Q8_1:
        case quant::Type::Q8_K:
            return false;
        default:
            return quant::type_traits(static_cast<uint32_t>(wtype)) != nullptr;
    }
}

bool same_activation_rows(quant::Type a, quant::Type b) {
    return detail::act_kind(a) == detail::act_kind(b);
}

size_t activation_row_bytes(quant::Type wtype, size_t k) {
    switch (detail::act_kind(wtype)) {
        case ActKind::F32:
            return k * sizeof(float);
        case ActKind::Q8x32:
            return k + 2 * sizeof(float) * (k / 32);
        case ActKind::Q8x256:
            return k + sizeof(float) * (k / 256) + sizeof(int16_t) * (k / 16);
    }
    return 0;
}

void quantize_activation(quant::Type wtype, const float* x, size_t k, void* out) {
    const auto* simd = detail::simd_for(active_isa());
    switch (detail::act_kind(wtype)) {
        case ActKind::F32:
            std::copy(x, x + k, static_cast<float*>(out));
            return;
        case ActKind::Q8x32: {
            if (simd) return simd->quantize_q8x32(x, k, out);
            auto* qs = static_cast<int8_t*>(out);
            auto* d = reinterpret_cast<float*>(qs + k);
            auto* s = d + k / 32;
            for (size_t b = 0; b < k / 32; ++b) {
                const float* xb = x + 32 * b;
                const float db = block_scale(xb, 32);
                const float id = db > 0.0f ? 1.0f / db : 0.0f;
                int sum = 0;
                for (size_t i = 0; i < 32; ++i) {
                    qs[32 * b + i] = to_code(xb[i] * id);
                    sum += qs[32 * b + i];
                }
                d[b] = db;
                s[b] = db * static_cast<float>(sum);
            }
            return;
        }
        case ActKind::Q8x256: {
            if (simd) return simd->quantize_q8x256(x, k, out);
            auto* qs = static_cast<int8_t*>(out);
            auto* d = reinterpret_cast<float*>(qs + k);
            auto* bsums = reinterpret_cast<int16_t*>(d + k / 256);
            for (size_t b = 0; b < k / 256; ++b) {
                const float* xb = x + 256 * b;
                const float db = block_scale(xb, 256);
                const float id = db > 0.0f ? 1.0f / db : 0.0f;
                for (size_t i = 0; i < 256; ++i) qs[256 * b + i] = to_code(xb[i] * id);
                d[b] = db;
                for (size_t g = 0; g < 16; ++g) {
                    int sum = 0;
                    for (size_t i = 0; i < 16; ++i) sum += qs[256 * b + 16 * g + i];
                    bsums[16 * b + g] = static_cast<int16_t>(sum);
                }
            }
            return;
        }
    }
}

void silu_mul(const float* g, const float* u, float* out, size_t n) {
    if (const auto* simd = detail::simd_for(active_isa())) return simd->silu_mul(g, u, out, n);
    for (size_t i = 0; i < n; ++i) out[i] = g[i] / (1.f + std::exp(-g[i])) * u[i];
}

void rms_norm_row(const float* x, const float* w, float eps, float* out, size_t n) {
    if (const auto* simd = detail::simd_for(active_isa()))
        return simd->rms_norm_row(x, w, eps, out, n);
    constexpr size_t kParts = 16;
    double part[kParts] = {};
    size_t i = 0;
    for (; i + kParts <= n; i += kParts)
        for (size_t j = 0; j < kParts; ++j) part[j] += double(x[i + j]) * double(x[i + j]);
    for (size_t j = 0; i + j < n; ++j) part[j] += double(x[i + j]) * double(x[i + j]);
    for (size_t half = kParts / 2; half > 0; half /= 2)
        for (size_t j = 0; j < half; ++j) part[j] += part[j + half];
    const float scale = static_cast<float>(1.0 / std::sqrt(part[0] / double(n) + double(eps)));
    for (i = 0; i < n; ++i) out[i] = x[i] * scale * w[i];
}

void f32_to_f16(const float* x, uint16_t* out, size_t n) {
    if (const auto* simd = detail::simd_for(active_isa())) return simd->f32_to_f16(x, out, n);
    for (size_t i = 0; i < n; ++i) out[i] = quant::f32_to_f16(x[i]);
}

void dequantize_activation(quant::Type wtype, const void* xq, size_t k, float* out) {
    switch (detail::act_kind(wtype)) {
        case ActKind::F32: {
            const auto* x = static_cast<const float*>(xq);
            std::copy(x, x + k, out);
            return;
        }
        case ActKind::Q8x32: {
            const auto a = detail::q8x32_row(xq, k);
            for (size_t i = 0; i < k; ++i) out[i] = a.d[i / 32] * static_cast<float>(a.qs[i]);
            return;
        }
        case ActKind::Q8x256: {
            const auto a = detail::q8x256_row(xq, k);
            for (size_t i = 0; i < k; ++i) out[i] = a.d[i / 256] * static_cast<float>(a.qs[i]);
            return;
        }
    }
}

void gemv(quant::Type wtype, const void* w, size_t k, size_t row_begin, size_t row_end,
          const void* xq, float* out) {
    if (row_end <= row_begin || !supports_weight_type(wtype)) return;
    const auto* wb = static_cast<const uint8_t*>(w);
    if (const auto* simd = detail::simd_for(active_isa()))
        if (simd->gemv(wtype, wb, k, row_begin, row_end, xq, out)) return;
    detail::gemv_scalar(wtype, wb, k, row_begin, row_end, xq, out);
}

void gemm(quant::Type wtype, const void* w, size_t k, size_t row_begin, size_t row_end,
          const void* xq, size_t xq_stride, size_t n, float* y, size_t y_stride) {
    if (row_end <= row_begin || n == 0 || !supports_weight_type(wtype)) return;
    const auto* wb = static_cast<const uint8_t*>(w);
    const auto* xb = static_cast<const uint8_t*>(xq);
    if (const auto* simd = detail::simd_for(active_isa()))
        if (simd->gemm(wtype, wb, k, row_begin, row_end, xb, xq_stride, n, y, y_stride)) return;
    detail::gemm_scalar(wtype, wb, k, row_begin, row_end, xb, xq_stride, n, y, y_stride);
}

}  // namespace hearth::cpu
