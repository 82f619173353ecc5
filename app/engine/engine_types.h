// Plain values that cross the thread boundary between the GUI and the EngineWorker (queued
// signals copy them). No engine types here, so QML-side code needs no engine headers.
#pragma once

#include <QList>
#include <QMetaType>
#include <QString>

namespace hearth::app {

struct EngineConfig {
    QString backend = QStringLiteral("auto");  // auto, cpu, vulkan, cuda
    int contextLength = 0;                     // 0: the model's, at most 4096
    QString kvType = QStringLiteral("f16");    // f16, f32, q8 or q4
    int threads = 0;                           // 0: all
    bool int4Weights = false;                  // convert wide weights to 4-bit on load
    QString int4CacheDir;                      // where conversions are kept (empty: default)
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
};

}  // namespace hearth::app

Q_DECLARE_METATYPE(hearth::app::EngineConfig)
Q_DECLARE_METATYPE(hearth::app::GenerationRequest)
Q_DECLARE_METATYPE(hearth::app::GenerationReport)
