// The list models under QAbstractItemModelTester, settings persistence and chat export.
#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "app_settings.h"
#include "backend_label.h"
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
    // The badge names the backend and, for an accelerator, its hardware from the engine's
    // device description: the GPU and its memory for CUDA, the device for Vulkan, never the
    // CPU half of a split.
    void backendBadges() {
        QCOMPARE(badgeLabel("cpu", "Intel Xeon · 2 threads"), QStringLiteral("CPU"));
        QCOMPARE(badgeLabel("ref", "reference"), QStringLiteral("Reference device"));
        QCOMPARE(badgeLabel("cuda0",
                            "NVIDIA H200 · 139.8 GiB · sm_90 · 132 SMs · CUDA driver 13.0 + "
                            "Intel Xeon · 2 threads"),
                 QStringLiteral("CUDA · NVIDIA H200 · 139.8 GiB"));
        QCOMPARE(badgeLabel("vulkan0",
                            "llvmpipe (LLVM 15.0.6, 256 bits) · llvmpipe Mesa 22.3.6 · Vulkan 1.3"),
                 QStringLiteral("Vulkan · llvmpipe (LLVM 15.0.6, 256 bits)"));
        QCOMPARE(badgeLabel("cuda0", ""), QStringLiteral("CUDA"));
        QCOMPARE(backendLabel("vulkan2"), QStringLiteral("Vulkan"));
    }

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
        // JSON: every branch (a second, stopped-empty reply is left out), versioned.
        reply.parentId = 1;
        Message empty = message(3, Role::Assistant, "");
        empty.parentId = 1;
        empty.stats.stopReason = "stopped";
        Message other = message(4, Role::Assistant, "Like this.");
        other.parentId = 1;
        chat.selectedLeafId = 4;
        const QList<Message> all = {message(1, Role::User, "How?"), reply, empty, other};
        const QJsonObject json = QJsonDocument::fromJson(chatTreeToJson(chat, all)).object();
        QCOMPARE(json["format"].toString(), QStringLiteral("hearth-chat"));
        QCOMPARE(json["version"].toInt(), 1);
        QCOMPARE(json["title"].toString(), QStringLiteral("Strings"));
        QCOMPARE(json["model"].toString(), QStringLiteral("tiny"));
        const QJsonArray messages = json["messages"].toArray();
        QCOMPARE(messages.size(), 3);
        QCOMPARE(messages[0].toObject()["role"].toString(), QStringLiteral("user"));
        QVERIFY(messages[0].toObject()["parent"].isNull());
        QCOMPARE(messages[1].toObject()["stats"].toObject()["generated_tokens"].toInt(), 4);
        QCOMPARE(messages[2].toObject()["parent"].toInt(), 1);
        QCOMPARE(json["selected"].toInt(), 3);
        for (const auto& m : messages) QVERIFY(!m.toObject()["content"].toString().isEmpty());
        // ... and reads back.
        auto back = parseChatJson(chatTreeToJson(chat, all));
        QVERIFY2(back, back ? "" : back.error_message().c_str());
        QCOMPARE(back->messages.size(), 3);
        QCOMPARE(back->selected, 3);
        QCOMPARE(back->messages[2].content, QStringLiteral("Like this."));
        // Plain text: the branch, one line per speaker.
        const QString text = chatToPlainText(chat, path);
        QVERIFY(text.contains("User: How?\n"));
        QVERIFY(!text.contains("##"));

        QTemporaryDir dir;
        const QString file = dir.filePath("chat.md");
        QCOMPARE(writeChatExport(chat, path, all, file, "markdown"), QString());
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(f.readAll()), md);
        QVERIFY(!writeChatExport(chat, path, all, file, "pdf").isEmpty());
        QVERIFY(!writeChatExport(chat, path, all, dir.filePath("no/such/dir/x.json"), "json")
                     .isEmpty());
    }

    // Bad files are refused with a reason, never half-imported.
    void importRefusesBadFiles() {
        QVERIFY(!parseChatJson("not json"));
        QVERIFY(!parseChatJson("[1,2]"));
        QVERIFY(!parseChatJson(R"({"format":"other","version":1,"messages":[]})"));
        auto newer = parseChatJson(R"({"format":"hearth-chat","version":9,"messages":[]})");
        QVERIFY(!newer);
        QVERIFY(newer.error_message().find("newer") != std::string::npos);
        QVERIFY(!parseChatJson(R"({"format":"hearth-chat","version":1,"messages":[)"
                               R"({"id":1,"parent":5,"role":"user","content":"x"}]})"));
        QVERIFY(!parseChatJson(R"({"format":"hearth-chat","version":1,"messages":[)"
                               R"({"id":1,"parent":null,"role":"robot","content":"x"}]})"));
        // The unversioned export of earlier versions: one branch.
        auto old = parseChatJson(R"({"title":"t","messages":[{"role":"user","content":"a"},)"
                                 R"({"role":"assistant","content":"b"}]})");
        QVERIFY(old);
        QCOMPARE(old->messages.size(), 2);
        QCOMPARE(old->messages[1].parentId, old->messages[0].id);
    }
};

QTEST_GUILESS_MAIN(ChatModelsTest)
#include "chat_models_test.moc"
