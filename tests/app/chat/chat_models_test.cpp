// The list models under QAbstractItemModelTester, settings persistence and chat export.
#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "app_settings.h"
#include "chat_export.h"
#include "chat_list_model.h"
#include "message_model.h"

using namespace hearth::app;
using hearth::storage::Chat;
using hearth::storage::Message;
using hearth::storage::MessageStatus;
using hearth::storage::Role;

namespace {

Chat chatAt(qint64 id, const QString& title, const QDateTime& updated) {
    Chat c;
    c.id = id;
    c.title = title;
    c.createdAt = updated;
    c.updatedAt = updated;
    return c;
}

Message message(qint64 id, Role role, const QString& text) {
    Message m;
    m.id = id;
    m.role = role;
    m.content = text;
    return m;
}

}  // namespace

class ChatModelsTest : public QObject {
    Q_OBJECT

private slots:
    void chatListGroupsByDate() {
        ChatListModel model;
        QAbstractItemModelTester tester(&model);
        const QDateTime now(QDate(2026, 3, 10), QTime(15, 0));
        model.setClock([now] { return now; });
        model.setChats({chatAt(1, "a", now.addSecs(-60)), chatAt(2, "b", now.addDays(-1)),
                        chatAt(3, "c", now.addDays(-4)), chatAt(4, "d", now.addDays(-30))});
        QCOMPARE(model.rowCount(), 4);
        auto section = [&](int row) {
            return model.data(model.index(row), ChatListModel::SectionRole).toString();
        };
        QCOMPARE(section(0), QStringLiteral("Today"));
        QCOMPARE(section(1), QStringLiteral("Yesterday"));
        QCOMPARE(section(2), QStringLiteral("Previous 7 days"));
        QCOMPARE(section(3), QStringLiteral("Older"));
        QCOMPARE(model.data(model.index(2), ChatListModel::ChatIdRole).toLongLong(), 3);
        QCOMPARE(model.indexOf(4), 3);
        QCOMPARE(model.indexOf(99), -1);
        QCOMPARE(model.titleOf(2), QStringLiteral("b"));
        QVERIFY(!model.data(model.index(0), Qt::UserRole + 99).isValid());
        model.setChats({});
        QCOMPARE(model.rowCount(), 0);
    }

