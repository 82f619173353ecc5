// A draft model: a smaller GGUF with the target's vocabulary drafts k tokens in its own
// session (its own paged KV cache, on whatever backend it was loaded on). Each draft call
// prefills the draft session with the target's sequence, which reuses everything but the
// last step's correction, then decodes k tokens one at a time.
#include <algorithm>
#include <chrono>
#include <random>
#include <string>

#include "hearth/session.h"
#include "hearth/speculative.h"
#include "runtime/drafter_adapt.h"
#include "runtime/model_impl.h"
#include "runtime/sampler.h"
#include "tokenizer/vocab.h"

namespace hearth {

namespace {

std::string quoted(std::string_view s) {
    std::string out = "'";
    for (char c : s.substr(0, 40)) out += (static_cast<unsigned char>(c) < 0x20) ? '?' : c;
    return out + (s.size() > 40 ? "...'" : "'");
}

}  // namespace

Status check_draft_vocabulary(const Model& target, const Model& draft) {
    const auto& t = ModelAccess::impl(target);
    const auto& d = ModelAccess::impl(draft);
    const auto refuse = [](const std::string& why) {
        return Status::error("the draft model cannot draft for this model: " + why);
    };
    if (t.params.n_vocab != d.params.n_vocab)
        return refuse("it has " + std::to_string(d.params.n_vocab) +
                      " vocabulary rows, the model " + std::to_string(t.params.n_vocab));
    const tokenizer::Vocab& tv = t.tokenizer->vocab();
    const tokenizer::Vocab& dv = d.tokenizer->vocab();
    if (tv.kind() != dv.kind()) return refuse("its tokenizer is of another kind");
    if (tv.size() != dv.size())
        return refuse("its tokenizer has " + std::to_string(dv.size()) + " tokens, the model's " +
                      std::to_string(tv.size()));
    const struct {
        const char* name;
        int32_t a, b;
    } specials[] = {{"BOS", tv.bos(), dv.bos()}, {"EOS", tv.eos(), dv.eos()},
                    {"EOT", tv.eot(), dv.eot()}, {"EOM", tv.eom(), dv.eom()},
                    {"UNK", tv.unk(), dv.unk()}, {"PAD", tv.pad(), dv.pad()}};
    for (const auto& s : specials)
        if (s.a != s.b)
            return refuse(std::string("its ") + s.name + " token is " + std::to_string(s.b) +
                          ", the model's " + std::to_string(s.a));
    for (int32_t id = 0; id < tv.size(); ++id) {
        if (tv.text(id) != dv.text(id))
            return refuse("token " + std::to_string(id) + " is " + quoted(dv.text(id)) +
                          " there and " + quoted(tv.text(id)) + " here");
        if (tv.type(id) != dv.type(id))
            return refuse("token " + std::to_string(id) + " (" + quoted(tv.text(id)) +
                          ") has another type there");
        if (tv.is_eog(id) != dv.is_eog(id))
            return refuse("token " + std::to_string(id) + " (" + quoted(tv.text(id)) +
                          ") ends generation in one model and not in the other");
    }
    if (tv.add_bos() != dv.add_bos()) return refuse("it adds BOS differently");
    return Status::ok();
}

namespace {

class ModelDrafter final : public Drafter {
public:
    ModelDrafter(std::shared_ptr<const Model> model, std::unique_ptr<Session> session,
                 const DraftModelOptions& o)
        : model_(std::move(model)),
          session_(std::move(session)),
          k_(std::max(1, o.draft_min), std::max(1, o.draft_max), o.adaptive) {}

    std::string_view name() const override { return "draft model"; }
    // A drafted token costs a draft decode step plus its share of the verification; both
    // are measured (the draft's against the target's one-token step once one was seen).
    int32_t draft_size() override {
        const double t1 = single_step_seconds();
        const double draft = t1 > 0 && draft_per_token_ > 0 ? draft_per_token_ / t1 : 0.25;
        return k_.next(verify_cost(0.1) + draft);
    }

