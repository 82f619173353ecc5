// The individual samplers. Each is a few lines; see sampler.h for the semantics.
#include <algorithm>
#include <cmath>
#include <deque>
#include <random>
#include <unordered_map>

#include "runtime/sampler.h"

namespace hearth::runtime {

namespace {

// Tokens top-p orders at first as it walks the distribution best first; each further run
// orders four times as many.
constexpr size_t kFirstRun = 64;

template <typename Derived>
class Cloneable : public Sampler {
public:
    std::unique_ptr<Sampler> clone() const override {
        return std::make_unique<Derived>(static_cast<const Derived&>(*this));
    }
};

class Greedy final : public Cloneable<Greedy> {
public:
    const char* name() const override { return "greedy"; }
    bool picks() const override { return true; }
    void apply(Candidates& c) override {
        if (c.data.empty()) return;
        // Lowest id wins an exact tie, as in the golden files; NaN counts as below every
        // number (ArgMax on the device picks by the same rule).
        size_t best = 0;
        for (size_t i = 1; i < c.data.size(); ++i) {
            const TokenData& x = c.data[i];
            const TokenData& b = c.data[best];
            const bool xn = std::isnan(x.logit), bn = std::isnan(b.logit);
            if (xn ? bn && x.id < b.id
                   : bn || x.logit > b.logit || (x.logit == b.logit && x.id < b.id))
                best = i;
        }
        c.selected = c.data[best].id;
    }
};

class Dist final : public Cloneable<Dist> {
public:
    explicit Dist(uint64_t seed) : seed_(seed), rng_(seed) {}
    const char* name() const override { return "dist"; }
    bool picks() const override { return true; }
    void apply(Candidates& c) override {
        if (c.data.empty()) return;
        c.softmax();
        // mt19937_64 is fully specified by the standard; the conversion to [0,1) is ours, so
        // a seed gives the same draws on every platform.
        const double r = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
        // The candidates in their order (Candidates: by id, or best first after a cut).
        double cum = 0;
        for (const auto& t : c.data) {
            cum += t.p;
            if (r < cum) {
                c.selected = t.id;
                return;
            }
        }
        // Rounding left r just above the total: the last token with any weight (never one
        // whose logit is -inf, e.g. masked by constrained decoding).
        for (auto it = c.data.rbegin(); it != c.data.rend(); ++it)
            if (it->p > 0) {
                c.selected = it->id;
                return;
            }
        c.selected = c.data.front().id;
    }
    void reset() override { rng_.seed(seed_); }

private:
    uint64_t seed_;
    std::mt19937_64 rng_;
};

class Temperature final : public Cloneable<Temperature> {
public:
    explicit Temperature(float t) : t_(t) {}
    const char* name() const override { return "temperature"; }
    void apply(Candidates& c) override {
        if (c.data.empty()) return;
        if (t_ <= 0.f) {
            c.sort_top(1);
            c.resize(1);
            return;
        }
        // A common positive factor keeps the order (equal logits stay where they were).
        for (auto& t : c.data) t.logit /= t_;
    }

private:
    float t_;
};

class TopK final : public Cloneable<TopK> {
public:
    explicit TopK(int32_t k) : k_(k) {}
    const char* name() const override { return "top-k"; }
    void apply(Candidates& c) override {
        if (k_ <= 0 || static_cast<size_t>(k_) >= c.data.size()) return;
        c.sort_top(static_cast<size_t>(k_));
        c.resize(static_cast<size_t>(k_));
    }

private:
    int32_t k_;
};

class TopP final : public Cloneable<TopP> {
public:
    explicit TopP(float p) : p_(p) {}
    const char* name() const override { return "top-p"; }
    void apply(Candidates& c) override {
        if (p_ >= 1.f || c.data.empty()) return;
        c.softmax();
        // The smallest prefix (best first) whose probability reaches p (at least one token).
        double cum = 0;
        size_t keep = c.data.size();
        for (size_t i = 0, k = kFirstRun; i < keep; k *= 4) {
            c.sort_top(k);
            for (; i < c.n_sorted && i < keep; ++i) {
                cum += c.data[i].p;
                if (cum >= p_) keep = i + 1;
            }
        }
        c.resize(keep);
    }

private:
    float p_;
};

class MinP final : public Cloneable<MinP> {
public:
    explicit MinP(float p) : p_(p) {}
    const char* name() const override { return "min-p"; }
    void apply(Candidates& c) override {
        if (p_ <= 0.f || c.data.empty()) return;
        c.sort_top(1);
        // p_i >= p * p_max  <=>  logit_i >= logit_max + log(p): those tokens, the best first.
        const float threshold = c.data[0].logit + std::log(p_);
        size_t keep = 1;
        for (size_t i = 1; i < c.data.size(); ++i) keep += c.data[i].logit >= threshold;
        c.sort_top(keep);
        c.resize(keep);
    }

private:
    float p_;
};

class LogitBias final : public Cloneable<LogitBias> {
public:
    explicit LogitBias(std::vector<std::pair<int32_t, float>> bias) : bias_(std::move(bias)) {}
    const char* name() const override { return "logit-bias"; }
    void apply(Candidates& c) override {
        for (const auto& [id, b] : bias_) {
            // Candidates start in id order; after a reordering step, look the token up.
            const auto i = static_cast<size_t>(id);
            if (id >= 0 && i < c.data.size() && c.data[i].id == id) {
                c.data[i].logit += b;
                continue;
            }
            for (auto& t : c.data)
                if (t.id == id) t.logit += b;
        }
        c.n_sorted = 0;
    }

private:
    std::vector<std::pair<int32_t, float>> bias_;
};

class Penalties final : public Cloneable<Penalties> {
public:
    Penalties(int32_t window, float repeat, float freq, float presence)
        : window_(window), repeat_(repeat), freq_(freq), presence_(presence) {}
    const char* name() const override { return "penalties"; }
    void apply(Candidates& c) override {
        if (window_ == 0 || counts_.empty() || (repeat_ == 1.f && freq_ == 0.f && presence_ == 0.f))
            return;
        const auto penalize = [this](TokenData& t, int32_t count) {
            t.logit = t.logit > 0 ? t.logit / repeat_ : t.logit * repeat_;
            t.logit -= static_cast<float>(count) * freq_ + presence_;
        };
        // Candidates still in id order (the chain runs this first): the window's tokens are
        // looked up by index, not the whole vocabulary in the window's map.
        if (c.id_order) {
            for (const auto& [id, count] : counts_)
                if (id >= 0 && static_cast<size_t>(id) < c.data.size())
                    penalize(c.data[static_cast<size_t>(id)], count);
        } else {
            for (auto& t : c.data)
                if (const auto it = counts_.find(t.id); it != counts_.end())
                    penalize(t, it->second);
        }
        c.n_sorted = 0;
    }
    void accept(int32_t token) override {
        if (window_ == 0) return;
        last_.push_back(token);
        ++counts_[token];
        if (window_ > 0 && last_.size() > static_cast<size_t>(window_)) {
            const int32_t old = last_.front();
            last_.pop_front();
            if (--counts_[old] == 0) counts_.erase(old);
        }
    }
    void reset() override {
        last_.clear();
        counts_.clear();
    }

private:
    int32_t window_;  // < 0: the whole history
    float repeat_, freq_, presence_;
    std::deque<int32_t> last_;
    std::unordered_map<int32_t, int32_t> counts_;
};

}  // namespace

std::unique_ptr<Sampler> make_greedy() {
    return std::make_unique<Greedy>();
}
std::unique_ptr<Sampler> make_dist(uint64_t seed) {
    return std::make_unique<Dist>(seed);
}
std::unique_ptr<Sampler> make_temperature(float t) {
    return std::make_unique<Temperature>(t);
}
std::unique_ptr<Sampler> make_top_k(int32_t k) {
    return std::make_unique<TopK>(k);
}
std::unique_ptr<Sampler> make_top_p(float p) {
    return std::make_unique<TopP>(p);
}
std::unique_ptr<Sampler> make_min_p(float p) {
    return std::make_unique<MinP>(p);
}
std::unique_ptr<Sampler> make_logit_bias(std::vector<std::pair<int32_t, float>> bias) {
    return std::make_unique<LogitBias>(std::move(bias));
}
std::unique_ptr<Sampler> make_penalties(int32_t window, float repeat, float frequency,
                                        float presence) {
    return std::make_unique<Penalties>(window, repeat, frequency, presence);
}

}  // namespace hearth::runtime
