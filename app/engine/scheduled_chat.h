// A chat turn on the local API server's Scheduler. While the server is on, the app's chats are
// requests of the same scheduler as the API clients: each step decodes the chat's next token in
// the same batched forward pass as theirs, so a chat keeps streaming while a client generates
// (and neither waits for the other's whole reply). The chat's history is found again in the
// scheduler's prefix cache (full blocks of earlier turns stay cached after a request ends), so
// a follow-up computes only what is new while those blocks were not needed for other requests.
// With the server off, chats run on their own Session (saved contexts, speculative decoding).
#pragma once

#include <QString>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

#include "chat_session.h"
#include "engine_types.h"
#include "hearth/result.h"
#include "hearth/scheduler.h"

namespace hearth::app {

struct ScheduledPrompt {
    std::vector<int32_t> tokens;
    std::vector<size_t> droppedMessages;  // oldest droppable messages left out to fit
};

// The rendered chat as one prompt of at most n_ctx - reserve tokens: when it is longer, the
// oldest messages after the kept ones (system prompt) are left out, never the last one, as a
// Session does. Fails when the kept messages and the last one alone do not fit.
Result<ScheduledPrompt> fitScheduledPrompt(const RenderedChat& chat, int64_t n_ctx,
                                           int64_t reserve);

// The chat's sampling settings for the engine (a seed of 0 becomes a random one).
SamplingParams samplingParams(const SamplingConfig& s);

// The reply's stop reason as the GUI names it: eos, length, stop, context-full, stopped.
QString stopReasonText(StopReason reason);

// The events of one request, from the scheduler's thread to the thread that waits for them.
class ScheduledEvents {
public:
    void push(const StreamEvent& e);
    // The next event, or nullopt after `wait` without one.
    std::optional<StreamEvent> next(std::chrono::milliseconds wait);

private:
    std::mutex m_mu;
    std::condition_variable m_cv;
    std::deque<StreamEvent> m_events;
};

}  // namespace hearth::app
