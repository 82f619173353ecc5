// Stateful conversations on a paged KV cache. A KvStore is the paged cache of one model,
// shared by its sessions: any full block of 16 positions computed by one session (a system
// prompt, an earlier turn, a branch) is reused by any other whose token history up to the end
// of that block is identical. A Session is one conversation: give it the whole rendered chat
// each turn (as turns, so it can drop whole turns when the context overflows) and it computes
// only the tokens that are not cached yet.
//
// Threading: a KvStore and all its sessions are used by one thread at a time (cancel() may be
// called from any thread).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "hearth/engine.h"
#include "hearth/result.h"

namespace hearth {

class Drafter;  // hearth/speculative.h

struct KvStoreOptions {
    KvType kv_type = KvType::F16;
    int64_t n_ctx = 0;          // positions per session; 0 and the clamp as ContextOptions::n_ctx
    uint64_t budget_bytes = 0;  // device memory for all blocks; 0: two full contexts
};

struct KvStoreStats {
    int32_t n_blocks = 0;
    int32_t n_free = 0;    // not used by any session (empty or cached)
    int32_t n_cached = 0;  // not used but kept for prefix reuse (evicted LRU first)
    uint64_t evictions = 0;
    uint64_t prefix_hit_blocks = 0;
    uint64_t cow_copies = 0;
    uint64_t partial_hits = 0;  // a cached block's leading cells copied (prefix ends mid-block)
    uint64_t bytes = 0;         // device memory of the pool
    uint64_t block_bytes = 0;   // one block (16 positions, K and V of every layer)
};

class KvStore {
public:
    static Result<std::shared_ptr<KvStore>> create(std::shared_ptr<const Model> model,
                                                   const KvStoreOptions& options = {});
    ~KvStore();
    KvStore(const KvStore&) = delete;
    KvStore& operator=(const KvStore&) = delete;

    int64_t n_ctx() const;
    KvType kv_type() const;
    // The model file's identity as KV files record it (size and sampled hash of its bytes):
    // callers key saved chats by it.
    const std::string& model_identity() const;
    KvStoreStats stats() const;
    // Checks the block bookkeeping (free list, reference counts); for tests.
    Status check() const;

    struct Impl;

private:
    friend class Session;
    explicit KvStore(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// One message of the rendered chat, as tokens (template text included).
struct Turn {
    std::span<const int32_t> tokens;
    bool keep = false;  // never dropped on overflow (the system prompt)
};

struct PrefillReport {
    int64_t n_tokens = 0;               // in the sequence now
    int64_t n_reused = 0;               // taken from the cache
    int64_t n_computed = 0;             // run through the forward pass by this call
    std::vector<size_t> dropped_turns;  // indices of turns left out to fit the context
    int64_t dropped_tokens = 0;
};

struct SessionOptions {
    int n_threads = 0;      // 0: all hardware threads
    int64_t n_batch = 256;  // most prompt tokens per forward step
    // On overflow, turns are dropped until the chat fits with this many positions left for
    // the reply; a drop then frees a quarter of the context more, so it does not recur (and
    // recompute everything) every turn.
    int64_t reply_reserve = 256;
};

class Session {
public:
    static Result<std::unique_ptr<Session>> create(std::shared_ptr<KvStore> store,
                                                   const SessionOptions& options = {});
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    // Makes the sequence the concatenation of the turns, reusing the longest cached prefix
    // and computing the rest. When the chat does not fit, the oldest turns that are not
    // `keep` are dropped (never the last one, never half a turn) and the report says which.
    // A last turn that cannot fit even alone with the kept turns is an error.
    Result<PrefillReport> prefill(std::span<const Turn> turns);
    // The same for one flat token sequence (no dropping).
    Result<PrefillReport> prefill(std::span<const int32_t> tokens);
    // Evaluates tokens after the current sequence.
    Status append(std::span<const int32_t> tokens);

    // Samples after the last token; every generated token but the last is appended to the
    // sequence (the next prefill matches them against the rendered reply).
    Result<GenerateResult> generate(const GenerateOptions& options);
    // Speculative decoding (hearth/speculative.h): the same, with each step verifying the
    // drafter's proposal in one forward pass. Greedy output is generate()'s; sampled output
    // has the same distribution. The drafter's stats() count the drafts and acceptances.
    Result<GenerateResult> generate(const GenerateOptions& options, Drafter& drafter);
    // Its two primitives. evaluate: runs tokens after the sequence in one step and returns
    // the logits after each ([tokens.size() * n_vocab], valid until the next call).
    Result<std::span<const float>> evaluate(std::span<const int32_t> tokens);
    // rollback: keeps the first n tokens (blocks past them are released, a partly filled one
    // is cut); `logits` (those after token n - 1, from evaluate) become the session's.
    Status rollback(int64_t n, std::span<const float> logits);

    // A new session on the same store sharing the first n tokens (copy-on-write): editing or
    // regenerating turn k forks at its start.
    Result<std::unique_ptr<Session>> fork(int64_t n_tokens) const;

    std::span<const int32_t> tokens() const;
    std::span<const float> logits() const;  // after the last token; empty before any
    int64_t n_ctx() const;
    uint64_t tokens_computed() const;  // forward-pass tokens since creation
    const GenerationStats& stats() const;
    // Stops the call in progress (a call that starts later clears it first); thread-safe.
    void cancel();
    // The token of the requests from now on: prefill, append, generate and restore stop
    // before their next step once it is set, also when it was set before they began. The
    // engine only reads it, never clears it; a new request brings a new token (nullptr: none).
    void set_cancel_token(CancelToken token);
    void clear();

    // Saves the sequence's KV blocks with the model identity, KV type and token ids.
    Status save(const std::filesystem::path& path) const;
    // Replaces the sequence with a saved one (recomputing only its last token, for logits).
    // A file for another model or KV type, or a damaged one, is refused and leaves the
    // session empty: prefill() then recomputes.
    Result<int64_t> restore(const std::filesystem::path& path);

    struct Impl;

private:
    explicit Session(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace hearth
