// Adaptive draft length: a running estimate a of the chance that a drafted token is accepted
// (decayed counts, so it follows the text) picks k as the longest draft whose last token still
// pays: the i-th drafted token is used with probability a^i, and drafting and verifying it
// costs about `cost` of a target step (measured), so k = max { i : a^i >= cost }. With min_k 0 a
// drafter that keeps failing stops drafting, and probes with one token every `probe_every` steps.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace hearth::runtime {

class AdaptiveK {
public:
    AdaptiveK(int32_t min_k, int32_t max_k, bool enabled)
        : min_k_(std::max(0, min_k)),
          max_k_(std::max(std::max(0, min_k), max_k)),
          enabled_(enabled) {}

    // cost: what one more drafted token costs, as a share of a target step (measured by the
    // drafter: verification and, for a draft model, its own decode step).
    int32_t next(double cost) {
        if (!enabled_) return max_k_;
        const double a = successes_ / trials_;
        const double c = std::clamp(cost, 0.02, 0.98);
        int32_t k = max_k_;
        if (a < 0.999) {
            const double best = std::floor(std::log(c) / std::log(std::max(a, 1e-6)));
            k = static_cast<int32_t>(std::clamp<double>(best, min_k_, max_k_));
        }
        if (k == 0 && max_k_ > 0 && ++idle_ >= kProbeEvery) {
            idle_ = 0;
            return 1;
        }
        if (k > 0) idle_ = 0;
        return k;
    }
    void update(int32_t drafted, int32_t accepted) {
        if (drafted <= 0) return;
        successes_ = successes_ * kDecay + accepted;
        trials_ = trials_ * kDecay + (accepted < drafted ? accepted + 1 : drafted);
    }
    double rate() const { return successes_ / trials_; }

private:
    static constexpr double kDecay = 0.8;  // per step: about the last five drafts count
    static constexpr int32_t kProbeEvery = 8;
    int32_t min_k_, max_k_;
    bool enabled_;
    double successes_ = 1.4, trials_ = 2.0;  // a prior of 0.7
    int32_t idle_ = 0;
};

}  // namespace hearth::runtime
