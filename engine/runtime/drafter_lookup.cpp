// Prompt lookup: the chat's own tokens as the draft source. Code being edited, quoted text and
// lists make a reply repeat stretches of its context; the token after the last earlier
// occurrence of the sequence's tail is a good guess, and costs nothing to find.
#include <algorithm>

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
        for (int32_t n = opt_.ngram_max; n >= opt_.ngram_min && max_tokens > 0; --n) {
            const size_t N = static_cast<size_t>(n);
            if (len <= N) continue;
            const auto tail = ctx.subspan(len - N);
            // The most recent earlier occurrence (it must be followed by at least one token).
            for (size_t at = len - N; at-- > 0;) {
                if (!std::equal(tail.begin(), tail.end(), ctx.begin() + long(at))) continue;
                const size_t from = at + N;
                const size_t n_take = std::min(len - from, static_cast<size_t>(max_tokens));
                d.tokens.assign(ctx.begin() + long(from), ctx.begin() + long(from + n_take));
                return d;
            }
        }
        return d;
    }

protected:
    void adapt(int32_t drafted, int32_t accepted) override { k_.update(drafted, accepted); }

private:
    LookupOptions opt_;
    runtime::AdaptiveK k_;
};

}  // namespace

std::unique_ptr<Drafter> make_lookup_drafter(const LookupOptions& options) {
    return std::make_unique<LookupDrafter>(options);
}

}  // namespace hearth
