// Continuous batching: many generation requests on one model at once. Decode reads every
// weight once per step whatever the number of tokens in it, so the scheduler runs all active
// sequences in one batched forward pass per step:
//
//   schedule: decoding sequences first (one token each, so streams stay smooth), then prompt
//             chunks (chunked prefill) up to a token budget per step, then new requests while
//             there is room; each gets KV blocks from one paged cache whose full blocks are
//             shared across requests with the same prefix (copy-on-write at the first
//             differing block).
//   execute:  one forward step over the tokens of every scheduled sequence.
//   update:   sequences whose prompt is done sample their next token (their own sampling
//             parameters), stream its text, and stop at end of generation, a stop string,
//             max tokens, the context end or cancellation.
//
// Speculative decoding per sequence: a request may carry a Drafter (prompt lookup, or any
// other). The step that reaches a sequence's last token (its pending token while decoding, or
// the prompt's last chunk) then also computes the k drafted tokens after it; the step returns
// logits for the last token and each drafted one (only those rows), the sequence keeps the
// drafted tokens the model agrees with (greedy: while they equal its choice; sampling: the
// rejection rule of hearth/speculative.h, with the sequence's own seeded state) plus one token
// of the model's own, and only the kept tokens enter its KV history: the blocks reserved for
// the rejected tail are released, and shared (prefix) blocks are never written (a shared
// partial block is copied before the step). Draft tokens count in the step's budget: each
// sequence may add at most step_tokens / max_running - 1 of them, so every decode with its
// draft always fits one step (a prompt's last chunk waits for room for it), and a draft never
// depends on what else runs. k adapts to the sequence's own acceptance rate (not to step
// timings, which other sequences share), so a seeded request gives the same tokens alone or
// batched (and after a preemption, with an F32 KV cache: recomputed positions may differ in
// their last bits, which F16 or quantized KV rounding can turn into another draw).
//
// When KV blocks run out, the newest running sequence is preempted: its blocks are freed and
// it waits to be recomputed (prompt + what it generated, with the same sampler state), so the
// tokens it produces do not change. A full waiting queue refuses new requests.
//
// Threading: submit(), cancel() and stats() may be called from any thread. step() runs on one
// thread at a time: either the caller drives it, or start() runs it on a thread of its own.
// Event callbacks run on the thread that runs step(); keep them short.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hearth/engine.h"
#include "hearth/json_schema.h"
#include "hearth/result.h"
#include "hearth/speculative.h"

