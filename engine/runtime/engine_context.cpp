// hearth::Context: a KV cache and a forward pass over one sequence, prompt feeding and the
// generation loop (sampling, streaming detokenization, stop conditions, cancellation).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>

#include "hearth/engine.h"
#include "model_impl.h"
#include "runtime/forward.h"
#include "runtime/generation.h"
#include "runtime/kv_cache.h"

namespace hearth {

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

struct Context::Impl {
    std::shared_ptr<const Model> model;
    std::unique_ptr<runtime::KvCache> kv;
    std::unique_ptr<runtime::Forward> forward;
    int64_t n_batch = 256;
    std::vector<int32_t> tokens;     // evaluated, in cache order
    std::optional<int32_t> pending;  // sampled last but not evaluated yet
    std::vector<int32_t> feed_buf;   // feed()'s tokens, reused so a step allocates nothing
    std::vector<float> logits;       // after the last evaluated token
    bool logits_on_device = false;   // a greedy step left them there (ensure_logits)
    std::atomic<bool> cancel{false};
    GenerationStats stats;

    const Model::Impl& m() const { return *model->impl_; }

    // Evaluates tokens in batches; stops early when cancelled.
    Status eval(std::span<const int32_t> toks) {
        for (size_t done = 0; done < toks.size();) {
            if (cancel.load(std::memory_order_relaxed)) return Status::error("cancelled");
            // A model file truncated on disk would SIGBUS the step that reads its lost pages.
            if (Status s = m().file->check_size(); !s) return s;
            const size_t n = std::min(toks.size() - done, static_cast<size_t>(n_batch));
            logits_on_device = false;
            auto out = forward->step(toks.subspan(done, n), *kv);
            if (!out) return out.status();
            logits.assign(out->begin(), out->end());
            tokens.insert(tokens.end(), toks.begin() + long(done), toks.begin() + long(done + n));
            done += n;
        }
        stats.tokens_computed = forward->tokens_computed();
        return Status::ok();
    }

    // Greedy sampling on the device: one token in, the next one out; the logits after it are
    // not read back (ensure_logits recomputes them if they are asked for).
    Result<int32_t> eval_greedy(int32_t tok) {
        if (cancel.load(std::memory_order_relaxed)) return Status::error("cancelled");
        if (Status s = m().file->check_size(); !s) return s;
        logits.clear();
        logits_on_device = true;
        auto next = forward->step_argmax(std::span(&tok, 1), *kv);
        if (!next) return next.status();
        tokens.push_back(tok);
        stats.tokens_computed = forward->tokens_computed();
        return *next;
    }

    // The logits after the last evaluated token, recomputed (that token once more) when a
    // greedy generate() left them on the device.
    Status ensure_logits() {
        if (!logits_on_device || !logits.empty() || tokens.empty()) return Status::ok();
        const int32_t last = tokens.back();
        tokens.pop_back();
        kv->set_n_past(kv->n_past() - 1);
        return eval(std::span(&last, 1));
    }