    Result<Draft> draft(std::span<const int32_t> ctx, int32_t max_tokens,
                        const SamplingParams& sp) override {
        Draft d;
        if (max_tokens <= 0 || ctx.empty()) return d;
        if (static_cast<int64_t>(ctx.size()) + max_tokens > session_->n_ctx())
            return d;  // past the draft's context: the target goes on alone
        auto rep = session_->prefill(ctx);
        if (!rep) return rep.status();
        const auto t0 = std::chrono::steady_clock::now();
        const bool greedy = sp.temperature <= 0.f;
        // The target's sampler, penalties included (they see the same recent tokens), so a
        // draft model that predicts well is also accepted under penalties. Draws use rng_,
        // which runs on across calls: each drafted token is a fresh draw from its q.
        runtime::SamplerChain chain = runtime::make_sampler_chain(sp);
        const size_t window = sp.penalty_last_n < 0
                                  ? ctx.size()
                                  : std::min(ctx.size(), static_cast<size_t>(sp.penalty_last_n));
        for (int32_t t : ctx.subspan(ctx.size() - window)) chain.accept(t);
        if (!seeded_ || seed_ != sp.seed) {
            rng_.seed(sp.seed ^ 0xD1B54A32D192ED03ull);
            seed_ = sp.seed;
            seeded_ = true;
        }
        const size_t V = static_cast<size_t>(ModelAccess::impl(*model_).params.n_vocab);
        for (int32_t i = 0; i < max_tokens; ++i) {
            const auto logits = session_->logits();
            if (logits.size() != V) return Status::error("the draft model gave no logits");
            int32_t tok = -1;
            if (greedy) {
                tok = chain.sample(logits);
            } else {
                const auto& c = chain.distribution(logits);
                const size_t row = d.probs.size();
                d.probs.resize(row + V, 0.f);
                const double r = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
                double cum = 0;
                for (const auto& t : c.data) {
                    d.probs[row + static_cast<size_t>(t.id)] = t.p;
                    cum += t.p;
                    if (tok < 0 && r < cum) tok = t.id;
                }
                // Rounding left r just above the total: the last token with any weight.
                for (auto it = c.data.rbegin(); tok < 0 && it != c.data.rend(); ++it)
                    if (it->p > 0) tok = it->id;
            }
            if (tok < 0) break;
            chain.accept(tok);
            d.tokens.push_back(tok);
            if (i + 1 < max_tokens)
                if (Status s = session_->append(std::span(&tok, 1)); !s) return s;
        }
        // Seconds per drafted token (the prefill of the target's last tokens included).
        if (!d.tokens.empty()) {
            const double s =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() /
                static_cast<double>(d.tokens.size());
            draft_per_token_ = draft_per_token_ > 0 ? 0.8 * draft_per_token_ + 0.2 * s : s;
        }
        return d;
    }

protected:
    void adapt(int32_t drafted, int32_t accepted) override { k_.update(drafted, accepted); }

private:
    std::shared_ptr<const Model> model_;
    std::unique_ptr<Session> session_;
    runtime::AdaptiveK k_;
    double draft_per_token_ = 0;  // running mean, seconds
    std::mt19937_64 rng_;
    uint64_t seed_ = 0;
    bool seeded_ = false;
};

}  // namespace

Result<std::unique_ptr<Drafter>> make_model_drafter(const Model& target,
                                                    std::shared_ptr<const Model> draft,
                                                    const DraftModelOptions& o) try {
    using R = Result<std::unique_ptr<Drafter>>;
    if (!draft) return R::error("no draft model");
    if (Status s = check_draft_vocabulary(target, *draft); !s) return s;
    auto store = KvStore::create(draft, {.kv_type = o.kv_type, .n_ctx = o.n_ctx});
    if (!store) return store.status();
    // n_batch covers a whole draft-sized prefill step; the reply reserve is unused (flat
    // prefills never drop turns).
    auto session = Session::create(*store, {.n_threads = o.n_threads, .n_batch = 256});
    if (!session) return session.status();
    return std::unique_ptr<Drafter>(
        std::make_unique<ModelDrafter>(std::move(draft), std::move(*session), o));
} catch (...) {
    return exception_status("creating the draft model's session");
}

}  // namespace hearth
