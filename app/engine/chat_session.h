// ChatSession: one conversation's generation state on top of hearth::Context. Each turn the
// whole conversation is rendered with the model's chat template (hearth::build_chat_prompt:
// markup tokenized with special tokens, message text as plain text) and compared with the tokens
// already in the cache; only the part after the common prefix is computed. Kept behind this
// small class so the paged-KV Session of the engine can replace Context later.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hearth/engine.h"
#include "hearth/result.h"

namespace hearth::app {

// One message of the conversation (role: "system", "user", "assistant").
struct SessionMessage {
    std::string role;
    std::string content;
};

struct PreparedTurn {
    int64_t promptTokens = 0;  // the whole rendered conversation
    int64_t reusedTokens = 0;  // of those, already in the cache
    std::string templateNote;  // why a fallback or the system polyfill was used; else empty
    std::vector<std::string> stopStrings;  // turn markers to cut at when the fallback is used
};

class ChatSession {
public:
    static Result<std::unique_ptr<ChatSession>> create(std::shared_ptr<const Model> model,
                                                       const ContextOptions& options);

    // Renders the conversation (ending with a generation prompt) and feeds what is not cached.
    Result<PreparedTurn> prepare(const std::vector<SessionMessage>& messages);
    Result<GenerateResult> generate(const GenerateOptions& options);

    // Thread-safe: stops the current feed or generation before its next step.
    void cancel();

    const GenerationStats& stats() const;
    void resetStats();
    int64_t contextSize() const;
    int64_t tokensInCache() const;
    // The tokens in the cache (the last rendered prompt and what was generated after it).
    std::vector<int32_t> cachedTokens() const;

private:
    ChatSession(std::shared_ptr<const Model> model, std::unique_ptr<Context> context);

    std::shared_ptr<const Model> m_model;
    std::unique_ptr<Context> m_context;
};

}  // namespace hearth::app
