#include "runtime/logprobs.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hearth::runtime {

float token_logprob(std::span<const float> logits, int32_t token, int32_t n_top,
                    std::vector<TokenLogprob>& top) {
    top.clear();
    if (logits.empty()) return -std::numeric_limits<float>::infinity();
    float mx = -std::numeric_limits<float>::infinity();
    for (float x : logits) mx = std::max(mx, x);
    // Float exponentials (each term within a float's rounding of the double one, at a fifth of
    // the time over a 152k vocabulary), summed in runs of 256 whose sums add up in double.
    double sum = 0;
    for (size_t i = 0; i < logits.size(); i += 256) {
        float run = 0.f;
        for (size_t j = i; j < std::min(logits.size(), i + 256); ++j)
            run += std::exp(logits[j] - mx);
        sum += run;
    }
    const double log_z = double(mx) + std::log(sum);
    // The n_top best in a heap whose front is the worst of them.
    const auto better = [&](int32_t a, int32_t b) {
        const float la = logits[size_t(a)], lb = logits[size_t(b)];
        return la > lb || (la == lb && a < b);
    };
    const auto n = static_cast<size_t>(std::clamp<int64_t>(n_top, 0, int64_t(logits.size())));
    std::vector<int32_t> heap;
    heap.reserve(n + 1);
    float worst = -std::numeric_limits<float>::infinity();  // the front's logit once full
    for (size_t i = 0; i < logits.size() && n > 0; ++i) {
        if (heap.size() == n && logits[i] < worst) continue;  // most tokens: one compare
        const auto id = static_cast<int32_t>(i);
        if (heap.size() < n) {
            heap.push_back(id);
            std::push_heap(heap.begin(), heap.end(), better);
        } else if (better(id, heap.front())) {
            std::pop_heap(heap.begin(), heap.end(), better);
            heap.back() = id;
            std::push_heap(heap.begin(), heap.end(), better);
        }
        if (heap.size() == n) worst = logits[size_t(heap.front())];
    }
    std::sort_heap(heap.begin(), heap.end(), better);  // best first
    for (int32_t id : heap)
        top.push_back({id, static_cast<float>(double(logits[size_t(id)]) - log_z)});
    if (token < 0 || static_cast<size_t>(token) >= logits.size())
        return -std::numeric_limits<float>::infinity();
    return static_cast<float>(double(logits[size_t(token)]) - log_z);
}

}  // namespace hearth::runtime
