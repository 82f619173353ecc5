// hearth::Scheduler: creation, the thread-safe entry points (submit, cancel, stats) and the
// optional stepping thread. The step itself (schedule -> execute -> update) is in
// scheduler_step.cpp.
#include <algorithm>
#include <string>

#include "hearth/engine.h"
#include "runtime/scheduler_impl.h"

namespace hearth {

Scheduler::Scheduler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Scheduler::~Scheduler() {
    stop();
}

Result<std::unique_ptr<Scheduler>> Scheduler::create(std::shared_ptr<const Model> model,
                                                     const SchedulerOptions& options) try {
    using R = Result<std::unique_ptr<Scheduler>>;
    if (!model) return R::error("no model");
    SchedulerOptions opt = options;
    if (opt.max_running < 1 || opt.max_running > 256)
        return R::error("parallel sequences must be between 1 and 256");
    if (opt.max_queued < 0) return R::error("the queue length must be >= 0");
    opt.step_tokens = std::clamp<int64_t>(opt.step_tokens, opt.max_running, 4096);
    auto impl = std::make_unique<Impl>();
    impl->model = std::move(model);
    impl->m = &ModelAccess::impl(*impl->model);
    const Model::Impl& m = *impl->m;
    // 0: the model's training context; longer: clamped to it unless the model allows more.
    impl->n_ctx =
        resolve_context_length(opt.n_ctx, m.params.n_ctx_train, m.info.ctx_beyond_training).n_ctx;
    if (impl->n_ctx > (int64_t(1) << 20)) return R::error("context length too large");
    opt.n_ctx = impl->n_ctx;
    impl->opt = opt;
    // Every decoding sequence with its draft fits one step (see scheduler.h).
    impl->max_draft =
        static_cast<int32_t>(std::max<int64_t>(0, opt.step_tokens / opt.max_running - 1));

    kv::KvLayout layout;
    layout.n_layer = m.params.n_layer;
    layout.kv_width = m.params.kv_width();
    layout.type = quant::element_type(opt.kv_type);
    layout.block_size = 16;
    const uint64_t blocks_per_ctx = uint64_t((impl->n_ctx + 15) / 16);
    const uint64_t budget = opt.kv_budget_bytes > 0
                                ? opt.kv_budget_bytes
                                : layout.block_bytes() * blocks_per_ctx * uint64_t(opt.max_running);
    auto cache = kv::PagedKvCache::create(*m.device, layout, budget, impl->n_ctx, m.identity);
    if (!cache) return cache.status();
    impl->cache = std::move(cache.value());
    auto fw = runtime::Forward::create(*m.device, m.params, m.weights, impl->n_ctx, opt.step_tokens,
                                       opt.n_threads);
    if (!fw) return fw.status();
    impl->forward = std::move(fw.value());
    impl->publish_stats();
    return std::unique_ptr<Scheduler>(new Scheduler(std::move(impl)));
} catch (...) {
    return exception_status("creating the scheduler");
}

const Model& Scheduler::model() const {
    return *impl_->model;
}
int64_t Scheduler::n_ctx() const {
    return impl_->n_ctx;
}
const SchedulerOptions& Scheduler::options() const {
    return impl_->opt;
}
int32_t Scheduler::max_draft_tokens() const {
    return impl_->max_draft;
}

SubmitResult Scheduler::submit(GenerationRequest request) try {
    Impl& s = *impl_;
    const auto invalid = [](std::string why) {
        return SubmitResult{0, SubmitError::Invalid, std::move(why)};
    };
    if (request.prompt.empty()) return invalid("the prompt is empty");
    const int64_t n_vocab = s.m->params.n_vocab;
    for (int32_t t : request.prompt)
        if (t < 0 || t >= n_vocab)
            return invalid("token id " + std::to_string(t) + " is outside the vocabulary (0.." +
                           std::to_string(n_vocab - 1) + ")");
    if (static_cast<int64_t>(request.prompt.size()) >= s.n_ctx)
        return invalid("the prompt is " + std::to_string(request.prompt.size()) +
                       " tokens long; the context holds " + std::to_string(s.n_ctx) +
                       " (prompt and reply)");
    if (request.max_tokens <= 0) return invalid("max_tokens must be at least 1");
    if (request.logprobs < -1 || request.logprobs > kMaxTopLogprobs)
        return invalid("logprobs must be between 0 and " + std::to_string(kMaxTopLogprobs));
    std::optional<runtime::JsonRecognizer> json;
    if (std::string why = runtime::json_format_error(request.format, request.json_schema.get());
        !why.empty())
        return invalid(why);
    if (request.format != OutputFormat::Text) {
        json.emplace(request.format == OutputFormat::JsonSchema ? request.json_schema.get()
                                                                : nullptr);
        if (!json->feed(request.reply_prefix) || json->complete())
            return invalid("the reply's start is not the start of a JSON object");
        request.drafter.reset();  // constrained requests decode one token a step
    }
    auto seq = std::make_unique<SchedSeq>(std::move(request), *s.m->tokenizer);
    seq->json = json;
    seq->tokens = seq->req.prompt;
    seq->n_prompt = seq->tokens.size();
    for (int32_t t : seq->tokens) seq->chain.accept(t);  // penalties see the prompt
    seq->submitted = Clock::now();
    std::lock_guard lock(s.mu);
    if (s.stopping) return {0, SubmitError::Stopped, "the server is shutting down"};
    const int32_t free_slots = std::max(0, s.opt.max_running - s.shared_stats.running);
    if (s.shared_stats.waiting >= s.opt.max_queued + free_slots)
        return {0, SubmitError::QueueFull,
                "the server is busy: " + std::to_string(s.shared_stats.running) +
                    " requests running and " + std::to_string(s.shared_stats.waiting) +
                    " waiting (the queue is full); try again later"};
    seq->id = s.next_id++;
    const uint64_t id = seq->id;
    s.inbox.push_back(std::move(seq));
    ++s.shared_stats.waiting;  // publish_stats() recounts after each step
    s.cv.notify_all();
    return {id, SubmitError::None, {}};
} catch (...) {
    return {0, SubmitError::Invalid, exception_status("submit").message()};
}

void Scheduler::cancel(uint64_t id) {
    std::lock_guard lock(impl_->mu);
    impl_->cancel_ids.push_back(id);
    impl_->cv.notify_all();
}

Result<bool> Scheduler::step() try { return impl_->step(); } catch (...) {
    return exception_status("scheduler step");
}

void Scheduler::Impl::run_loop() {
    for (;;) {
        {
            std::unique_lock lock(mu);
            cv.wait(lock, [&] {
                return stopping || !inbox.empty() || !cancel_ids.empty() || !running.empty() ||
                       !waiting.empty();
            });
            if (stopping) return;
        }
        try {
            (void)step();
        } catch (...) {
            fail_all(exception_status("scheduler step").message());
        }
    }
}

void Scheduler::start() {
    Impl& s = *impl_;
    std::lock_guard lock(s.mu);
    if (s.thread.joinable() || s.stopping) return;
    s.thread = std::thread([&s] { s.run_loop(); });
}

void Scheduler::stop() {
    Impl& s = *impl_;
    {
        std::lock_guard lock(s.mu);
        s.stopping = true;
        s.cv.notify_all();
    }
    if (s.thread.joinable()) s.thread.join();
    s.take_inbox();
    s.fail_all("the server is shutting down");
}

SchedulerStats Scheduler::stats() const {
    std::lock_guard lock(impl_->mu);
    return impl_->shared_stats;
}

Status Scheduler::check() const {
    return impl_->cache->check();
}

}  // namespace hearth
