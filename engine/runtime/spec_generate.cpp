#include "runtime/spec_generate.h"

#include <algorithm>

#include "runtime/sampler.h"
#include "runtime/spec_verify.h"
#include "runtime/stop_matcher.h"
#include "tokenizer/streaming_decoder.h"

namespace hearth::runtime {

namespace {

// Streams tokens into the result as generate_tokens does; says when to stop.
class Emitter {
public:
    Emitter(const tokenizer::Tokenizer& tok, const GenerateOptions& opt, GenerationStats& stats,
            std::chrono::steady_clock::time_point t0)
        : tok_(tok), opt_(opt), stats_(stats), t0_(t0), decoder_(tok), stop_(opt.stop_strings) {}

    // false: generation ends with this token (res.reason says why).
    bool push(int32_t token) {
        if (first_) {
            stats_.time_to_first_token =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
            first_ = false;
        }
        if (opt_.stop_at_end_of_generation && tok_.is_end_of_generation(token)) {
            res.reason = StopReason::EndOfGeneration;
            return false;
        }
        res.tokens.push_back(token);
        ++stats_.generated_tokens;
        bool hit = false;
        const std::string delta = stop_.push(decoder_.push(token), hit);
        res.text += delta;
        const bool keep_going = !opt_.on_token || opt_.on_token(token, delta);
        if (hit) {
            res.reason = StopReason::StopString;
            return false;
        }
        if (!keep_going) {
            res.reason = StopReason::Cancelled;
            return false;
        }
        if (static_cast<int32_t>(res.tokens.size()) >= opt_.max_tokens) {
            res.reason = StopReason::MaxTokens;
            return false;
        }
        return true;
    }
    int32_t remaining() const { return opt_.max_tokens - static_cast<int32_t>(res.tokens.size()); }
    GenerateResult finish() {
        bool hit = false;
        std::string tail = stop_.push(decoder_.finish(), hit);
        if (!hit) tail += stop_.finish();
        if (!tail.empty()) {
            res.text += tail;
            if (opt_.on_token) opt_.on_token(-1, tail);
        }
        return std::move(res);
    }

