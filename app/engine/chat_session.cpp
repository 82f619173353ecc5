#include "chat_session.h"

#include <algorithm>

#include "hearth/chat_prompt.h"

namespace hearth::app {

ChatSession::ChatSession(std::shared_ptr<const Model> model, std::unique_ptr<Session> session)
    : m_model(std::move(model)), m_session(std::move(session)) {}

Result<std::unique_ptr<ChatSession>> ChatSession::create(std::shared_ptr<const Model> model,
                                                         std::shared_ptr<KvStore> store,
                                                         const SessionOptions& options) {
    auto session = Session::create(std::move(store), options);
    if (!session) return session.status();
    return std::unique_ptr<ChatSession>(new ChatSession(std::move(model), std::move(*session)));
}

Result<RenderedChat> ChatSession::render(const Model& model,
                                         const std::vector<SessionMessage>& messages) {
    std::vector<ChatTurn> turns;
    turns.reserve(messages.size());
    for (const SessionMessage& m : messages) turns.push_back({m.role, m.content});
    auto full = build_chat_prompt(model, turns, /*add_generation_prompt=*/true);
    if (!full) return full.status();
    const std::vector<int32_t>& all = full->tokens;
    // Where message i ends: the common prefix of the whole prompt with the rendering of the
    // messages up to i. Templates render earlier messages the same whatever follows, so this
    // is the message boundary; where one does not, the cut is earlier, which only makes that
    // message's slice longer (slices always cover the prompt in order).
    std::vector<size_t> ends;
    size_t prev = 0;
    for (size_t i = 0; i + 1 < turns.size(); ++i) {
        size_t end = prev;
        auto part = build_chat_prompt(model, std::span(turns).first(i + 1), false);
        if (part && part->format == full->format) {
            const auto& t = part->tokens;
            const auto mis = std::mismatch(all.begin(), all.end(), t.begin(), t.end());
            end = std::max(prev, static_cast<size_t>(mis.first - all.begin()));
        }
        ends.push_back(end);
        prev = end;
    }
    ends.push_back(all.size());
    RenderedChat chat;
    size_t begin = 0;
    for (size_t end : ends) {
        chat.turns.emplace_back(all.begin() + static_cast<std::ptrdiff_t>(begin),
                                all.begin() + static_cast<std::ptrdiff_t>(end));
        begin = end;
    }
    chat.n_tokens = static_cast<int64_t>(all.size());
    if (!messages.empty() && messages.front().role == "system")
        chat.keep = full->system_merged ? 2 : 1;
    chat.templateNote = full->note;
    chat.stopStrings = full->stop_strings;
    return chat;
}

Result<PreparedTurn> ChatSession::prepare(const std::vector<SessionMessage>& messages,
                                          const CancelToken& cancel) {
    auto chat = render(*m_model, messages);
    if (!chat) return chat.status();
    return prefill(*chat, cancel);
}

Result<PreparedTurn> ChatSession::prefill(const RenderedChat& chat, const CancelToken& cancel) {
    std::vector<Turn> turns;
    turns.reserve(chat.turns.size());
    for (size_t i = 0; i < chat.turns.size(); ++i)
        turns.push_back({chat.turns[i], /*keep=*/i < chat.keep});
    m_session->set_cancel_token(cancel);
    const uint64_t before = m_session->tokens_computed();
    auto rep = m_session->prefill(turns);
    takeStats();
    PreparedTurn turn;
    turn.templateNote = chat.templateNote;
    turn.stopStrings = chat.stopStrings;
    turn.computedTokens = static_cast<int64_t>(m_session->tokens_computed() - before);
    if (!rep) return rep.status();
    turn.promptTokens = rep->n_tokens;
    turn.reusedTokens = rep->n_reused;
    turn.droppedMessages = rep->dropped_turns;
    return turn;
}

Result<GenerateResult> ChatSession::generate(const GenerateOptions& options,
                                             const CancelToken& cancel, Drafter* drafter) {
    m_session->set_cancel_token(cancel);
    auto r = drafter ? m_session->generate(options, *drafter) : m_session->generate(options);
    takeStats();
    return r;
}

void ChatSession::takeStats() {
    const GenerationStats& s = m_session->stats();
    m_stats.prompt_tokens = s.prompt_tokens - m_base.prompt_tokens;
    m_stats.generated_tokens = s.generated_tokens - m_base.generated_tokens;
    m_stats.prompt_seconds = s.prompt_seconds - m_base.prompt_seconds;
    m_stats.generate_seconds = s.generate_seconds - m_base.generate_seconds;
    m_stats.time_to_first_token = s.time_to_first_token;
    m_stats.tokens_computed = m_session->tokens_computed();
}

void ChatSession::resetStats() {
    m_base = m_session->stats();
    m_stats = GenerationStats{};
    m_stats.tokens_computed = m_session->tokens_computed();
}
int64_t ChatSession::contextSize() const {
    return m_session->n_ctx();
}
int64_t ChatSession::tokensInCache() const {
    return static_cast<int64_t>(m_session->tokens().size());
}
std::vector<int32_t> ChatSession::cachedTokens() const {
    const auto t = m_session->tokens();
    return {t.begin(), t.end()};
}

Status ChatSession::save(const std::filesystem::path& path) const {
    return m_session->save(path);
}

Result<int64_t> ChatSession::restore(const std::filesystem::path& path, const CancelToken& cancel) {
    m_session->set_cancel_token(cancel);
    return m_session->restore(path);
}

}  // namespace hearth::app
