// The scale searches of the K-quant encoders (ggml's make_qkx2_quants, make_qx_quants and
// make_q3_quants, re-expressed). They are float32 searches whose every operation order matters
// for byte-exact output, so keep expressions as they are.
#include <algorithm>
#include <array>
#include <cmath>

#include "quant/quant_ref_impl.h"

namespace hearth::quant::detail {

// Fits x[i] ~= scale * L[i] - min_out with codes L in 0..nmax, minimising the weighted squared
// error (or absolute error with abs_error). Starts from the plain min/max grid, then tries nstep+1
// slightly different grid spacings (rmin + rdelta*k extra steps over the range) and, for each,
// solves the 2x2 least-squares problem for scale and offset with the codes held fixed. Keeps the
// best. The offset is never positive (a block whose values are all positive still starts at zero);
// the returned min_out is its negation, so it is >= 0. Returns the scale (0 for a constant block).
float fit_scale_min(int n, int nmax, const float* x, const float* w, uint8_t* L, float& min_out,
                    float rmin, float rdelta, int nstep, bool abs_error) {
    float min = x[0];
    float max = x[0];
    float sum_w = w[0];
    float sum_x = sum_w * x[0];
    for (int i = 1; i < n; ++i) {
        if (x[i] < min) min = x[i];
        if (x[i] > max) max = x[i];
        sum_w += w[i];
        sum_x += w[i] * x[i];
    }
    if (min > 0) min = 0;
    if (max == min) {
        for (int i = 0; i < n; ++i) L[i] = 0;
        min_out = -min;
        return 0.0f;
    }
    float iscale = static_cast<float>(nmax) / (max - min);
    float scale = 1 / iscale;
    float best_error = 0;
    for (int i = 0; i < n; ++i) {
        const int l = std::clamp(nearest_int(iscale * (x[i] - min)), 0, nmax);
        L[i] = static_cast<uint8_t>(l);
        const float diff = scale * static_cast<float>(L[i]) + min - x[i];
        best_error += w[i] * (abs_error ? std::fabs(diff) : diff * diff);
    }
    std::array<uint8_t, 32> trial{};
    for (int step = 0; step <= nstep; ++step) {
        iscale =
            (rmin + rdelta * static_cast<float>(step) + static_cast<float>(nmax)) / (max - min);
        float sum_l = 0, sum_l2 = 0, sum_xl = 0;
        for (int i = 0; i < n; ++i) {
            const int l = std::clamp(nearest_int(iscale * (x[i] - min)), 0, nmax);
            trial[static_cast<size_t>(i)] = static_cast<uint8_t>(l);
            const float fl = static_cast<float>(l);
            sum_l += w[i] * fl;
            sum_l2 += w[i] * fl * fl;
            sum_xl += w[i] * fl * x[i];
        }
        const float det = sum_w * sum_l2 - sum_l * sum_l;
        if (!(det > 0)) continue;  // also skips NaN, as ggml's `if (D > 0)` does
        float this_scale = (sum_w * sum_xl - sum_x * sum_l) / det;
        float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / det;
        if (this_min > 0) {
            this_min = 0;
            this_scale = sum_xl / sum_l2;
        }
        float error = 0;
        for (int i = 0; i < n; ++i) {
            const float diff =
                this_scale * static_cast<float>(trial[static_cast<size_t>(i)]) + this_min - x[i];
            error += w[i] * (abs_error ? std::fabs(diff) : diff * diff);
        }
        if (error < best_error) {
            for (int i = 0; i < n; ++i) L[i] = trial[static_cast<size_t>(i)];
            best_error = error;
            scale = this_scale;
            min = this_min;
        }
    }
    min_out = -min;
    return scale;
}

// Symmetric fit for Q6_K: codes in -nmax..nmax-1 (stored offset by nmax in L), weights x^2.
// Tries the grid that maps the largest-magnitude value to -nmax, then 18 nearby grids
// (nmax +- 0.1k), each with the least-squares scale for its codes, and keeps the best fit.
float fit_scale_symmetric(int n, int nmax, const float* x, uint8_t* L) {
    float max = 0;
    float amax = 0;
    for (int i = 0; i < n; ++i) {
        const float ax = std::fabs(x[i]);
        if (ax > amax) {
            amax = ax;
            max = x[i];
        }
    }
    if (amax < kGroupMaxEps) {
        for (int i = 0; i < n; ++i) L[i] = 0;
        return 0.0f;
    }
    // Least-squares sums for the codes given by iscale; also writes L when asked.
    auto sums = [&](float iscale, float& sumlx, float& suml2, bool store) {
        sumlx = 0;
        suml2 = 0;
        for (int i = 0; i < n; ++i) {
            const int l = std::clamp(nearest_int(iscale * x[i]), -nmax, nmax - 1);
            if (store) L[i] = static_cast<uint8_t>(l + nmax);
            const float w = x[i] * x[i];
            const float fl = static_cast<float>(l);
            sumlx += w * x[i] * fl;
            suml2 += w * fl * fl;
        }
    };
    float sumlx, suml2;
    sums(static_cast<float>(-nmax) / max, sumlx, suml2, true);
    float scale = suml2 != 0 ? sumlx / suml2 : 0.0f;
    float best = scale * sumlx;
    for (int k = -9; k <= 9; ++k) {
        if (k == 0) continue;
        const float iscale = -(static_cast<float>(nmax) + 0.1f * static_cast<float>(k)) / max;
        sums(iscale, sumlx, suml2, false);
        if (suml2 > 0 && sumlx * sumlx > best * suml2) {
            sums(iscale, sumlx, suml2, true);
            scale = sumlx / suml2;
            best = scale * sumlx;
        }
    }
    return scale;
}

// Q3_K's fit. Starts from the grid mapping the largest-magnitude value to -nmax, then up to five
// sweeps of coordinate descent: each code in turn is moved to the value that is best for it with
// the others fixed, and the move is kept if it raises sumlx^2/suml2 (i.e. lowers the weighted
// error of the least-squares scale). Returns that least-squares scale; L holds codes + nmax.
float fit_scale_descent(int n, int nmax, const float* x, uint8_t* L) {
    float max = 0;
    float amax = 0;
    for (int i = 0; i < n; ++i) {
        const float ax = std::fabs(x[i]);
        if (ax > amax) {
            amax = ax;
            max = x[i];
        }
    }
    if (amax < kGroupMaxEps) {
        for (int i = 0; i < n; ++i) L[i] = 0;
        return 0.0f;
    }
    const float iscale = static_cast<float>(-nmax) / max;
    std::array<int, 32> q{};  // signed codes while searching
    float sumlx = 0;
    float suml2 = 0;
    for (int i = 0; i < n; ++i) {
        const auto k = static_cast<size_t>(i);
        q[k] = std::clamp(nearest_int(iscale * x[i]), -nmax, nmax - 1);
        const float w = x[i] * x[i];
        sumlx += w * x[i] * static_cast<float>(q[k]);
        suml2 += w * static_cast<float>(q[k]) * static_cast<float>(q[k]);
    }
    for (int sweep = 0; sweep < 5; ++sweep) {
        int changed = 0;
        for (int i = 0; i < n; ++i) {
            const auto k = static_cast<size_t>(i);
            const float w = x[i] * x[i];
            const auto qi = static_cast<float>(q[k]);
            float slx = sumlx - w * x[i] * qi;
            if (!(slx > 0)) continue;
            float sl2 = suml2 - w * qi * qi;
            const int candidate = std::clamp(nearest_int(x[i] * sl2 / slx), -nmax, nmax - 1);
            if (candidate == q[k]) continue;
            const auto qc = static_cast<float>(candidate);
            slx += w * x[i] * qc;
            sl2 += w * qc * qc;
            if (sl2 > 0 && slx * slx * suml2 > sumlx * sumlx * sl2) {
                q[k] = candidate;
                sumlx = slx;
                suml2 = sl2;
                ++changed;
            }
        }
        if (changed == 0) break;
    }
    for (int i = 0; i < n; ++i) L[i] = static_cast<uint8_t>(q[static_cast<size_t>(i)] + nmax);
    return sumlx / suml2;
}

}  // namespace hearth::quant::detail