    Status flush_pending() {
        if (!pending) return Status::ok();
        const int32_t t = *pending;
        pending.reset();
        return eval(std::span(&t, 1));
    }
};

Context::Context(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Context::~Context() = default;

Result<std::unique_ptr<Context>> Context::create(std::shared_ptr<const Model> model,
                                                 const ContextOptions& opt) try {
    using R = Result<std::unique_ptr<Context>>;
    if (!model) return R::error("no model");
    auto impl = std::make_unique<Impl>();
    impl->model = model;
    const auto& m = *model->impl_;
    // 0: the model's training context; longer: clamped to it unless the model allows more.
    const int64_t n_ctx =
        resolve_context_length(opt.n_ctx, m.params.n_ctx_train, m.info.ctx_beyond_training).n_ctx;
    if (n_ctx > (int64_t(1) << 20)) return R::error("context length too large");
    impl->n_batch = std::clamp<int64_t>(opt.n_batch, 1, 4096);
    const auto kv_type = quant::element_type(opt.kv_type);
    auto kv = runtime::KvCache::create(*m.device, m.params, n_ctx, kv_type, m.layer_devices);
    if (!kv) return kv.status();
    impl->kv = std::move(kv.value());
    auto fw = runtime::Forward::create(*m.device, m.params, m.weights, n_ctx,
                                       std::min(impl->n_batch, n_ctx), opt.n_threads);
    if (!fw) return fw.status();
    impl->forward = std::move(fw.value());
    // The cache holds at most n_ctx tokens: reserved once, a step never grows the list.
    impl->tokens.reserve(static_cast<size_t>(n_ctx));
    return std::unique_ptr<Context>(new Context(std::move(impl)));
} catch (...) {
    return exception_status("creating the context");
}

int64_t Context::n_ctx() const {
    return impl_->kv->n_ctx();
}
int64_t Context::n_past() const {
    return impl_->kv->n_past();
}
std::span<const int32_t> Context::tokens() const {
    return impl_->tokens;
}
std::span<const float> Context::logits() const {
    (void)impl_->ensure_logits();  // empty if that fails
    return impl_->logits;
}
const GenerationStats& Context::stats() const {
    return impl_->stats;
}
void Context::reset_stats() {
    const uint64_t computed = impl_->stats.tokens_computed;
    impl_->stats = {};
    impl_->stats.tokens_computed = computed;
}
void Context::cancel() {
    impl_->cancel.store(true);
}

void Context::reset() {
    impl_->kv->set_n_past(0);
    impl_->tokens.clear();
    impl_->pending.reset();
    impl_->logits.clear();
    impl_->logits_on_device = false;
}

Status Context::truncate(int64_t n) try {
    impl_->pending.reset();
    if (n < 0 || n > static_cast<int64_t>(impl_->tokens.size()))
        return Status::error("truncate: position outside the cached tokens");
    if (n == static_cast<int64_t>(impl_->tokens.size())) return Status::ok();
    impl_->kv->set_n_past(n);
    impl_->tokens.resize(static_cast<size_t>(n));
    impl_->logits.clear();  // the logits belonged to a dropped token
    return Status::ok();
} catch (...) {
    return exception_status("truncate");
}

Status Context::feed(std::span<const int32_t> toks) try {
    Impl& c = *impl_;
    c.cancel.store(false);
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<int32_t>& all = c.feed_buf;
    all.clear();
    if (c.pending) all.push_back(*c.pending);
    all.insert(all.end(), toks.begin(), toks.end());
    if (all.empty()) return Status::ok();
    const int64_t before = c.kv->n_past();
    c.pending.reset();
    Status s = c.eval(all);
    c.stats.prompt_tokens += c.kv->n_past() - before;
    c.stats.prompt_seconds += seconds_since(t0);
    return s;
} catch (...) {
    return exception_status("feed");
}

Status Context::feed_text(std::string_view text, bool add_special, bool parse_special) try {
    // BOS only at the very start of the sequence.
    auto toks = impl_->model->tokenize(text, add_special && n_past() == 0 && !impl_->pending,
                                       parse_special);
    if (!toks) return toks.status();
    return feed(*toks);
} catch (...) {
    return exception_status("feed");
}

Result<GenerateResult> Context::generate(const GenerateOptions& opt) try {
    Impl& c = *impl_;
    c.cancel.store(false);
    const auto t0 = std::chrono::steady_clock::now();
    if (Status s = c.flush_pending(); !s) return s;
    if (Status s = c.ensure_logits(); !s) return s;
    if (c.logits.empty()) return Result<GenerateResult>::error("feed a prompt before generating");
    runtime::GenerationHooks hooks;
    hooks.eval = [&c](int32_t tok) { return c.eval(std::span(&tok, 1)); };
    hooks.eval_greedy = [&c](int32_t tok) { return c.eval_greedy(tok); };
    hooks.has_room = [&c] { return c.kv->n_past() < c.kv->n_ctx(); };
    auto res = runtime::generate_tokens(*c.m().tokenizer, opt, c.tokens, c.logits, c.pending,
                                        c.cancel, c.stats, hooks, t0);
    c.stats.generate_seconds += seconds_since(t0);
    return res;
} catch (...) {
    return exception_status("generate");
}

}  // namespace hearth