namespace hearth {

struct SchedulerOptions {
    int n_threads = 0;  // 0: all hardware threads
    // Positions per sequence: 0 is the model's training context; longer is clamped to it unless
    // the model was loaded with ctx_beyond_training (resolve_context_length).
    int64_t n_ctx = 0;
    KvType kv_type = KvType::F16;
    int32_t max_running = 8;    // sequences in one step (the server's --parallel)
    int64_t step_tokens = 256;  // token budget of one step (decode tokens + prompt chunks)
    // Requests that may wait beyond the free running slots; more are refused (QueueFull).
    int32_t max_queued = 64;
    // Device memory for the KV blocks of all sequences; 0: max_running full contexts.
    uint64_t kv_budget_bytes = 0;
};

struct RequestUsage {
    int64_t prompt_tokens = 0;
    int64_t cached_tokens = 0;  // prompt tokens taken from the prefix cache at admission
    int64_t completion_tokens = 0;
    int32_t preemptions = 0;
    double queue_seconds = 0;  // from submit() to the first step that ran it
    double ttft_seconds = 0;   // from submit() to the first generated token
    double total_seconds = 0;
    // Speculative decoding (requests with a drafter): tokens drafted, those the model kept,
    // and verification steps.
    int64_t draft_tokens = 0;
    int64_t draft_accepted = 0;
    int64_t draft_steps = 0;
};

// A token and its log-probability under the model.
struct TokenLogprob {
    int32_t token = -1;
    float logprob = 0.f;
};
inline constexpr int32_t kMaxTopLogprobs = 20;  // OpenAI's limit for top_logprobs

// What a request's callback receives: one event per generated token (with the text it
// completes, possibly empty while a UTF-8 character or a possible stop string is incomplete),
// then one last event with done = true.
struct StreamEvent {
    uint64_t request = 0;
    int32_t token = -1;  // -1: the event carries only text (the held-back tail) or only done
    std::string text;
    // Token events of a request with logprobs >= 0: the token's log-probability and the
    // request's number of most likely tokens, most likely first (equal logits: lower id first).
    bool has_logprob = false;
    float logprob = 0.f;
    std::vector<TokenLogprob> top_logprobs;
    bool done = false;
    StopReason reason = StopReason::MaxTokens;  // when done
    std::string error;                          // when done: why the request failed, if it did
    RequestUsage usage;                         // when done
};

struct GenerationRequest {
    std::vector<int32_t> prompt;  // BOS included when wanted; not empty
    int32_t max_tokens = 256;     // > 0
    SamplingParams sampling;
    std::vector<std::string> stop_strings;  // text is cut before the first match
    bool stop_at_end_of_generation = true;
    CancelToken cancel;  // may be null; cancel(id) works too
    // OpenAI's logprobs: -1 none; 0 to kMaxTopLogprobs: each token event carries the token's
    // log-probability and this many most likely tokens with theirs. They are the model's own
    // distribution (log-softmax of its logits, before temperature, penalties or any other sampling
    // step), and the request then reads its logits back every step (no on-device greedy pick).
    int32_t logprobs = -1;
    std::function<void(const StreamEvent&)> on_event;
    // Speculative decoding for this request (null: off). One drafter per request: it keeps the
    // request's adaptation state; only the stepping thread calls it. Not used with a format
    // other than Text (the request decodes one token a step).
    std::shared_ptr<Drafter> drafter;
    OutputFormat format = OutputFormat::Text;
    std::shared_ptr<const hearth::JsonSchema> json_schema;  // OutputFormat::JsonSchema
    // The reply's text before the generated tokens (a continued message): with JsonObject, the
    // object starts there, so it must be the start of one (submit refuses it otherwise).
    std::string reply_prefix;
};

enum class SubmitError { None, Invalid, QueueFull, Stopped };

struct SubmitResult {
    uint64_t id = 0;  // > 0 when accepted
    SubmitError error = SubmitError::None;
    std::string message;
    bool ok() const { return error == SubmitError::None; }
};

struct SchedulerStats {
    int32_t running = 0;  // sequences holding KV blocks
    int32_t waiting = 0;  // queued or preempted
    uint64_t steps = 0;
    uint64_t tokens_computed = 0;  // forward-pass tokens
    uint64_t tokens_generated = 0;
    uint64_t preemptions = 0;
    uint64_t requests_done = 0;
    uint64_t requests_cancelled = 0;  // ended by cancel(), their token or a disconnect
    int32_t kv_blocks = 0;
    int32_t kv_blocks_free = 0;
    uint64_t prefix_hit_blocks = 0;
    // Speculative decoding over all requests: drafted tokens, those kept, and the decode
    // steps of sequences with a draft.
    uint64_t draft_tokens = 0;
    uint64_t draft_accepted = 0;
    uint64_t draft_steps = 0;
};

class Scheduler {
public:
    static Result<std::unique_ptr<Scheduler>> create(std::shared_ptr<const Model> model,
                                                     const SchedulerOptions& options = {});
    ~Scheduler();  // stops the thread; requests still open end with an error event
    Scheduler(const Scheduler&) = delete;
    Scheduler& operator=(const Scheduler&) = delete;

    const Model& model() const;
    int64_t n_ctx() const;
    const SchedulerOptions& options() const;
    // The most drafted tokens one decoding sequence adds to a step: step_tokens / max_running
    // - 1 (0: speculation has no room and requests decode one token a step).
    int32_t max_draft_tokens() const;

    // Queues a request. Refused (with the reason) when the prompt is empty, has ids outside
    // the vocabulary or does not fit the context, when max_tokens <= 0, when the waiting
    // queue is full, or after stop().
    SubmitResult submit(GenerationRequest request);
    // Ends a request at the next step (its last event says Cancelled); its blocks are freed.
    void cancel(uint64_t id);

    // One schedule -> execute -> update iteration. Returns false when there was nothing to do.
    Result<bool> step();
    // Runs step() on a thread of its own until stop(); it sleeps while there is no work.
    void start();
    // Stops the thread (if started) and ends every open request with an error event.
    void stop();

    SchedulerStats stats() const;
    // Checks the KV block bookkeeping (tests).
    Status check() const;

    struct Impl;

private:
    explicit Scheduler(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace hearth
