#include "scheduled_chat.h"

#include <algorithm>
#include <random>
#include <string>

namespace hearth::app {

Result<ScheduledPrompt> fitScheduledPrompt(const RenderedChat& chat, int64_t n_ctx,
                                           int64_t reserve) {
    using R = Result<ScheduledPrompt>;
    if (chat.turns.empty()) return R::error("the chat has no messages");
    const int64_t limit = n_ctx - std::clamp<int64_t>(reserve, 0, n_ctx / 2);
    int64_t total = 0, fixed = 0;
    std::vector<size_t> droppable;
    for (size_t i = 0; i < chat.turns.size(); ++i) {
        const auto n = static_cast<int64_t>(chat.turns[i].size());
        total += n;
        if (i < chat.keep || i + 1 == chat.turns.size())
            fixed += n;
        else
            droppable.push_back(i);
    }
    if (fixed > limit)
        return R::error("the last message (" + std::to_string(chat.turns.back().size()) +
                        " tokens) with the kept messages does not fit the context of " +
                        std::to_string(n_ctx) + " tokens with " + std::to_string(n_ctx - limit) +
                        " kept for the reply");
    // Like a Session: once something must go, drop down to a quarter of the context below the
    // limit, so the next turns keep a stable prefix.
    size_t d = 0;
    if (total > limit) {
        const int64_t target = std::max(fixed, limit - n_ctx / 4);
        while (d < droppable.size() && total > target)
            total -= static_cast<int64_t>(chat.turns[droppable[d++]].size());
    }
    ScheduledPrompt out;
    out.tokens.reserve(static_cast<size_t>(total));
    for (size_t i = 0, j = 0; i < chat.turns.size(); ++i) {
        if (j < d && droppable[j] == i) {
            out.droppedMessages.push_back(i);
            ++j;
            continue;
        }
        out.tokens.insert(out.tokens.end(), chat.turns[i].begin(), chat.turns[i].end());
    }
    return out;
}

SamplingParams samplingParams(const SamplingConfig& s) {
    SamplingParams p;
    p.temperature = static_cast<float>(s.temperature);
    p.top_k = s.topK;
    p.top_p = static_cast<float>(s.topP);
    p.min_p = static_cast<float>(s.minP);
    p.repeat_penalty = static_cast<float>(s.repeatPenalty);
    p.seed = s.seed != 0 ? s.seed : std::random_device{}();
    return p;
}

QString stopReasonText(StopReason reason) {
    switch (reason) {
        case StopReason::MaxTokens:
            return QStringLiteral("length");
        case StopReason::EndOfGeneration:
            return QStringLiteral("eos");
        case StopReason::StopString:
            return QStringLiteral("stop");
        case StopReason::ContextFull:
            return QStringLiteral("context-full");
        case StopReason::Cancelled:
            return QStringLiteral("stopped");
    }
    return QStringLiteral("eos");
}

void ScheduledEvents::push(const StreamEvent& e) {
    {
        std::lock_guard lock(m_mu);
        m_events.push_back(e);
    }
    m_cv.notify_one();
}

std::optional<StreamEvent> ScheduledEvents::next(std::chrono::milliseconds wait) {
    std::unique_lock lock(m_mu);
    if (!m_cv.wait_for(lock, wait, [&] { return !m_events.empty(); })) return std::nullopt;
    StreamEvent e = std::move(m_events.front());
    m_events.pop_front();
    return e;
}

}  // namespace hearth::app
