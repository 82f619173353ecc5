// ChatSession: one conversation on the engine's paged KV cache (hearth::Session on a KvStore
// shared by every chat of the model). Each turn the whole conversation is rendered with the
// model's chat template (markup tokenized with special tokens, message text as plain text),
// split at message boundaries, and handed to the Session, which reuses the longest computed
// prefix (this chat's, or any chat's with the same history: a shared system prompt, the branch
// an edit forked from) and computes only the rest. When the chat outgrows the context the
// oldest whole messages are left out (the system prompt never).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "hearth/engine.h"
#include "hearth/result.h"
#include "hearth/session.h"
#include "hearth/speculative.h"

namespace hearth::app {

// One message of the conversation (role: "system", "user", "assistant").
struct SessionMessage {
    std::string role;
    std::string content;
};

// The conversation as tokens, cut where each message begins.
struct RenderedChat {
    std::vector<std::vector<int32_t>> turns;  // one per message; the last ends with the prompt
    int64_t n_tokens = 0;
    // Leading messages never dropped on overflow: the system prompt (and the first user
    // message when the template merged the two).
    size_t keep = 0;
    std::string templateNote;  // why a fallback or the system polyfill was used; else empty
    std::vector<std::string> stopStrings;  // turn markers to cut at when the fallback is used
};

struct PreparedTurn {
    int64_t promptTokens = 0;             // the rendered conversation the model sees (after drops)
    int64_t reusedTokens = 0;             // of those, already in the cache
    int64_t computedTokens = 0;           // run through the model by this call
    std::vector<size_t> droppedMessages;  // indices of messages left out to fit the context
    std::string templateNote;
    std::vector<std::string> stopStrings;
};

class ChatSession {
public:
    static Result<std::unique_ptr<ChatSession>> create(std::shared_ptr<const Model> model,
                                                       std::shared_ptr<KvStore> store,
                                                       const SessionOptions& options);

    static Result<RenderedChat> render(const Model& model,
                                       const std::vector<SessionMessage>& messages);

    // Renders the conversation (ending with a generation prompt) and computes what is not
    // cached. Stopped by the token: the positions computed so far stay (the next turn reuses
    // them) and the error says "cancelled".
    Result<PreparedTurn> prepare(const std::vector<SessionMessage>& messages,
                                 const CancelToken& cancel);
    Result<PreparedTurn> prefill(const RenderedChat& chat, const CancelToken& cancel);
    // With a drafter: speculative decoding (the same reply; the drafter counts acceptances).
    Result<GenerateResult> generate(const GenerateOptions& options, const CancelToken& cancel,
                                    Drafter* drafter = nullptr);

    const GenerationStats& stats() const { return m_stats; }
    void resetStats();
    int64_t contextSize() const;
    int64_t tokensInCache() const;
    std::vector<int32_t> cachedTokens() const;

    // KV files (hearth::Session::save/restore: model identity, KV type, checksum). A refused
    // file leaves the session empty.
    Status save(const std::filesystem::path& path) const;
    Result<int64_t> restore(const std::filesystem::path& path, const CancelToken& cancel);

private:
    ChatSession(std::shared_ptr<const Model> model, std::unique_ptr<Session> session);
    void takeStats();

    std::shared_ptr<const Model> m_model;
    std::unique_ptr<Session> m_session;
    GenerationStats m_stats;  // since resetStats()
    GenerationStats m_base;   // the session's stats at resetStats()
};

}  // namespace hearth::app
