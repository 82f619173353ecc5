// One scheduler iteration: schedule (decodes first, then prompt chunks, then admissions, all
// within the step's token budget; preemption of the newest sequence when KV blocks run out),
// execute (one batched forward step), update (sample, stream, stop). Events are delivered
// after the step, outside the lock.
#include <algorithm>
#include <string>

#include "runtime/logprobs.h"
#include "runtime/scheduler_impl.h"

namespace hearth {

namespace {
double seconds_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}
}  // namespace

void Scheduler::Impl::take_inbox() {
    std::vector<std::unique_ptr<SchedSeq>> in;
    std::vector<uint64_t> cancels;
    {
        std::lock_guard lock(mu);
        in.swap(inbox);
        cancels.swap(cancel_ids);
    }
    for (auto& s : in) {
        const uint64_t id = s->id;
        waiting.push_back(id);
        seqs.emplace(id, std::move(s));
    }
    for (uint64_t id : cancels)
        if (auto it = seqs.find(id); it != seqs.end()) it->second->cancelled = true;
}

void Scheduler::Impl::apply_cancels() {
    std::vector<SchedSeq*> gone;
    for (auto& [id, s] : seqs)
        if (s->cancelled || (s->req.cancel && s->req.cancel->load(std::memory_order_relaxed)))
            gone.push_back(s.get());
    for (SchedSeq* s : gone) finish(*s, StopReason::Cancelled);
}

void Scheduler::Impl::remove(uint64_t id) {
    running.erase(std::remove(running.begin(), running.end(), id), running.end());
    waiting.erase(std::remove(waiting.begin(), waiting.end(), id), waiting.end());
}

void Scheduler::Impl::finish(SchedSeq& s, StopReason reason, std::string error) {
    StreamEvent ev;
    ev.request = s.id;
    ev.done = true;
    ev.reason = reason;
    if (error.empty()) {
        bool hit = false;
        ev.text = s.stop.push(s.decoder.finish(), hit);
        if (!hit) ev.text += s.stop.finish();
    }
    ev.error = std::move(error);
    s.usage.prompt_tokens = static_cast<int64_t>(s.n_prompt);
    s.usage.completion_tokens = s.n_generated;
    s.usage.total_seconds = seconds_between(s.submitted, Clock::now());
    ev.usage = s.usage;
    if (s.kv >= 0) cache->close(s.kv);
    s.kv = -1;
    // Masks cached for a schema must not outlive it (another could take its address).
    if (s.req.json_schema && json_mask) json_mask->forget(s.req.json_schema.get());
    remove(s.id);
    ++st.requests_done;
    if (reason == StopReason::Cancelled && ev.error.empty()) ++st.requests_cancelled;
    auto node = seqs.extract(s.id);
    events.emplace_back(node.mapped().get(), std::move(ev));
    finished.push_back(std::move(node.mapped()));
}

void Scheduler::Impl::fail_all(const std::string& why) {
    std::vector<SchedSeq*> all;
    for (auto& [id, s] : seqs) all.push_back(s.get());
    for (SchedSeq* s : all) finish(*s, StopReason::Cancelled, why);
    flush_events();
    publish_stats();
}

void Scheduler::Impl::preempt(SchedSeq& s) {
    cache->close(s.kv);
    s.kv = -1;
    running.erase(std::remove(running.begin(), running.end(), s.id), running.end());
    waiting.insert(std::upper_bound(waiting.begin(), waiting.end(), s.id), s.id);
    ++s.usage.preemptions;
    ++st.preemptions;
}

bool Scheduler::Impl::reserve_or_preempt(SchedSeq& s, int64_t n, std::vector<Planned>& plan,
                                         int64_t& budget) {
    for (;;) {
        if (cache->reserve(s.kv, n)) return true;
        cache->truncate(s.kv, kv_size(s));  // gives back what the failed reserve took
        // The newest running sequence makes room; its tokens are recomputed when it returns.
        SchedSeq& victim = *seqs.at(*std::max_element(running.begin(), running.end()));
        for (auto it = plan.begin(); it != plan.end(); ++it)
            if (it->s == &victim) {
                budget += it->n;
                plan.erase(it);
                break;
            }
        preempt(victim);
        if (&victim == &s) return false;
    }
}

