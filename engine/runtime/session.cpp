// hearth::Session: one conversation as a sequence of the paged KV cache. Each prefill finds
// the longest cached prefix (this session's blocks or any cached block of the same history)
// and computes only the tail; overflow drops whole turns; save/restore go through kv_file.
#include <algorithm>
#include <chrono>
#include <optional>

#include "kv/kv_file.h"
#include "runtime/forward.h"
#include "runtime/generation.h"
#include "runtime/kv_store_impl.h"
#include "runtime/spec_generate.h"

namespace hearth {

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

struct Session::Impl {
    std::shared_ptr<KvStore> store;
    kv::PagedKvCache* cache = nullptr;
    kv::PagedKvCache::SeqId seq = -1;
    std::unique_ptr<runtime::Forward> forward;
    SessionOptions opt;
    std::vector<float> logits;      // after the last token of the sequence
    bool logits_on_device = false;  // a greedy step left them there (ensure_logits)
    std::vector<float> rows;        // evaluate(): the logits after each token
    std::atomic<bool> cancel{false};
    CancelToken token;  // the request's (never reset here)
    GenerationStats stats;
    size_t dropped_leading = 0;  // droppable turns left out by the last overflow
    // The last prefill's tokens and logits: a regenerate (same prompt, the reply dropped)
    // samples again from them instead of recomputing the prompt's last token.
    std::vector<int32_t> prompt_tokens;
    std::vector<float> prompt_logits;

    ~Impl() {
        if (cache && seq >= 0) cache->close(seq);
    }
    bool cancelled() const {
        return cancel.load(std::memory_order_relaxed) ||
               (token && token->load(std::memory_order_relaxed));
    }
    const Model::Impl& m() const { return *store->impl_->model->impl_; }
    int64_t n_ctx() const { return store->impl_->n_ctx; }
    int64_t size() const { return static_cast<int64_t>(cache->tokens(seq).size()); }

    // Runs tokens after the sequence in batches: room in the block table, forward pass,
    // then the tokens are committed (full blocks become reusable by every session).
    // rows: when given, receives the logits after every token (speculative verification).
    Status compute(std::span<const int32_t> toks, std::vector<float>* rows = nullptr) {
        const kv::KvMemory& mem = cache->memory();
        for (size_t done = 0; done < toks.size();) {
            if (cancelled()) return Status::error("cancelled");
            if (Status s = m().file->check_size(); !s) return s;  // truncated on disk: no SIGBUS
            const size_t n = std::min(toks.size() - done, static_cast<size_t>(opt.n_batch));
            const auto chunk = toks.subspan(done, n);
            logits.clear();  // the sequence changes; old logits no longer apply
            logits_on_device = false;
            if (Status s = cache->reserve(seq, static_cast<int64_t>(n)); !s) return s;
            const runtime::KvView view{
                mem.k(), mem.v(), cache->block_table(seq), mem.layout().block_size,
                size(),  n_ctx()};
            auto out = forward->step(chunk, view, rows != nullptr);
            if (!out) return out.status();
            cache->commit(seq, chunk);
            if (rows) rows->insert(rows->end(), out->begin(), out->end());
            const size_t V = static_cast<size_t>(m().params.n_vocab);
            logits.assign(out->end() - static_cast<std::ptrdiff_t>(V), out->end());
            done += n;
        }
        stats.tokens_computed = forward->tokens_computed();
        return Status::ok();
    }

    // Greedy sampling on the device: one token in, the next one out; the logits after it are
    // not read back (ensure_logits recomputes them if they are asked for).
    Result<int32_t> compute_greedy(int32_t tok) {
        if (cancelled()) return Status::error("cancelled");
        if (Status s = m().file->check_size(); !s) return s;
        const kv::KvMemory& mem = cache->memory();
        logits.clear();
        logits_on_device = true;
        if (Status s = cache->reserve(seq, 1); !s) return s;
        const runtime::KvView view{
            mem.k(), mem.v(), cache->block_table(seq), mem.layout().block_size, size(), n_ctx()};
        auto next = forward->step_argmax(std::span(&tok, 1), view);
        if (!next) return next.status();
        cache->commit(seq, std::span(&tok, 1));
        stats.tokens_computed = forward->tokens_computed();
        return *next;
    }

