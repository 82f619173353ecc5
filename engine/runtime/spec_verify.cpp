#include "runtime/spec_verify.h"

#include <vector>

namespace hearth::runtime {

Verifier::Verifier(const SamplingParams& params, std::span<const int32_t> history)
    : chain_(make_sampler_chain(params)),
      // A stream of its own: the picker's seed stream is not shared with the chain's draws.
      rng_(params.seed ^ 0x9E3779B97F4A7C15ull),
      greedy_(params.temperature <= 0.f) {
    for (int32_t t : history) chain_.accept(t);
}

int32_t Verifier::pick(std::span<const float> logits) {
    if (greedy_) return chain_.sample(logits);
    const Candidates& c = chain_.distribution(logits);
    if (c.data.empty()) return -1;
    const double r = uniform();
    double cum = 0;
    for (const auto& t : c.data) {
        cum += t.p;
        if (r < cum) return t.id;
    }
    // Rounding left r just above the total: the last token with any weight.
    for (auto it = c.data.rbegin(); it != c.data.rend(); ++it)
        if (it->p > 0) return it->id;
    return c.data.front().id;
}

Verifier::Verdict Verifier::check(std::span<const float> logits, int32_t drafted,
                                  std::span<const float> q) {
    if (greedy_) {
        const int32_t best = chain_.sample(logits);
        return {best == drafted, best};
    }
    const Candidates& c = chain_.distribution(logits);
    const auto q_of = [&](int32_t id) -> double {
        if (q.empty()) return id == drafted ? 1.0 : 0.0;
        return id >= 0 && static_cast<size_t>(id) < q.size() ? q[static_cast<size_t>(id)] : 0.0;
    };
    double p_x = 0;
    for (const auto& t : c.data)
        if (t.id == drafted) p_x = t.p;
    const double q_x = q_of(drafted);
    // Accept with probability min(1, p/q): r < p/q, written without the division.
    if (q_x > 0 && uniform() * q_x < p_x) return {true, drafted};
    // The residual max(0, p - q): the mass p has where the draft had too little.
    std::vector<double> w(c.data.size());
    double total = 0;
    for (size_t i = 0; i < c.data.size(); ++i) {
        w[i] = std::max(0.0, static_cast<double>(c.data[i].p) - q_of(c.data[i].id));
        total += w[i];
    }
    if (!(total > 0)) {  // p == q up to rounding: a rejection cannot happen; draw from p
        for (size_t i = 0; i < c.data.size(); ++i) w[i] = c.data[i].p;
        total = 1.0;
    }
    const double r = uniform() * total;
    double cum = 0;
    for (size_t i = 0; i < c.data.size(); ++i) {
        cum += w[i];
        if (r < cum) return {false, c.data[i].id};
    }
    for (size_t i = c.data.size(); i-- > 0;)
        if (w[i] > 0) return {false, c.data[i].id};
    return {false, c.data.empty() ? -1 : c.data[0].id};
}

}  // namespace hearth::runtime