bool Scheduler::Impl::admit(SchedSeq& s, int64_t& budget, std::vector<Planned>& plan) {
    s.kv = cache->open();
    const int64_t want = static_cast<int64_t>(s.tokens.size());
    int64_t have = cache->match(s.kv, s.tokens);
    if (have >= want) {  // all cached: the last token runs again for its logits
        have = want - 1;
        cache->truncate(s.kv, have);
    }
    bool spec = false;
    const int64_t n = chunk(s, want - have, budget, spec);
    if (n < 0) return true;  // its drafter failed and it ended: the next may come in
    // Leave one free block per running sequence, so admitting does not force a preemption in
    // the next decode step.
    if (n == 0 || !cache->reserve(s.kv, n) ||
        cache->stats().n_free < static_cast<int32_t>(running.size())) {
        cache->close(s.kv);
        s.kv = -1;
        return false;
    }
    if (!s.admitted_once) {
        s.admitted_once = true;
        s.usage.cached_tokens = have;
        s.usage.queue_seconds = seconds_between(s.submitted, Clock::now());
    }
    waiting.erase(std::find(waiting.begin(), waiting.end(), s.id));
    running.insert(std::upper_bound(running.begin(), running.end(), s.id), s.id);
    plan.push_back({&s, n, spec});
    budget -= n;
    return true;
}

int64_t Scheduler::Impl::chunk(SchedSeq& s, int64_t rest, int64_t budget, bool& spec) {
    spec = false;
    if (!s.req.drafter) return std::min(rest, budget);
    // The draft rides on the chunk that reaches the last token; without room for the longest
    // draft that chunk waits, and a prompt chunk stops one token short of it.
    if (rest + max_draft > budget) return std::min(rest - 1, budget);
    if (!prepare_draft(s)) return -1;
    spec = true;
    return rest + static_cast<int64_t>(s.draft.tokens.size());
}

std::vector<Scheduler::Impl::Planned> Scheduler::Impl::schedule() {
    std::vector<Planned> plan;
    int64_t budget = opt.step_tokens;
    // Decodes first (one token each), then the prompt chunks of running sequences.
    for (const bool decode : {true, false}) {
        const std::vector<uint64_t> order = running;  // preemption edits `running`
        for (uint64_t id : order) {
            SchedSeq& s = *seqs.at(id);
            if (s.kv < 0 || budget <= 0) continue;  // preempted in this pass
            const int64_t rest = static_cast<int64_t>(s.tokens.size()) - kv_size(s);
            if (rest <= 0 || (rest == 1) != decode) continue;
            bool spec = false;
            const int64_t n = chunk(s, rest, budget, spec);
            if (n <= 0) continue;  // no room this step, or its drafter failed and it ended
            if (reserve_or_preempt(s, n, plan, budget)) {
                plan.push_back({&s, n, spec});
                budget -= n;
            }
        }
    }
    // New (and preempted) requests while there is room, oldest first.
    while (!waiting.empty() && static_cast<int32_t>(running.size()) < opt.max_running && budget > 0)
        if (!admit(*seqs.at(waiting.front()), budget, plan)) break;
    return plan;
}

Status Scheduler::Impl::execute(const std::vector<Planned>& plan) {
    std::vector<runtime::BatchSeq> batch;
    batch.reserve(plan.size());
    for (const Planned& p : plan) {
        const int64_t past = kv_size(*p.s);
        runtime::BatchSeq b;
        if (p.spec) {
            // The rest of the sequence (the pending token, or the last prompt chunk) and the
            // draft after it; the logits after its last token and after each drafted one.
            SchedSeq& s = *p.s;
            s.verify.assign(s.tokens.begin() + past, s.tokens.end());
            s.verify.insert(s.verify.end(), s.draft.tokens.begin(), s.draft.tokens.end());
            b.tokens = s.verify;
            b.want_logits = true;
            b.n_logits = static_cast<int32_t>(1 + s.draft.tokens.size());
        } else {
            b.tokens = std::span<const int32_t>(p.s->tokens)
                           .subspan(static_cast<size_t>(past), static_cast<size_t>(p.n));
            b.want_logits = past + p.n == static_cast<int64_t>(p.s->tokens.size());
        }
        b.block_table = cache->block_table(p.s->kv);
        b.n_past = past;
        // Plain greedy without a drafter: the device picks the token (the verifier of a
        // speculating sequence judges whole rows, so it reads them).
        b.greedy = b.want_logits && b.n_logits == 1 && p.s->greedy && !p.s->verifier;
        batch.push_back(b);
    }
    const kv::KvMemory& mem = cache->memory();
    auto out = forward->step_batch(batch, mem.k(), mem.v(), mem.layout().block_size, n_ctx);
    if (!out) return out.status();
    st.tokens_computed = forward->tokens_computed();
    // Plain sequences record what they computed first; a speculative one records only the
    // rows it keeps (verify_draft), so it samples in the same pass.
    for (size_t i = 0; i < plan.size(); ++i)
        if (!plan[i].spec) cache->commit(plan[i].s->kv, batch[i].tokens);
    const size_t V = static_cast<size_t>(m->params.n_vocab);
    size_t row = 0, picked = 0;
    for (size_t i = 0; i < plan.size(); ++i) {
        if (!batch[i].want_logits) continue;
        if (batch[i].greedy) {
            sample(*plan[i].s, {}, out->tokens[picked++]);
            continue;
        }
        const auto rows = static_cast<size_t>(batch[i].n_logits);
        const auto logits = out->logits.subspan(V * row, V * rows);
        row += rows;
        if (plan[i].spec)
            verify_draft(*plan[i].s, logits);
        else
            sample(*plan[i].s, logits);
    }
    return Status::ok();
}

