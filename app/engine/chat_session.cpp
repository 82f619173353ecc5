#include "chat_session.h"

#include <algorithm>

#include "hearth/chat_prompt.h"

namespace hearth::app {

ChatSession::ChatSession(std::shared_ptr<const Model> model, std::unique_ptr<Context> context)
    : m_model(std::move(model)), m_context(std::move(context)) {}

Result<std::unique_ptr<ChatSession>> ChatSession::create(std::shared_ptr<const Model> model,
                                                         const ContextOptions& options) {
    auto context = Context::create(model, options);
    if (!context) return context.status();
    return std::unique_ptr<ChatSession>(new ChatSession(std::move(model), std::move(*context)));
}

Result<PreparedTurn> ChatSession::prepare(const std::vector<SessionMessage>& messages) {
    std::vector<ChatTurn> turns;
    turns.reserve(messages.size());
    for (const SessionMessage& m : messages) turns.push_back({m.role, m.content});
    auto prompt = build_chat_prompt(*m_model, turns, /*add_generation_prompt=*/true);
    if (!prompt) return prompt.status();
    const std::vector<int32_t>& tokens = prompt->tokens;

    PreparedTurn turn;
    turn.promptTokens = static_cast<int64_t>(tokens.size());
    turn.templateNote = prompt->note;
    turn.stopStrings = prompt->stop_strings;
    // Room for at least a short reply.
    const int64_t room = m_context->n_ctx() - turn.promptTokens;
    if (room < 16) {
        return Result<PreparedTurn>::error(
            "the conversation (" + std::to_string(turn.promptTokens) +
            " tokens) no longer fits the context of " + std::to_string(m_context->n_ctx()) +
            " tokens; start a new chat or raise the context length in Settings");
    }

    const auto cached = m_context->tokens();
    size_t common = 0;
    while (common < cached.size() && common < tokens.size() && cached[common] == tokens[common])
        ++common;
    // The last prompt token is always evaluated again so its logits are fresh.
    common = std::min(common, tokens.size() - 1);
    if (Status s = m_context->truncate(static_cast<int64_t>(common)); !s) {
        m_context->reset();
        common = 0;
    }
    turn.reusedTokens = static_cast<int64_t>(common);
    if (Status s = m_context->feed(std::span(tokens).subspan(common)); !s) {
        // A half-fed prompt must not be mistaken for a cached prefix next time.
        m_context->reset();
        return s;
    }
    return turn;
}

Result<GenerateResult> ChatSession::generate(const GenerateOptions& options) {
    return m_context->generate(options);
}

void ChatSession::cancel() {
    m_context->cancel();
}
const GenerationStats& ChatSession::stats() const {
    return m_context->stats();
}
void ChatSession::resetStats() {
    m_context->reset_stats();
}
int64_t ChatSession::contextSize() const {
    return m_context->n_ctx();
}
int64_t ChatSession::tokensInCache() const {
    return m_context->n_past();
}
std::vector<int32_t> ChatSession::cachedTokens() const {
    const auto t = m_context->tokens();
    return {t.begin(), t.end()};
}

}  // namespace hearth::app
