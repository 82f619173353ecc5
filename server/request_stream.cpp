#include "request_stream.h"

namespace hearth::server {

void RequestStream::push(const StreamEvent& e) {
    {
        std::lock_guard lock(mu_);
        events_.push_back(e);
    }
    cv_.notify_one();
}

std::optional<StreamEvent> RequestStream::next(std::chrono::milliseconds wait) {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, wait, [&] { return !events_.empty(); })) return std::nullopt;
    StreamEvent e = std::move(events_.front());
    events_.pop_front();
    return e;
}

std::deque<StreamEvent> RequestStream::take_all(std::chrono::milliseconds wait) {
    std::deque<StreamEvent> out;
    std::unique_lock lock(mu_);
    if (cv_.wait_for(lock, wait, [&] { return !events_.empty(); })) out.swap(events_);
    return out;
}

}  // namespace hearth::server