void Scheduler::Impl::sample(SchedSeq& s, std::span<const float> logits, int32_t picked) {
    int32_t tok = picked;
    if (s.json) {
        // The chain draws among the tokens that keep the object valid; logprobs still report
        // the model's own distribution (the raw row).
        if (!json_mask) json_mask.emplace(runtime::JsonTokenMask::for_tokenizer(*m->tokenizer));
        std::string why;
        tok = runtime::sample_json_token(*json_mask, *s.json, s.chain, logits, masked, why);
        if (tok < 0) {
            finish(s, StopReason::Cancelled, why);
            return;
        }
        s.chain.accept(tok);
        auto end = emit(s, tok, logits);
        if (s.json->complete() &&
            (!end || *end == StopReason::MaxTokens || *end == StopReason::ContextFull))
            end = StopReason::EndOfGeneration;
        if (end) finish(s, *end);
        return;
    }
    if (s.verifier) {
        tok = s.verifier->pick(logits);
        s.verifier->accept(tok);
    } else {
        if (tok < 0) tok = s.chain.sample(logits);
        s.chain.accept(tok);
    }
    if (const auto end = emit(s, tok, logits)) finish(s, *end);
}

std::optional<StopReason> Scheduler::Impl::emit(SchedSeq& s, int32_t tok,
                                                std::span<const float> logits) {
    if (s.n_generated == 0 && s.usage.ttft_seconds == 0)
        s.usage.ttft_seconds = seconds_between(s.submitted, Clock::now());
    if (s.req.stop_at_end_of_generation && m->tokenizer->is_end_of_generation(tok))
        return StopReason::EndOfGeneration;
    s.tokens.push_back(tok);
    ++s.n_generated;
    ++st.tokens_generated;
    bool hit = false;
    StreamEvent ev;
    ev.request = s.id;
    ev.token = tok;
    ev.text = s.stop.push(s.decoder.push(tok), hit);
    if (s.req.logprobs >= 0 && !logits.empty()) {
        ev.has_logprob = true;
        ev.logprob = runtime::token_logprob(logits, tok, s.req.logprobs, ev.top_logprobs);
    }
    events.emplace_back(&s, std::move(ev));
    if (hit) return StopReason::StopString;
    if (s.n_generated >= s.req.max_tokens) return StopReason::MaxTokens;
    if (static_cast<int64_t>(s.tokens.size()) > n_ctx)
        return StopReason::ContextFull;  // the pending token has no position left
    return std::nullopt;
}

void Scheduler::Impl::flush_events() {
    std::vector<std::pair<SchedSeq*, StreamEvent>> evs;
    evs.swap(events);
    for (auto& [s, ev] : evs)
        if (s->req.on_event) s->req.on_event(ev);
    finished.clear();
}

void Scheduler::Impl::publish_stats() {
    const kv::KvCacheStats ks = cache->stats();
    st.running = static_cast<int32_t>(running.size());
    st.kv_blocks = ks.n_blocks;
    st.kv_blocks_free = ks.n_free;
    st.prefix_hit_blocks = ks.prefix_hit_blocks;
    std::lock_guard lock(mu);
    st.waiting = static_cast<int32_t>(waiting.size() + inbox.size());
    shared_stats = st;
}

Result<bool> Scheduler::Impl::step() {
    take_inbox();
    apply_cancels();
    bool worked = !events.empty();
    if (!running.empty() || !waiting.empty()) {
        if (Status s = m->file->check_size(); !s) {
            fail_all(s.message());  // the model file was truncated on disk: no SIGBUS
            return true;
        }
        const std::vector<Planned> plan = schedule();
        if (!plan.empty()) {
            worked = true;
            ++st.steps;
            if (Status s = execute(plan); !s) {
                std::vector<SchedSeq*> failed;
                for (const Planned& p : plan) failed.push_back(p.s);
                for (SchedSeq* p : failed) finish(*p, StopReason::Cancelled, s.message());
            }
        }
    }
    flush_events();
    publish_stats();
    return worked;
}

}  // namespace hearth