    void messagesStreamAndUpdate() {
        MessageModel model;
        QAbstractItemModelTester tester(&model);
        Message reply = message(2, Role::Assistant, QString());
        reply.status = MessageStatus::Streaming;
        reply.siblingIndex = 1;
        reply.siblingCount = 3;
        model.setMessages({message(1, Role::User, "hi"), reply});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.data(model.index(1), MessageModel::StreamingRole).toBool(), true);
        QCOMPARE(model.data(model.index(1), MessageModel::SiblingIndexRole).toInt(), 1);
        QCOMPARE(model.data(model.index(1), MessageModel::SiblingCountRole).toInt(), 3);
        QCOMPARE(model.data(model.index(0), MessageModel::RoleRole).toString(),
                 QStringLiteral("user"));
        model.appendText(2, "Hel");
        model.appendText(2, "lo");
        model.appendText(99, "ignored");
        QCOMPARE(model.data(model.index(1), MessageModel::ContentRole).toString(),
                 QStringLiteral("Hello"));
        reply.content = QStringLiteral("Hello!");
        reply.status = MessageStatus::Complete;
        reply.stats.generatedTokens = 3;
        reply.stats.tokensPerSecond = 12.5;
        model.updateMessage(reply);
        QCOMPARE(model.data(model.index(1), MessageModel::StreamingRole).toBool(), false);
        QCOMPARE(model.data(model.index(1), MessageModel::StatsRole).toString(),
                 QStringLiteral("3 tokens · 12.5 tok/s"));
        // With the prompt's numbers: reused vs computed, prompt speed and the first token.
        reply.stats.promptTokens = 40;
        reply.stats.reusedTokens = 32;
        reply.stats.computedTokens = 8;
        reply.stats.promptTokensPerSecond = 800.4;
        reply.stats.timeToFirstTokenMs = 412.6;
        model.updateMessage(reply);
        QCOMPARE(model.data(model.index(1), MessageModel::StatsRole).toString(),
                 QStringLiteral("3 tokens · 12.5 tok/s · prompt 40 tokens: 32 reused, 8 computed "
                                "at 800 tok/s · first token 413 ms"));
        QCOMPARE(model.lastAssistantText(), QStringLiteral("Hello!"));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.lastAssistantText(), QString());
    }

    void settingsPersistAndCoerce() {
        QTemporaryDir dir;
        {
            AppSettings s(dir.path());
            QCOMPARE(s.value("backend").toString(), QStringLiteral("auto"));
            QCOMPARE(s.value("contextLength").toInt(), 2048);
            // QML writes go through updateValue.
            QVERIFY(QMetaObject::invokeMethod(&s, "resetToDefaults"));
            s.addRecentModel("/m/a.gguf");
            s.addRecentModel("/m/b.gguf");
            s.addRecentModel("/m/a.gguf");
        }
        {
            AppSettings s(dir.path());
            QCOMPARE(s.value("recentModels").toStringList(),
                     QStringList({"/m/a.gguf", "/m/b.gguf"}));
            s.removeRecentModel("/m/a.gguf");
            QCOMPARE(s.value("recentModels").toStringList(), QStringList({"/m/b.gguf"}));
        }
        QVERIFY(AppSettings::needsReload("backend"));
        QVERIFY(!AppSettings::needsReload("temperature"));
        QVERIFY(AppSettings::needsNewContext("contextLength"));
    }

    void int4AndKvTypeSettingsPersist() {
        QTemporaryDir dir;
        {
            AppSettings s(dir.path());
            QCOMPARE(s.value("int4Weights").toBool(), false);  // off by default
            QCOMPARE(s.engineConfig().int4Weights, false);
            // A QML write (through the meta-object, as the Switch does) is saved at once.
            QVERIFY(s.setProperty("int4Weights", true));
            QVERIFY(s.setProperty("kvType", QStringLiteral("q8_0")));
            QCOMPARE(s.engineConfig().int4Weights, true);
        }
        {
            QSettings raw(AppSettings::filePath(dir.path()), QSettings::IniFormat);
            QCOMPARE(raw.value("int4Weights").toBool(), true);
        }
        {
            AppSettings s(dir.path());
            QCOMPARE(s.value("int4Weights").toBool(), true);
            QCOMPARE(s.engineConfig().int4Weights, true);
            QCOMPARE(s.engineConfig().kvType, QStringLiteral("q8_0"));
            s.resetToDefaults();
            QCOMPARE(s.engineConfig().int4Weights, false);
        }
        // Converting happens while loading, so a change waits for the next load.
        QVERIFY(AppSettings::needsReload("int4Weights"));
        QVERIFY(!AppSettings::needsNewContext("int4Weights"));
    }

    void settingsFileWithGarbageFallsBackToDefaults() {
        QTemporaryDir dir;
        {
            QSettings raw(AppSettings::filePath(dir.path()), QSettings::IniFormat);
            raw.setValue("contextLength", "lots");
            raw.setValue("temperature", "0.25");
        }
        AppSettings s(dir.path());
        QCOMPARE(s.value("temperature").toDouble(), 0.25);
        QCOMPARE(s.engineConfig().contextLength, 2048);  // "lots" is no number: the default
        QCOMPARE(s.samplingConfig().temperature, 0.25);
    }

    void aCorruptSettingsFileIsSetAsideWithAMessage() {
        QTemporaryDir dir;
        const QString file = AppSettings::filePath(dir.path());
        {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray("\xff\xd8\xff\xe0 not an ini file\x00\x01[[[\n=\n", 26));
        }
        {
            AppSettings s(dir.path());
            QVERIFY2(s.loadProblem().contains("could not be read, so the defaults are in use"),
                     qPrintable(s.loadProblem()));
            QVERIFY(s.loadProblem().contains(file + ".bad"));
            QCOMPARE(s.engineConfig().contextLength, 2048);
            QVERIFY(QFile::exists(file + ".bad"));
        }
        AppSettings again(dir.path());
        QVERIFY(again.loadProblem().isEmpty());
    }

    void exportsMarkdownAndJson() {
        Chat chat = chatAt(7, "Strings", QDateTime(QDate(2026, 1, 2), QTime(3, 4), Qt::UTC));
        chat.modelName = "tiny";
        Message reply = message(2, Role::Assistant, "```cpp\nint x;\n```");
        reply.stats.generatedTokens = 4;
        const QList<Message> path = {message(1, Role::User, "How?"), reply};
        const QString md = chatToMarkdown(chat, path);
        QVERIFY(md.startsWith("# Strings\n"));
        QVERIFY(md.contains("## User\n\nHow?\n"));
        QVERIFY(md.contains("## Assistant\n\n```cpp\nint x;\n```\n"));
        const QJsonObject json = QJsonDocument::fromJson(chatToJson(chat, path)).object();
        QCOMPARE(json["title"].toString(), QStringLiteral("Strings"));
        QCOMPARE(json["model"].toString(), QStringLiteral("tiny"));
        const QJsonArray messages = json["messages"].toArray();
        QCOMPARE(messages.size(), 2);
        QCOMPARE(messages[0].toObject()["role"].toString(), QStringLiteral("user"));
        QCOMPARE(messages[1].toObject()["stats"].toObject()["generated_tokens"].toInt(), 4);

        QTemporaryDir dir;
        const QString file = dir.filePath("chat.md");
        QCOMPARE(writeChatExport(chat, path, file, "markdown"), QString());
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(f.readAll()), md);
        QVERIFY(!writeChatExport(chat, path, file, "pdf").isEmpty());
        QVERIFY(!writeChatExport(chat, path, dir.filePath("no/such/dir/x.json"), "json").isEmpty());
    }
};

QTEST_GUILESS_MAIN(ChatModelsTest)
#include "chat_models_test.moc"
