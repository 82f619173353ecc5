// What a hearth::Scheduler holds (internal to the engine). Sequences live in `seqs_`; the
// running and waiting lists hold their ids in arrival order.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "hearth/scheduler.h"
#include "kv/paged_kv_cache.h"
#include "runtime/forward.h"
#include "runtime/json_mask.h"
#include "runtime/model_impl.h"
#include "runtime/sampler.h"
#include "runtime/spec_verify.h"
#include "runtime/stop_matcher.h"
#include "tokenizer/streaming_decoder.h"

namespace hearth {

using Clock = std::chrono::steady_clock;

// One request from admission to its last event.
struct SchedSeq {
    SchedSeq(GenerationRequest r, const tokenizer::Tokenizer& tok)
        : req(std::move(r)),
          chain(runtime::make_sampler_chain(req.sampling)),
          greedy(runtime::is_plain_greedy(req.sampling) && req.logprobs < 0 &&
                 req.format == OutputFormat::Text),
          decoder(tok),
          stop(req.stop_strings) {
        // With a drafter every token is picked or judged by the verifier (its own seeded
        // stream, as in Session::generate with a drafter), so the chain is not used.
        if (req.drafter) verifier.emplace(req.sampling, req.prompt);
    }

    uint64_t id = 0;
    GenerationRequest req;
    // The prompt and every generated token. While decoding, the last one is not in the KV
    // cache yet: the next step computes it.
    std::vector<int32_t> tokens;
    size_t n_prompt = 0;
    int32_t n_generated = 0;
    kv::PagedKvCache::SeqId kv = -1;  // -1 while waiting (new or preempted)
    runtime::SamplerChain chain;
    // The device picks the token (ArgMax) and no logits come back: plain greedy sampling, no
    // logprobs asked for and no format (they need the logits).
    bool greedy = false;
    // A JSON format: the reply so far (prefix and generated tokens) as recognized.
    std::optional<runtime::JsonRecognizer> json;
    tokenizer::StreamingDecoder decoder;
    runtime::StopMatcher stop;
    RequestUsage usage;
    bool admitted_once = false;
    bool cancelled = false;
    Clock::time_point submitted;

    // Speculative decoding (req.drafter set).
    std::optional<runtime::Verifier> verifier;
    // The draft that follows the pending token, made once per position and kept until it is
    // verified (a preempted sequence uses it again when it resumes), so the drafter's state and
    // the verifier's draws do not depend on scheduling.
    Draft draft;
    size_t draft_for = 0;         // tokens.size() when the draft was made; 0: none
    std::vector<int32_t> verify;  // this step's input: the rest of the tokens, then the draft
};

struct Scheduler::Impl {
    std::shared_ptr<const Model> model;
    const Model::Impl* m = nullptr;
    SchedulerOptions opt;
    int64_t n_ctx = 0;
    std::unique_ptr<kv::PagedKvCache> cache;
    std::unique_ptr<runtime::Forward> forward;

    // Shared with submit()/cancel()/stats() on other threads.
    mutable std::mutex mu;
    std::condition_variable cv;
    std::vector<std::unique_ptr<SchedSeq>> inbox;
    std::vector<uint64_t> cancel_ids;
    uint64_t next_id = 1;
    bool stopping = false;
    SchedulerStats shared_stats;

    // Owned by the stepping thread.
    std::map<uint64_t, std::unique_ptr<SchedSeq>> seqs;
    std::vector<uint64_t> running;  // holding KV blocks, arrival order
    std::deque<uint64_t> waiting;   // arrival order (a preempted sequence goes back in order)
    SchedulerStats st;
    std::thread thread;
    std::vector<std::pair<SchedSeq*, StreamEvent>> events;  // sent after each step
    std::vector<std::unique_ptr<SchedSeq>> finished;        // kept until their events are sent

    // Planned work of one step.
    struct Planned {
        SchedSeq* s;
        int64_t n;          // tokens to compute
        bool spec = false;  // reaches the last token and carries the draft (s->verify)
    };

    Result<bool> step();
    void take_inbox();
    void apply_cancels();
    std::vector<Planned> schedule();
    bool reserve_or_preempt(SchedSeq& s, int64_t n, std::vector<Planned>& plan, int64_t& budget);
    bool admit(SchedSeq& s, int64_t& budget, std::vector<Planned>& plan);
    // How many of a sequence's `rest` uncomputed tokens this step takes (0: none now; -1: its
    // drafter failed and the sequence ended). A speculating sequence's chunk that reaches its
    // last token carries the draft (spec = true, counted in the result).
    int64_t chunk(SchedSeq& s, int64_t rest, int64_t budget, bool& spec);
    void preempt(SchedSeq& s);
    Status execute(const std::vector<Planned>& plan);
    // picked >= 0: the token the device chose (greedy), else sampled from the logits.
    void sample(SchedSeq& s, std::span<const float> logits, int32_t picked = -1);
    // Adds a generated token to the sequence and streams it; says why the sequence ends with
    // it, if it does (the caller finishes it).
    std::optional<StopReason> emit(SchedSeq& s, int32_t tok, std::span<const float> logits = {});
    // Speculative decoding (scheduler_spec.cpp). The draft for the pending token (made now
    // unless kept from before); false when the drafter failed (the sequence was finished).
    bool prepare_draft(SchedSeq& s);
    // Judges the draft against the logits after the last token and each drafted one, commits
    // the sequence's tokens and the kept drafts to the KV cache, releases the rest, and emits
    // the kept drafts and the model's own token.
    void verify_draft(SchedSeq& s, std::span<const float> rows);
    int32_t max_draft = 0;  // drafted tokens one sequence may add to a step
    // JSON-constrained requests: the vocabulary's masks (made at the first such request) and
    // a row of logits to mask.
    std::optional<runtime::JsonTokenMask> json_mask;
    std::vector<float> masked;
    void finish(SchedSeq& s, StopReason reason, std::string error = {});
    void remove(uint64_t id);
    int64_t kv_size(const SchedSeq& s) const {
        return s.kv < 0 ? 0 : static_cast<int64_t>(cache->tokens(s.kv).size());
    }
    void flush_events();
    void publish_stats();
    void fail_all(const std::string& why);
    void run_loop();
};

}  // namespace hearth
