#include <algorithm>
#include <cmath>
#include <string_view>

#include "runtime/sampler.h"

namespace hearth::runtime {

void Candidates::reset(std::span<const float> logits) {
    data.resize(logits.size());
    for (size_t i = 0; i < logits.size(); ++i) data[i] = {static_cast<int32_t>(i), logits[i], 0.f};
    n_sorted = 0;
    id_order = true;
    selected = -1;
}

bool ranks_before(const TokenData& a, const TokenData& b) {
    const bool a_nan = std::isnan(a.logit), b_nan = std::isnan(b.logit);
    if (a_nan != b_nan) return b_nan;  // NaN below every number (as the greedy picker has it)
    if (!a_nan && a.logit != b.logit) return a.logit > b.logit;
    return a.id < b.id;
}

void Candidates::sort_top(size_t k) {
    k = std::min(k, data.size());
    if (k <= n_sorted) return;
    // The order is total, so the k best and their order are what a full sort gives, whatever
    // the unsorted tail's order.
    const auto first = data.begin() + static_cast<std::ptrdiff_t>(n_sorted);
    const auto kth = data.begin() + static_cast<std::ptrdiff_t>(k);
    const size_t want = k - n_sorted, rest = data.size() - n_sorted;
    if (want <= kHeapSelectMax && rest >= 8 * want) {
        // A few of many (top-k 40, top-p's first run): one pass keeps the best in a heap whose
        // front is the worst of them, so most tokens cost one comparison and no move
        // (nth_element moves about half of them: 1.0 against ~0.3 ms on 152k tokens).
        heap_.clear();
        for (auto it = first; it != data.end(); ++it) {
            if (heap_.size() < want) {
                heap_.push_back(*it);
                std::push_heap(heap_.begin(), heap_.end(), ranks_before);
            } else if (ranks_before(*it, heap_.front())) {
                std::pop_heap(heap_.begin(), heap_.end(), ranks_before);
                heap_.back() = *it;
                std::push_heap(heap_.begin(), heap_.end(), ranks_before);
            }
        }
        // Exactly the kept tokens rank at or above the worst of them: move them to the front,
        // then write them there in order.
        const TokenData worst = heap_.front();
        std::partition(first, data.end(),
                       [&worst](const TokenData& t) { return !ranks_before(worst, t); });
        std::sort_heap(heap_.begin(), heap_.end(), ranks_before);
        std::copy(heap_.begin(), heap_.end(), first);
    } else {
        // Without NaN the plain comparison is the same order, at half the cost of a sort.
        const bool nan =
            std::any_of(first, data.end(), [](const TokenData& t) { return std::isnan(t.logit); });
        const auto plain = [](const TokenData& a, const TokenData& b) {
            return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
        };
        if (nan) {
            if (kth != data.end()) std::nth_element(first, kth, data.end(), ranks_before);
            std::sort(first, kth, ranks_before);
        } else {
            if (kth != data.end()) std::nth_element(first, kth, data.end(), plain);
            std::sort(first, kth, plain);
        }
    }
    n_sorted = k;
    id_order = false;
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
