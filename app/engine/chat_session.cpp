#include "chat_session.h"

#include <algorithm>

#include "chat/render_chat.h"

namespace hearth::app {

namespace {

// Turn markers of the built-in formats. A model without its own template may write them as
// plain text; the reply is cut there instead of running into an invented next turn.
const std::vector<std::string>& fallbackStopStrings() {
    static const std::vector<std::string> stops = {
        "<|im_end|>", "<|im_start|>", "<|eot_id|>", "<|start_header_id|>", "</s>", "<end_of_turn>",
        "<|end|>",    "<|user|>",     "[INST]"};
    return stops;
}

}  // namespace

ChatSession::ChatSession(std::shared_ptr<const Model> model, std::unique_ptr<Context> context)
    : m_model(std::move(model)), m_context(std::move(context)) {}

Result<std::unique_ptr<ChatSession>> ChatSession::create(std::shared_ptr<const Model> model,
                                                         const ContextOptions& options) {
    auto context = Context::create(model, options);
    if (!context) return context.status();
    return std::unique_ptr<ChatSession>(new ChatSession(std::move(model), std::move(*context)));
}

Result<std::vector<int32_t>> ChatSession::tokenizePrompt(const Model& model,
                                                         const chat::RenderedPrompt& prompt) {
    // BOS (by the model's convention) once at the start; the template gets no bos_token text.
    auto out = model.tokenize("", true, false);
    if (!out) return out.status();
    std::vector<int32_t> tokens = std::move(*out);
    for (const auto& segment : prompt.segments) {
        if (segment.text.empty()) continue;
        auto piece = model.tokenize(segment.text, false, !segment.from_input);
        if (!piece) return piece.status();
        tokens.insert(tokens.end(), piece->begin(), piece->end());
    }
    return tokens;
}

Result<PreparedTurn> ChatSession::prepare(const std::vector<SessionMessage>& messages) {
    chat::ChatInputs inputs;
    for (const SessionMessage& m : messages) inputs.messages.push_back({m.role, m.content, {}});
    inputs.add_generation_prompt = true;
    const chat::ChatRenderResult rendered = chat::render_chat(m_model->chat_template(), inputs);
    auto tokens = tokenizePrompt(*m_model, rendered.prompt);
    if (!tokens) return tokens.status();

    PreparedTurn turn;
    turn.promptTokens = static_cast<int64_t>(tokens->size());
    turn.templateNote = rendered.note;
    if (rendered.format != chat::ChatFormat::Template) turn.stopStrings = fallbackStopStrings();
    if (tokens->empty()) return Result<PreparedTurn>::error("the conversation rendered empty");
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
    while (common < cached.size() && common < tokens->size() && cached[common] == (*tokens)[common])
        ++common;
    // The last prompt token is always evaluated again so its logits are fresh.
    common = std::min(common, tokens->size() - 1);
    if (Status s = m_context->truncate(static_cast<int64_t>(common)); !s) {
        m_context->reset();
        common = 0;
    }
    turn.reusedTokens = static_cast<int64_t>(common);
    if (Status s = m_context->feed(std::span(*tokens).subspan(common)); !s) {
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
