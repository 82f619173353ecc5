// Helpers for the controller tests: a ChatController on a temporary data dir with the real
// engine and the tiny real model (stories260K), greedy sampling and short replies.
#pragma once

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <memory>

#include "chat_controller.h"
#include "message_model.h"
#include "test_data.h"

// Skips the calling test function when the tiny model is not in ../shared.
#define REQUIRE_MODEL()                          \
    if (hearth::test::tinyModelPath().isEmpty()) \
    QSKIP("../shared/models/stories260K.gguf not found (set HEARTH_SHARED_DIR)")

namespace hearth::test {

inline QString tinyModelPath() {
    auto p = shared_file("models/stories260K.gguf");
    return p ? QString::fromStdString(p->string()) : QString();
}

// The text of the visible message at row.
inline QString messageText(const hearth::app::ChatController& c, int row) {
    return c.messages()
        ->data(c.messages()->index(row), hearth::app::MessageModel::ContentRole)
        .toString();
}

// Makes a controller on dataDir and waits until its history is open.
inline std::unique_ptr<hearth::app::ChatController> openController(const QString& dataDir) {
    auto c = std::make_unique<hearth::app::ChatController>();
    c->setDataDir(dataDir);
    if (!QTest::qWaitFor([&] { return c->ready(); }, 10000)) return nullptr;
    c->settings()->insert(QStringLiteral("temperature"), 0.0);
    c->settings()->insert(QStringLiteral("maxTokens"), 24);
    c->settings()->insert(QStringLiteral("contextLength"), 512);
    // Multi-turn chats past the 128 positions stories260K was trained on: allowed explicitly
    // (the app clamps to the training context by default).
    c->settings()->insert(QStringLiteral("contextBeyondTraining"), true);
    return c;
}

inline bool loadTinyModel(hearth::app::ChatController& c) {
    QSignalSpy loaded(&c, &hearth::app::ChatController::modelLoaded);
    if (!c.loadModel(QUrl::fromLocalFile(tinyModelPath()))) return false;
    return loaded.wait(30000) || loaded.count() > 0;
}

// Waits for the reply in flight to finish; returns its stop reason (empty on timeout).
inline QString waitForReply(hearth::app::ChatController& c) {
    QSignalSpy done(&c, &hearth::app::ChatController::replyFinished);
    if (!done.wait(60000) && done.isEmpty()) return {};
    return done.first().at(1).toString();
}

}  // namespace hearth::test
