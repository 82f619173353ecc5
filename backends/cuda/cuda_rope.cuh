// RoPE of one work item, shared by the RoPE kernel and the fused RoPE + KV append
// (cuda_rope_kv.cu). Angles are double, as in the reference ops, so positions in the thousands
// keep their precision.
#pragma once

#include "cuda_common.cuh"
#include "cuda_kernels.h"

namespace hearth::backend::cuda {

// Where a rotated element goes besides dst: nowhere here; the fused kernel also writes it into
// the KV cache.
struct RopeStore {
    __device__ __forceinline__ void operator()(int64_t /*h*/, int64_t /*t*/, int64_t /*c*/,
                                               float /*v*/) const {}
};

inline int64_t rope_items(const DevTensor& a, const RopeArgs& r) {
    return (a.ne[0] - r.n_rot / 2) * a.ne[1] * a.ne[2];
}

// One rotated pair (i, head h, token t) of a, or one dim past n_rot copied (e counts both);
// each value written to dst is also handed to store(h, t, dim, value).
// In place is fine: each thread reads both of its elements before writing them.
template <class Store>
__device__ __forceinline__ void rope_item(const DevTensor& dst, const DevTensor& a,
                                          const DevTensor& pos, const DevTensor& ff,
                                          const RopeArgs& r, int64_t e, const Store& store) {
    const int64_t d = a.ne[0], H = a.ne[1];
    const int64_t half = r.n_rot / 2, pass = d - r.n_rot;
    const int64_t per = half + pass;  // work items per (head, token)
    const int64_t i = e % per, h = (e / per) % H, t = e / (per * H);
    const float* x = f32_at(a, h, t);
    float* y = f32_at(dst, h, t);
    if (i >= half) {  // pass-through dims
        const int64_t c = r.n_rot + (i - half);
        const float v = x[c];
        y[c] = v;
        store(h, t, c, v);
        return;
    }
    double theta = double(i32_at(pos, t)) * double(r.freq_scale) *
                   pow(double(r.freq_base), -2.0 * double(i) / double(r.n_rot));
    if (ff.p) theta /= double(reinterpret_cast<const float*>(ff.p)[i]);
    double sn, cs;
    sincos(theta, &sn, &cs);
    cs *= double(r.attn_factor);
    sn *= double(r.attn_factor);
    const int64_t i0 = r.adjacent ? 2 * i : i;
    const int64_t i1 = r.adjacent ? 2 * i + 1 : i + half;
    const double x0 = x[i0], x1 = x[i1];
    const float y0 = float(x0 * cs - x1 * sn), y1 = float(x0 * sn + x1 * cs);
    y[i0] = y0;
    y[i1] = y1;
    store(h, t, i0, y0);
    store(h, t, i1, y1);
}

}  // namespace hearth::backend::cuda