    // The logits after the last token of the sequence, recomputed (that token once more)
    // when a greedy generate() left them on the device.
    Status ensure_logits() {
        if (!logits_on_device || !logits.empty() || size() == 0) return Status::ok();
        const int32_t last = cache->tokens(seq).back();
        cache->truncate(seq, size() - 1);
        return compute(std::span(&last, 1));
    }

    Result<PrefillReport> prefill_flat(std::span<const int32_t> want, PrefillReport rep) {
        using R = Result<PrefillReport>;
        cancel.store(false);
        const auto t0 = std::chrono::steady_clock::now();
        if (want.empty()) {
            cache->truncate(seq, 0);
            logits.clear();
            return rep;
        }
        if (static_cast<int64_t>(want.size()) > n_ctx())
            return R::error("the chat is " + std::to_string(want.size()) +
                            " tokens long, more than the context of " + std::to_string(n_ctx()));
        const auto have = cache->tokens(seq);
        const bool unchanged =
            !logits.empty() && std::equal(have.begin(), have.end(), want.begin(), want.end());
        int64_t reused = unchanged ? size() : cache->match(seq, want);
        if (!unchanged && reused == static_cast<int64_t>(want.size()) && reused > 0) {
            if (std::equal(want.begin(), want.end(), prompt_tokens.begin(), prompt_tokens.end())) {
                logits = prompt_logits;
            } else {
                --reused;  // the last token is run again for its logits
                cache->truncate(seq, reused);
            }
        }
        if (reused < static_cast<int64_t>(cache->tokens(seq).size())) cache->truncate(seq, reused);
        const uint64_t before = forward->tokens_computed();
        Status s = compute(want.subspan(static_cast<size_t>(reused)));
        rep.n_tokens = size();
        rep.n_reused = reused;
        rep.n_computed = static_cast<int64_t>(forward->tokens_computed() - before);
        stats.prompt_tokens += rep.n_computed;
        stats.prompt_seconds += seconds_since(t0);
        if (!s) return s;
        prompt_tokens.assign(want.begin(), want.end());
        prompt_logits = logits;
        return rep;
    }
};

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

Result<std::unique_ptr<Session>> Session::create(std::shared_ptr<KvStore> store,
                                                 const SessionOptions& opt) try {
    using R = Result<std::unique_ptr<Session>>;
    if (!store) return R::error("no KV store");
    auto impl = std::make_unique<Impl>();
    impl->opt = opt;
    impl->opt.n_batch = std::clamp<int64_t>(opt.n_batch, 1, 4096);
    impl->store = std::move(store);
    impl->cache = impl->store->impl_->cache.get();
    const Model::Impl& m = impl->m();
    auto fw = runtime::Forward::create(*m.device, m.params, m.weights, impl->n_ctx(),
                                       std::min(impl->opt.n_batch, impl->n_ctx()), opt.n_threads);
    if (!fw) return fw.status();
    impl->forward = std::move(fw.value());
    impl->seq = impl->cache->open();
    return std::unique_ptr<Session>(new Session(std::move(impl)));
} catch (...) {
    return exception_status("creating the session");
}

Result<PrefillReport> Session::prefill(std::span<const int32_t> tokens) try {
    return impl_->prefill_flat(tokens, {});
} catch (...) {
    return exception_status("prefill");
}

Result<PrefillReport> Session::prefill(std::span<const Turn> turns) try {
    using R = Result<PrefillReport>;
    Impl& s = *impl_;
    if (turns.empty()) {
        clear();
        return PrefillReport{};
    }
    const int64_t n_ctx = s.n_ctx();
    const int64_t limit = n_ctx - std::clamp<int64_t>(s.opt.reply_reserve, 0, n_ctx / 2);
    int64_t total = 0, fixed = 0;
    std::vector<size_t> droppable;
    for (size_t i = 0; i < turns.size(); ++i) {
        const auto n = static_cast<int64_t>(turns[i].tokens.size());
        total += n;
        if (turns[i].keep || i + 1 == turns.size())
            fixed += n;
        else
            droppable.push_back(i);
    }
    if (fixed > limit)
        return R::error("the last message (" + std::to_string(turns.back().tokens.size()) +
                        " tokens) with the kept turns (" +
                        std::to_string(fixed - int64_t(turns.back().tokens.size())) +
                        " tokens) does not fit the context of " + std::to_string(n_ctx) +
                        " tokens with " + std::to_string(n_ctx - limit) + " kept for the reply");
    // Drops stay sticky between turns so the kept prefix (and its cache) stays stable.
    size_t d = std::min(s.dropped_leading, droppable.size());
    auto after_drops = [&](size_t k) {
        int64_t t = total;
        for (size_t j = 0; j < k; ++j) t -= int64_t(turns[droppable[j]].tokens.size());
        return t;
    };
    if (after_drops(d) > limit) {
        const int64_t target = std::max(fixed, limit - n_ctx / 4);
        while (d < droppable.size() && after_drops(d) > target) ++d;
    }
    s.dropped_leading = d;
    PrefillReport rep;
    std::vector<int32_t> want;
    want.reserve(static_cast<size_t>(after_drops(d)));
    for (size_t i = 0, j = 0; i < turns.size(); ++i) {
        if (j < d && droppable[j] == i) {
            rep.dropped_turns.push_back(i);
            rep.dropped_tokens += static_cast<int64_t>(turns[i].tokens.size());
            ++j;
            continue;
        }
        want.insert(want.end(), turns[i].tokens.begin(), turns[i].tokens.end());
    }
    return s.prefill_flat(want, std::move(rep));
} catch (...) {
    return exception_status("prefill");
}

Status Session::append(std::span<const int32_t> tokens) try {
    impl_->cancel.store(false);
    if (impl_->size() + static_cast<int64_t>(tokens.size()) > impl_->n_ctx())
        return Status::error("context is full");
    return impl_->compute(tokens);
} catch (...) {
    return exception_status("append");
}

Result<GenerateResult> Session::generate(const GenerateOptions& opt) try {
    Impl& s = *impl_;
    s.cancel.store(false);
    const auto t0 = std::chrono::steady_clock::now();
    if (Status st = s.ensure_logits(); !st) return st;
    if (s.logits.empty()) return Result<GenerateResult>::error("prefill before generating");
    runtime::GenerationHooks hooks;
    hooks.eval = [&s](int32_t tok) { return s.compute(std::span(&tok, 1)); };
    hooks.eval_greedy = [&s](int32_t tok) { return s.compute_greedy(tok); };
    hooks.has_room = [&s] { return s.size() < s.n_ctx(); };
    hooks.token = s.token.get();
    std::optional<int32_t> pending;  // the next prefill brings the rendered reply
    const std::vector<int32_t> history(s.cache->tokens(s.seq).begin(),
                                       s.cache->tokens(s.seq).end());
    auto res = runtime::generate_tokens(*s.m().tokenizer, opt, history, s.logits, pending, s.cancel,
                                        s.stats, hooks, t0);
    s.stats.generate_seconds += seconds_since(t0);
    return res;
} catch (...) {
    return exception_status("generate");
}

Result<GenerateResult> Session::generate(const GenerateOptions& opt, Drafter& drafter) try {
    Impl& s = *impl_;
    s.cancel.store(false);
    const auto t0 = std::chrono::steady_clock::now();
    if (Status st = s.ensure_logits(); !st) return st;
    if (s.logits.empty()) return Result<GenerateResult>::error("prefill before generating");
    runtime::SpeculativeHooks hooks;
    hooks.tokens = [&s] { return s.cache->tokens(s.seq); };
    hooks.evaluate = [this](std::span<const int32_t> t) { return evaluate(t); };
    hooks.rollback = [this](int64_t n, std::span<const float> l) { return rollback(n, l); };
    hooks.step_greedy = [&s](int32_t tok) -> Result<int32_t> {
        if (s.size() >= s.n_ctx()) return Status::error("context is full");
        return s.compute_greedy(tok);
    };
    hooks.n_ctx = s.n_ctx();
    hooks.token = s.token.get();
    const std::vector<float> first = s.logits;
    auto res = runtime::generate_speculative(*s.m().tokenizer, opt, first, drafter, s.cancel,
                                             s.stats, hooks, t0);
    s.stats.generate_seconds += seconds_since(t0);
    return res;
} catch (...) {
    return exception_status("generate");
}

Result<std::span<const float>> Session::evaluate(std::span<const int32_t> tokens) try {
    using R = Result<std::span<const float>>;
    Impl& s = *impl_;
    if (tokens.empty()) return R::error("no tokens to evaluate");
    if (s.size() + static_cast<int64_t>(tokens.size()) > s.n_ctx())
        return R::error("context is full");
    s.rows.clear();
    if (Status st = s.compute(tokens, &s.rows); !st) return st;
    return std::span<const float>(s.rows);
} catch (...) {
    return exception_status("evaluate");
}

Status Session::rollback(int64_t n, std::span<const float> logits) try {
    Impl& s = *impl_;
    if (n < 0 || n > s.size()) return Status::error("rollback past the end of the sequence");
    if (logits.size() != static_cast<size_t>(s.m().params.n_vocab))
        return Status::error("rollback: logits of the wrong size");
    std::vector<float> keep(logits.begin(), logits.end());  // may point into rows
    s.cache->truncate(s.seq, n);
    s.logits = std::move(keep);
    return Status::ok();
} catch (...) {
    return exception_status("rollback");
}

Result<std::unique_ptr<Session>> Session::fork(int64_t n_tokens) const try {
    using R = Result<std::unique_ptr<Session>>;
    auto copy = Session::create(impl_->store, impl_->opt);
    if (!copy) return copy.status();
    Impl& d = *copy.value()->impl_;
    auto seq = impl_->cache->fork(impl_->seq, n_tokens);
    if (!seq) return seq.status();
    impl_->cache->close(d.seq);
    d.seq = *seq;
    d.dropped_leading = impl_->dropped_leading;
    if (n_tokens == impl_->size()) d.logits = impl_->logits;
    return R(std::move(copy.value()));
} catch (...) {
    return exception_status("fork");
}

std::span<const int32_t> Session::tokens() const {
    return impl_->cache->tokens(impl_->seq);
}
std::span<const float> Session::logits() const {
    (void)impl_->ensure_logits();  // empty if that fails
    return impl_->logits;
}
int64_t Session::n_ctx() const {
    return impl_->n_ctx();
}
uint64_t Session::tokens_computed() const {
    return impl_->forward->tokens_computed();
}
const GenerationStats& Session::stats() const {
    return impl_->stats;
}
void Session::cancel() {
    impl_->cancel.store(true);
}
void Session::set_cancel_token(CancelToken token) {
    impl_->token = std::move(token);
}
void Session::clear() {
    impl_->cache->truncate(impl_->seq, 0);
    impl_->prompt_tokens.clear();
    impl_->logits.clear();
    impl_->logits_on_device = false;
    impl_->dropped_leading = 0;
}

Status Session::save(const std::filesystem::path& path) const try {
    return kv::save_sequence(path, *impl_->cache, impl_->seq);
} catch (...) {
    return exception_status("saving the KV cache");
}

Result<int64_t> Session::restore(const std::filesystem::path& path) try {
    Impl& s = *impl_;
    clear();
    auto n = kv::restore_sequence(path, *s.cache, s.seq, s.n_ctx());
    if (!n) {
        clear();
        return n.status();
    }
    if (*n == 0) return int64_t(0);
    if (*n > s.n_ctx()) {
        clear();
        return Result<int64_t>::error("the saved chat is longer than this context");
    }
    const int32_t last = s.cache->tokens(s.seq).back();
    s.cache->truncate(s.seq, *n - 1);
    if (Status st = s.compute(std::span(&last, 1)); !st) {
        clear();
        return st;
    }
    return *n;
} catch (...) {
    return exception_status("restoring the KV cache");
}

}  // namespace hearth
