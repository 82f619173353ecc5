// A small driver for the restart tests: one ChatController process on a data folder, one turn.
//   app_chat_driver DATA_DIR MODEL.gguf CHAT_ID TEXT [SETTING=VALUE ...]
// CHAT_ID 0 starts a new chat. Loads the model, opens the chat, sends TEXT, waits for the
// reply and prints the generation report as one JSON line; quitting saves the chat's KV cache
// as the app does. Exit code 0 when the reply finished without an error.
#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>
#include <QUrl>

#include <cstdio>

#include "chat_controller.h"

using hearth::app::ChatController;

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() < 5) {
        std::fprintf(stderr, "usage: app_chat_driver DATA_DIR MODEL CHAT_ID TEXT [K=V ...]\n");
        return 2;
    }
    int rc = 1;
    {
        ChatController c;
        c.setDataDir(args[1]);
        if (!QTest::qWaitFor([&] { return c.ready(); }, 10000)) return 3;
        c.settings()->insert(QStringLiteral("temperature"), 0.0);
        c.settings()->insert(QStringLiteral("maxTokens"), 16);
        c.settings()->insert(QStringLiteral("contextLength"), 1024);
        // Chats over several processes run past the 128 positions stories260K was trained on.
        c.settings()->insert(QStringLiteral("contextBeyondTraining"), true);
        for (qsizetype i = 5; i < args.size(); ++i) {
            const qsizetype eq = args[i].indexOf(QLatin1Char('='));
            if (eq > 0) c.settings()->insert(args[i].left(eq), args[i].mid(eq + 1));
        }
        QSignalSpy loaded(&c, &ChatController::modelLoaded);
        if (!c.loadModel(QUrl::fromLocalFile(args[2])) || (!loaded.wait(30000) && loaded.isEmpty()))
            return 4;
        const qint64 chatId = args[3].toLongLong();
        if (chatId != 0) {
            QSignalSpy opened(&c, &ChatController::chatOpened);
            c.openChat(chatId);
            if (!opened.wait(10000) && opened.isEmpty()) return 5;
        }
        QSignalSpy done(&c, &ChatController::replyFinished);
        if (!c.send(args[4])) return 6;
        if (!done.wait(60000) && done.isEmpty()) return 7;
        const auto r = c.lastReport();
        const QJsonObject out{
            {QStringLiteral("chatId"), c.currentChatId()},
            {QStringLiteral("promptTokens"), r.promptTokens},
            {QStringLiteral("reusedTokens"), r.reusedTokens},
            {QStringLiteral("computedTokens"), r.computedTokens},
            {QStringLiteral("restoredTokens"), r.restoredTokens},
            {QStringLiteral("generatedTokens"), r.generatedTokens},
            {QStringLiteral("stopReason"), r.stopReason},
            {QStringLiteral("kvType"), r.kvType},
        };
        std::printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Compact).constData());
        std::fflush(stdout);
        rc = r.stopReason == QLatin1String("error") ? 8 : 0;
    }  // the controller quits as the app does: chats' KV caches are saved
    return rc;
}
