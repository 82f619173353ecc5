// The hand-off between the scheduler thread (which produces a request's events) and the HTTP
// thread that writes them: a small locked queue. The HTTP side waits with a timeout so it can
// notice a client that went away while nothing was generated.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>

#include "hearth/scheduler.h"

namespace hearth::server {

class RequestStream {
public:
    // For GenerationRequest::on_event (called on the scheduler thread).
    void push(const StreamEvent& e);
    // The next event, or nullopt after `wait` without one.
    std::optional<StreamEvent> next(std::chrono::milliseconds wait);
    // Every event queued now (waiting up to `wait` for the first): a writer that fell behind
    // sends them in one write.
    std::deque<StreamEvent> take_all(std::chrono::milliseconds wait);

private:
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<StreamEvent> events_;
};

}  // namespace hearth::server
