// Plain values that cross the thread boundary between the GUI and the EngineWorker (queued
// signals copy them). No engine types here, so QML-side code needs no engine headers.
#pragma once

#include <QList>
#include <QMetaType>
#include <QString>

namespace hearth::app {

struct EngineConfig {
    QString backend = QStringLiteral("auto");  // auto, cpu, vulkan, cuda
    // Layers on the accelerator, the rest on the CPU: "auto" (as many as fit) or a number.
    QString gpuLayers = QStringLiteral("auto");
    bool forceLoad = false;  // load even when the fit check says the model does not fit
    int contextLength = 0;   // 0: the model's, at most 4096
    // A context longer than the model's training context is kept (else clamped to it); a
    // load option (LoadOptions::ctx_beyond_training).
    bool contextBeyondTraining = false;
    QString kvType = QStringLiteral("f16");  // f16, f32, q8 or q4
    int threads = 0;                         // 0: all
    bool int4Weights = false;                // convert wide weights to 4-bit on load
    QString int4CacheDir;                    // where conversions are kept (empty: default)
    // The KV cache shared by all chats: bytes of memory (0: automatic, a quarter of the free
    // memory, at most eight full contexts, at least two).
    qint64 kvMemoryBytes = 0;
    QString savedContextDir;            // where chats' KV files are kept (empty: not saved)
    qint64 savedContextLimitBytes = 0;  // least recently used files deleted past this; 0: none
    // Speculative decoding: "off", "lookup" (prompt lookup) or "draft" (draftModelPath, a
    // smaller model with the same vocabulary). Takes effect from the next message.
    QString speculative = QStringLiteral("off");
    QString draftModelPath;

    bool sameContext(const EngineConfig& o) const {
        return contextLength == o.contextLength && kvType == o.kvType && threads == o.threads &&
               kvMemoryBytes == o.kvMemoryBytes;
    }
};

struct SamplingConfig {
    double temperature = 0.8;
    int topK = 40;
    double topP = 0.95;
    double minP = 0.05;
    double repeatPenalty = 1.0;
    int maxTokens = 512;
    quint64 seed = 0;  // 0: random
};

struct PromptEntry {
    QString role;  // system, user, assistant
    QString content;
};

struct GenerationRequest {
    qint64 requestId = 0;
    qint64 chatId = 0;
    QList<PromptEntry> messages;  // the conversation to answer, oldest first
    SamplingConfig sampling;
    // Continue: the reply's text so far; the model writes on from its end (empty: a new reply).
    QString continueText;
};

struct GenerationReport {
    qint64 promptTokens = 0;    // the whole rendered conversation
    qint64 reusedTokens = 0;    // of those, taken from the cache (not computed)
    qint64 computedTokens = 0;  // prompt tokens actually evaluated this turn
    qint64 generatedTokens = 0;
    double promptTokensPerSecond = 0;
    double tokensPerSecond = 0;
    double timeToFirstTokenMs = 0;
    qint64 contextUsed = 0;
    qint64 contextSize = 0;
    quint64 tokensComputedTotal = 0;  // forward-pass tokens since the chat's context was made
    qint64 memoryBytes = 0;           // resident memory of the process
    QString stopReason;               // eos, length, stop, context-full, stopped
    qint64 restoredTokens = 0;        // taken from the chat's saved KV file this turn
    qint64 sharedPrefixBlocks = 0;    // blocks of 16 positions adopted from other chats/branches
    QList<int> droppedMessages;       // indices into the request's messages left out (overflow)
    QString kvType;                   // in effect: f16, f32, q8_0, q4_0
    QString backend;                  // in effect: cpu, vulkan, cuda
    qint64 kvMemoryBytes = 0;         // the shared KV cache's memory
    SamplingConfig sampling;          // what the request asked for (global + the chat's own)
    // Speculative decoding in this reply: the drafter ("lookup", "draft model"; empty: off),
    // its drafted and accepted tokens, tokens per target step; speculativeNote says why the
    // setting could not be used (a draft model that failed to load or was refused).
    QString drafter;
    qint64 drafted = 0;
    qint64 accepted = 0;
    double meanAcceptedLength = 0;
    QString speculativeNote;
    // A remote reply whose stream broke after text arrived (stopReason "interrupted"): why.
    QString interruption;
};

}  // namespace hearth::app

Q_DECLARE_METATYPE(hearth::app::EngineConfig)
Q_DECLARE_METATYPE(hearth::app::GenerationRequest)
Q_DECLARE_METATYPE(hearth::app::GenerationReport)
