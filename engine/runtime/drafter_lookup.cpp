// Prompt lookup: the chat's own tokens as the draft source. Code being edited, quoted text and
// lists make a reply repeat stretches of its context; the token after the last earlier
// occurrence of the sequence's tail is a good guess, and costs nothing to find.
#include <algorithm>
#include <optional>

#include "hearth/speculative.h"
#include "runtime/drafter_adapt.h"

namespace hearth {

void Drafter::report(int32_t drafted, int32_t accepted) {
    stats_.drafted += drafted;
    stats_.accepted += accepted;
    adapt(drafted, accepted);
}

void Drafter::count_step(int32_t emitted) {
    ++stats_.steps;
    stats_.emitted += emitted;
}

void Drafter::observe_step(int32_t batch, double seconds) {
    constexpr double kKeep = 0.8;  // running means over about the last five steps
    const auto mix = [](double& mean, double v) {
        mean = mean > 0 ? kKeep * mean + (1 - kKeep) * v : v;
    };
    if (batch <= 0 || !(seconds > 0)) return;
    stats_.target_seconds += seconds;
    if (batch == 1) {
        mix(t1_, seconds);
    } else if (t1_ > 0) {
        mix(extra_, std::max(0.0, seconds - t1_) / (batch - 1));
    }
}

double Drafter::verify_cost(double fallback) const {
    return t1_ > 0 && extra_ > 0 ? extra_ / t1_ : fallback;
}

namespace {

class LookupDrafter final : public Drafter {
public:
    explicit LookupDrafter(const LookupOptions& o)
        : opt_(o), k_(0, std::max(1, o.draft_max), o.adaptive) {
        opt_.ngram_min = std::max(1, o.ngram_min);
        opt_.ngram_max = std::max(opt_.ngram_min, o.ngram_max);
    }
    std::string_view name() const override { return "lookup"; }
    // A drafted token costs only its share of the verification pass (measured).
    int32_t draft_size() override { return k_.next(verify_cost(0.25)); }

    Result<Draft> draft(std::span<const int32_t> ctx, int32_t max_tokens,
                        const SamplingParams&) override {
        Draft d;
        const size_t len = ctx.size();
        if (max_tokens <= 0) return d;
        if (!opt_.reference.empty()) {
            if (start_ == 0) start_ = len;  // the first draft comes right after the prompt
            if (auto from = reference_match(ctx)) {
                const auto& ref = opt_.reference;
                const size_t n_take = std::min(ref.size() - *from, static_cast<size_t>(max_tokens));
                if (n_take > 0) {
                    d.tokens.assign(ref.begin() + long(*from), ref.begin() + long(*from + n_take));
                    return d;
                }
            }
        }
        if (len < 2) return d;
        // One backward pass: for each earlier position e (a token follows it), how many of the
        // tokens before e equal the sequence's tail (up to ngram_max). The longest match wins,
        // the most recent among equals: what trying n = ngram_max .. ngram_min in turn finds,
        // in one pass with one comparison at most positions instead of a pass per n (this
        // runs before every step, over the whole chat).
        const auto n_max = static_cast<size_t>(opt_.ngram_max);
        size_t best_len = 0, best_from = 0;
        for (size_t e = len - 1; e > 0 && best_len < n_max; --e) {
            size_t m = 0;
            while (m < n_max && m < e && ctx[e - 1 - m] == ctx[len - 1 - m]) ++m;
            if (m > best_len) {
                best_len = m;
                best_from = e;
            }
        }
        if (best_len < static_cast<size_t>(opt_.ngram_min)) return d;
        const size_t n_take = std::min(len - best_from, static_cast<size_t>(max_tokens));
        d.tokens.assign(ctx.begin() + long(best_from), ctx.begin() + long(best_from + n_take));
        return d;
    }

protected:
    void adapt(int32_t drafted, int32_t accepted) override { k_.update(drafted, accepted); }

private:
    // Where in the reference the draft goes on: its start before anything was generated, else
    // after the earliest occurrence of the sequence's longest tail (ngram_max down to
    // ngram_min tokens; the reply follows the prediction in order, so the earliest fits best).
    std::optional<size_t> reference_match(std::span<const int32_t> ctx) const {
        const auto& ref = opt_.reference;
        if (ctx.size() <= start_) return size_t{0};
        const size_t generated = ctx.size() - start_;
        for (auto n = static_cast<size_t>(opt_.ngram_max); n >= size_t(opt_.ngram_min); --n) {
            if (n > generated || n > ref.size()) continue;
            const auto tail = ctx.last(n);
            for (size_t e = n; e < ref.size(); ++e)
                if (std::equal(tail.begin(), tail.end(), ref.begin() + long(e - n))) return e;
        }
        return std::nullopt;
    }

    LookupOptions opt_;
    runtime::AdaptiveK k_;
    size_t start_ = 0;  // the sequence's length at the first draft (the prompt's)
};

}  // namespace

std::unique_ptr<Drafter> make_lookup_drafter(const LookupOptions& options) {
    return std::make_unique<LookupDrafter>(options);
}

}  // namespace hearth