    GenerateResult res;

private:
    const tokenizer::Tokenizer& tok_;
    const GenerateOptions& opt_;
    GenerationStats& stats_;
    std::chrono::steady_clock::time_point t0_;
    tokenizer::StreamingDecoder decoder_;
    StopMatcher stop_;
    bool first_ = true;
};

}  // namespace

Result<GenerateResult> generate_speculative(const tokenizer::Tokenizer& tokenizer,
                                            const GenerateOptions& opt,
                                            std::span<const float> first_logits, Drafter& drafter,
                                            const std::atomic<bool>& cancel, GenerationStats& stats,
                                            const SpeculativeHooks& hooks,
                                            std::chrono::steady_clock::time_point t0) {
    const auto cancelled = [&] {
        return cancel.load(std::memory_order_relaxed) ||
               (hooks.token && hooks.token->load(std::memory_order_relaxed));
    };
    Emitter out(tokenizer, opt, stats, t0);
    if (opt.max_tokens <= 0) return out.finish();
    const size_t n_vocab = first_logits.size();
    Verifier verifier(opt.sampling, hooks.tokens());
    const bool step_on_device = hooks.step_greedy && is_plain_greedy(opt.sampling);
    if (cancelled()) {
        out.res.reason = StopReason::Cancelled;
        return out.finish();
    }
    // The pending token: emitted, not yet evaluated.
    int32_t pending = verifier.pick(first_logits);
    verifier.accept(pending);
    if (!out.push(pending)) return out.finish();

    std::vector<int32_t> context, batch;
    while (true) {
        if (cancelled()) {
            out.res.reason = StopReason::Cancelled;
            break;
        }
        const auto seq = hooks.tokens();
        const int64_t base = static_cast<int64_t>(seq.size());
        if (base + 1 > hooks.n_ctx) {
            out.res.reason = StopReason::ContextFull;
            break;
        }
        // At most what the context and max_tokens leave (the step adds one token of its own).
        const int64_t room = hooks.n_ctx - base - 1;
        const int32_t k = static_cast<int32_t>(
            std::min<int64_t>({drafter.draft_size(), room, std::max(0, out.remaining() - 1)}));
        Draft draft;
        if (k > 0) {
            context.assign(seq.begin(), seq.end());
            context.push_back(pending);
            const auto draft_start = std::chrono::steady_clock::now();
            auto d = drafter.draft(context, k, opt.sampling);
            drafter.observe_draft(
                std::chrono::duration<double>(std::chrono::steady_clock::now() - draft_start)
                    .count());
            if (!d) return d.status();
            draft = std::move(*d);
            if (static_cast<int32_t>(draft.tokens.size()) > k) draft.tokens.resize(size_t(k));
            if (!draft.probs.empty() && draft.probs.size() < draft.tokens.size() * n_vocab)
                return Status::error("the drafter returned too few probabilities");
        }
        const auto step_start = std::chrono::steady_clock::now();
        const auto step_seconds = [&] {
            return std::chrono::duration<double>(std::chrono::steady_clock::now() - step_start)
                .count();
        };
        if (draft.tokens.empty() && step_on_device) {
            // Nothing to verify: plain decoding's step (the argmax taken where the logits are,
            // no logits row copied out, nothing to roll back; a 152k vocabulary's row is
            // 600 KB), so a drafter that finds nothing costs about what no drafter does.
            auto next = hooks.step_greedy(pending);
            drafter.observe_step(1, step_seconds());
            if (!next) {
                if (cancelled()) {
                    out.res.reason = StopReason::Cancelled;
                    break;
                }
                return next.status();
            }
            drafter.count_step(1);
            verifier.accept(*next);
            pending = *next;
            if (!out.push(pending)) break;
            continue;
        }
        batch.assign(1, pending);
        batch.insert(batch.end(), draft.tokens.begin(), draft.tokens.end());
        auto rows = hooks.evaluate(batch);
        drafter.observe_step(static_cast<int32_t>(batch.size()), step_seconds());
        if (!rows) {
            if (cancelled()) {
                out.res.reason = StopReason::Cancelled;
                break;
            }
            return rows.status();
        }
        const auto row = [&](size_t i) { return rows->subspan(i * n_vocab, n_vocab); };
        // Judge the drafted tokens in order; the first rejection brings the target's token.
        size_t kept = 0;  // drafted tokens accepted
        int32_t next = -1;
        bool stopped = false;
        for (; kept < draft.tokens.size(); ++kept) {
            const std::span<const float> q =
                draft.probs.empty()
                    ? std::span<const float>{}
                    : std::span<const float>(draft.probs).subspan(kept * n_vocab, n_vocab);
            const auto v = verifier.check(row(kept), draft.tokens[kept], q);
            if (!v.accepted) {
                next = v.token;
                break;
            }
            verifier.accept(v.token);
            if (!out.push(v.token)) {
                stopped = true;  // this token ends it, unevaluated like plain decoding's last
                break;
            }
        }
        drafter.report(static_cast<int32_t>(draft.tokens.size()),
                       static_cast<int32_t>(stopped ? kept + 1 : kept));
        if (stopped) {
            drafter.count_step(static_cast<int32_t>(kept + 1));
            if (Status s = hooks.rollback(base + 1 + static_cast<int64_t>(kept), row(kept)); !s)
                return s;
            break;
        }
        if (next < 0) next = verifier.pick(row(kept));  // all accepted: the bonus token
        // Keep the pending token and the accepted drafts; the rest of the cache goes.
        if (Status s = hooks.rollback(base + 1 + static_cast<int64_t>(kept), row(kept)); !s)
            return s;
        drafter.count_step(static_cast<int32_t>(kept + 1));
        verifier.accept(next);
        pending = next;
        if (!out.push(pending)) break;
    }
    return out.finish();
}

}  // namespace hearth::runtime
