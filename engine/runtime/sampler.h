// Samplers share one small interface (apply, accept, reset, clone) and are composed by a
// chain: penalties -> top-k -> top-p -> min-p -> temperature -> a final picker (greedy or a
// seeded draw). Each sampler narrows or reshapes the candidate list; the picker selects.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace hearth {
struct SamplingParams;
}

namespace hearth::runtime {

struct TokenData {
    int32_t id = 0;
    float logit = 0.f;
    float p = 0.f;  // valid after softmax()
};

// Candidates start in id order. Samplers that cut the list (top-k, top-p, min-p) order it "by
// logit, descending, ties: lower id first", but only as far as they look: a 152k vocabulary
// sorted whole took ~10 ms a token, more than a decode step, while they usually stop within the
// first few dozen tokens. The draw walks the list in whatever order it is in (by id when
// nothing cut it, best first when something did): the same distribution, the same draws on
// every platform, one pass.
struct Candidates {
    std::vector<TokenData> data;
    // data[0, n_sorted) are the n_sorted best, in order; the rest follow in any order. A sampler
    // that changes logits other than by a common positive factor sets it to 0.
    size_t n_sorted = 0;
    bool id_order = true;   // data[i].id == i (nothing has reordered the list since reset)
    int32_t selected = -1;  // set by the picker

    void reset(std::span<const float> logits);
    // Puts the k best first, in order (what sorting all of them would put there).
    void sort_top(size_t k);
    void sort() { sort_top(data.size()); }
    // Sets p to the softmax of the logits (the order is kept).
    void softmax();
    void resize(size_t n) {
        data.resize(n);
        n_sorted = std::min(n_sorted, n);
    }

private:
    static constexpr size_t kHeapSelectMax = 256;
    std::vector<TokenData> heap_;  // sort_top's scratch
};

// The samplers' order: a larger logit first, NaN after every number, equal ones by lower id.
bool ranks_before(const TokenData& a, const TokenData& b);

class Sampler {
public:
    virtual ~Sampler() = default;
    virtual const char* name() const = 0;
    virtual void apply(Candidates& c) = 0;
    virtual void accept(int32_t /*token*/) {}
    virtual void reset() {}
    virtual std::unique_ptr<Sampler> clone() const = 0;
    // Pickers (greedy, dist) select a token; the others shape the distribution.
    virtual bool picks() const { return false; }
};

// Pickers.
std::unique_ptr<Sampler> make_greedy();
std::unique_ptr<Sampler> make_dist(uint64_t seed);
// Shapers and filters; each is a no-op at its neutral value.
std::unique_ptr<Sampler> make_temperature(float t);  // t <= 0 keeps only the best token
std::unique_ptr<Sampler> make_top_k(int32_t k);      // k <= 0: off
std::unique_ptr<Sampler> make_top_p(float p);        // p >= 1: off
std::unique_ptr<Sampler> make_min_p(float p);        // p <= 0: off
// Adds each pair's bias to its token's logit (ids outside the candidates are ignored).
std::unique_ptr<Sampler> make_logit_bias(std::vector<std::pair<int32_t, float>> bias);
// Over the last `window` accepted tokens: repeat divides positive logits (multiplies
// negative ones); frequency subtracts count * f; presence subtracts pr once.
std::unique_ptr<Sampler> make_penalties(int32_t window, float repeat, float frequency,
                                        float presence);

class SamplerChain {
public:
    SamplerChain() = default;
    SamplerChain(const SamplerChain& other);
    SamplerChain& operator=(const SamplerChain& other);
    SamplerChain(SamplerChain&&) = default;
    SamplerChain& operator=(SamplerChain&&) = default;

    void add(std::unique_ptr<Sampler> s) { samplers_.push_back(std::move(s)); }
    size_t size() const { return samplers_.size(); }
    // Runs every sampler on the logits and returns the selected token (the chain must end
    // with a picker; without one the best remaining token is returned).
    int32_t sample(std::span<const float> logits);
    // The distribution the picker would draw from (speculative verification): every sampler
    // before the picker, then softmax, in the candidates' order (by id unless a sampler cut the
    // list; draws walk it in that order, as the picker does). Valid until the next call.
    const Candidates& distribution(std::span<const float> logits);
    // Records a token that became part of the sequence (prompt or generated).
    void accept(int32_t token);
    void reset();
    const Candidates& candidates() const { return cand_; }

private:
    std::vector<std::unique_ptr<Sampler>> samplers_;
    Candidates cand_;
};

// The greedy picker's choice over raw logits (make_greedy's rule: the largest, the lowest id
// on a tie, NaN below every number; 0 when all are NaN, -1 when there are none).
int32_t greedy_argmax(std::span<const float> logits);

// Whether make_sampler_chain(params) is the greedy picker alone (temperature <= 0, no
// penalties, no logit bias): the token is then the index of the largest raw logit, which the device
// can pick (Forward::step_argmax) without the logits being read back.
bool is_plain_greedy(const SamplingParams& params);

// The standard chain for a set of parameters: logit bias, penalties, top-k, top-p, min-p,
// temperature, then a seeded draw (or greedy when temperature <= 0).
SamplerChain make_sampler_chain(const SamplingParams& params);

}  // namespace hearth::runtime
