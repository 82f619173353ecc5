// The target's side of speculative decoding: picks tokens and judges drafted ones so that the
// output is exactly what plain decoding gives (greedy: the same tokens; sampling: the same
// distribution). Sampling uses the standard rejection rule: a drafted x drawn from q is kept
// with probability min(1, p(x)/q(x)); a rejection draws from max(0, p - q) renormalised.
// p is the sampler chain's distribution (penalties, top-k/p, min-p, temperature).
#pragma once

#include <cstdint>
#include <random>
#include <span>

#include "hearth/engine.h"
#include "runtime/sampler.h"

namespace hearth::runtime {

class Verifier {
public:
    // history: the tokens already in the sequence (for the penalties).
    Verifier(const SamplingParams& params, std::span<const int32_t> history);

    bool greedy() const { return greedy_; }
    // A token from the logits, as plain decoding would pick it.
    int32_t pick(std::span<const float> logits);

    struct Verdict {
        bool accepted = false;
        int32_t token = -1;  // the drafted token when accepted, else the replacement
    };
    // Judges `drafted` against the logits at its position. q: the distribution it was drawn
    // from ([n_vocab]); empty: it was certain (q(drafted) = 1).
    Verdict check(std::span<const float> logits, int32_t drafted, std::span<const float> q);

    // Records a token that became part of the output (penalties see it).
    void accept(int32_t token) { chain_.accept(token); }

private:
    double uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }

    SamplerChain chain_;
    std::mt19937_64 rng_;
    bool greedy_ = true;
};

}  // namespace hearth::runtime
