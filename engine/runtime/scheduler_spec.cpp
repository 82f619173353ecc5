// Speculative decoding inside the scheduler: the draft after a sequence's last token (made once
// per position, before the step that reaches that token) and its verification after the
// batched step. The rules are those of spec_generate.cpp (Session::generate with a drafter):
// greedy keeps drafted tokens while they equal the model's choice, sampling uses the rejection
// rule (runtime/spec_verify.h) with the sequence's own verifier; the model adds one token of
// its own after the kept ones. Only the kept rows enter the sequence's KV history: the rows of
// the rejected tail were written into blocks this sequence owns alone (reserve() copies a
// shared partial block first) and those blocks past the kept rows are released.
#include <algorithm>
#include <string>

#include "runtime/scheduler_impl.h"

namespace hearth {

bool Scheduler::Impl::prepare_draft(SchedSeq& s) {
    if (s.draft_for == s.tokens.size()) return true;  // made before a preemption
    s.draft = {};
    s.draft_for = s.tokens.size();
    // The draft's positions must fit the context, and its tokens max_tokens (the step adds one
    // token of the model's own); the step budget's share per sequence (max_draft) caps it too.
    const int64_t room = n_ctx - static_cast<int64_t>(s.tokens.size());
    const int64_t left = s.req.max_tokens - s.n_generated - 1;
    const int64_t k = std::min<int64_t>(
        {static_cast<int64_t>(s.req.drafter->draft_size()), max_draft, room, left});
    if (k <= 0) return true;
    auto d = s.req.drafter->draft(s.tokens, static_cast<int32_t>(k), s.req.sampling);
    const size_t V = static_cast<size_t>(m->params.n_vocab);
    std::string why;
    if (!d) {
        why = d.error_message();
    } else {
        if (d->tokens.size() > static_cast<size_t>(k)) d->tokens.resize(static_cast<size_t>(k));
        // A drafter's ids are checked like a request's: the forward pass must not see others.
        const auto bad = std::find_if(d->tokens.begin(), d->tokens.end(), [&](int32_t t) {
            return t < 0 || static_cast<size_t>(t) >= V;
        });
        d->tokens.erase(bad, d->tokens.end());
        if (!d->probs.empty() && d->probs.size() < d->tokens.size() * V)
            why = "it returned too few probabilities";
    }
    if (!why.empty()) {
        finish(s, StopReason::Cancelled,
               "speculative decoding (" + std::string(s.req.drafter->name()) + "): " + why);
        return false;
    }
    s.draft = std::move(*d);
    return true;
}

void Scheduler::Impl::verify_draft(SchedSeq& s, std::span<const float> rows) {
    const size_t V = static_cast<size_t>(m->params.n_vocab);
    const auto row = [&](size_t i) { return rows.subspan(i * V, V); };
    runtime::Verifier& verifier = *s.verifier;
    const size_t n_real = s.verify.size() - s.draft.tokens.size();  // the sequence's own tokens
    const Draft draft = std::move(s.draft);
    s.draft = {};
    s.draft_for = 0;
    // Judge the drafted tokens in order; the first rejection brings the model's own token,
    // full acceptance the bonus token after the last one.
    std::vector<int32_t> out;
    int32_t next = -1;
    size_t kept = 0;
    for (; kept < draft.tokens.size(); ++kept) {
        const std::span<const float> q =
            draft.probs.empty() ? std::span<const float>{}
                                : std::span<const float>(draft.probs).subspan(kept * V, V);
        const auto verdict = verifier.check(row(kept), draft.tokens[kept], q);
        if (!verdict.accepted) {
            next = verdict.token;
            break;
        }
        verifier.accept(verdict.token);
        out.push_back(verdict.token);
    }
    if (next < 0) next = verifier.pick(row(kept));
    verifier.accept(next);
    out.push_back(next);

    Drafter& drafter = *s.req.drafter;
    const auto n_draft = static_cast<int32_t>(draft.tokens.size());
    drafter.report(n_draft, static_cast<int32_t>(kept));
    drafter.count_step(static_cast<int32_t>(kept) + 1);
    s.usage.draft_tokens += n_draft;
    s.usage.draft_accepted += static_cast<int64_t>(kept);
    ++s.usage.draft_steps;
    st.draft_tokens += static_cast<uint64_t>(n_draft);
    st.draft_accepted += kept;
    ++st.draft_steps;

    // Its tokens and the kept drafts are the sequence's history now; the blocks that held only
    // rejected rows go back to the pool (a partly kept block keeps its stale tail cells
    // unpublished, to be overwritten by the next step).
    cache->commit(s.kv, std::span<const int32_t>(s.verify).first(n_real + kept));
    cache->truncate(s.kv, kv_size(s));
    for (size_t i = 0; i < out.size(); ++i)  // token i was chosen from the logits of row i
        if (const auto end = emit(s, out[i], row(i))) {
            finish(s, *end);
            return;
        }
}

}  // namespace hearth
