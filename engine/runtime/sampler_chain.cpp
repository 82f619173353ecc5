#include <algorithm>
#include <cmath>
#include <string_view>

#include "runtime/sampler.h"

namespace hearth::runtime {

void Candidates::reset(std::span<const float> logits) {
    data.resize(logits.size());
    for (size_t i = 0; i < logits.size(); ++i) data[i] = {static_cast<int32_t>(i), logits[i], 0.f};
    n_sorted = 0;
    selected = -1;
}

void Candidates::sort_top(size_t k) {
    k = std::min(k, data.size());
    if (k <= n_sorted) return;
    const auto better = [](const TokenData& a, const TokenData& b) {
        return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
    };
    // The order is total (ties go by id), so the k best and their order are what a full sort
    // gives, whatever the unsorted tail's order.
    const auto first = data.begin() + static_cast<std::ptrdiff_t>(n_sorted);
    const auto kth = data.begin() + static_cast<std::ptrdiff_t>(k);
    if (kth != data.end()) std::nth_element(first, kth, data.end(), better);
    std::sort(first, kth, better);
    n_sorted = k;
}

void Candidates::softmax() {
    if (data.empty()) return;
    float mx = data[0].logit;
    for (const auto& t : data) mx = std::max(mx, t.logit);
    double sum = 0;
    for (auto& t : data) sum += (t.p = std::exp(t.logit - mx));
    for (auto& t : data) t.p = static_cast<float>(t.p / sum);
}

SamplerChain::SamplerChain(const SamplerChain& o) {
    for (const auto& s : o.samplers_) samplers_.push_back(s->clone());
}

SamplerChain& SamplerChain::operator=(const SamplerChain& o) {
    if (this != &o) {
        samplers_.clear();
        for (const auto& s : o.samplers_) samplers_.push_back(s->clone());
    }
    return *this;
}

int32_t greedy_argmax(std::span<const float> logits) {
    int32_t best = -1;
    float top = 0.f;
    for (size_t i = 0; i < logits.size(); ++i) {
        const float x = logits[i];
        if (std::isnan(x)) continue;
        if (best < 0 || x > top) {
            best = static_cast<int32_t>(i);
            top = x;
        }
    }
    return best < 0 && !logits.empty() ? 0 : best;
}

int32_t SamplerChain::sample(std::span<const float> logits) {
    // The greedy picker alone reads the logits once where the candidate list would copy them
    // (a 152k vocabulary: ~1.8 MB written and read again for every token).
    if (samplers_.size() == 1 && std::string_view(samplers_[0]->name()) == "greedy")
        return greedy_argmax(logits);
    cand_.reset(logits);
    for (auto& s : samplers_) {
        s->apply(cand_);
        if (cand_.selected >= 0) return cand_.selected;
    }
    cand_.sort_top(1);
    return cand_.data.empty() ? -1 : cand_.data[0].id;
}

const Candidates& SamplerChain::distribution(std::span<const float> logits) {
    cand_.reset(logits);
    for (auto& s : samplers_) {
        if (s->picks()) break;
        s->apply(cand_);
    }
    cand_.softmax();
    cand_.sort();  // the verifier walks the whole distribution in order
    return cand_;
}

void SamplerChain::accept(int32_t token) {
    for (auto& s : samplers_) s->accept(token);
}

void SamplerChain::reset() {
    for (auto& s : samplers_) s->reset();
}

}  // namespace hearth::runtime

#include "hearth/engine.h"

namespace hearth::runtime {

bool is_plain_greedy(const SamplingParams& p) {
    return p.temperature <= 0.f && p.repeat_penalty == 1.f && p.frequency_penalty == 0.f &&
           p.presence_penalty == 0.f && p.logit_bias.empty();
}

SamplerChain make_sampler_chain(const SamplingParams& p) {
    SamplerChain chain;
    if (!p.logit_bias.empty()) chain.add(make_logit_bias(p.logit_bias));
    if (p.repeat_penalty != 1.f || p.frequency_penalty != 0.f || p.presence_penalty != 0.f)
        chain.add(make_penalties(p.penalty_last_n, p.repeat_penalty, p.frequency_penalty,
                                 p.presence_penalty));
    if (p.temperature <= 0.f) {
        chain.add(make_greedy());
        return chain;
    }
    chain.add(make_top_k(p.top_k));
    chain.add(make_top_p(p.top_p));
    chain.add(make_min_p(p.min_p));
    chain.add(make_temperature(p.temperature));
    chain.add(make_dist(p.seed));
    return chain;
}

}  // namespace hearth::runtime
