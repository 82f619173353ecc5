// ChatController with the engine's load options on the tiny model: INT4 weights, quantized KV
// caches, speculative decoding, a Vulkan device's badge, the context clamp, and a file that is
// not a model.
#include <QDir>
#include <QGuiApplication>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

#include "backend_cache.h"
#include "controller_fixture.h"
#include "hearth/engine.h"
#include "message_model.h"

using hearth::app::ChatController;
using hearth::app::MessageModel;

class ChatEngineOptionsTest : public QObject {
    Q_OBJECT

private slots:
    // With a Vulkan device (lavapipe here, usable by name) the badge names the backend and the
    // hardware: "Vulkan · llvmpipe (LLVM ...)".
    void vulkanBadgeNamesTheDevice() {
        REQUIRE_MODEL();
        bool vulkan = false;
        for (const auto& b : hearth::available_backends())
            vulkan = vulkan || (b.name.rfind("vulkan", 0) == 0 &&
                                (b.reason.empty() || b.reason.rfind("usable when", 0) == 0));
        if (!vulkan) QSKIP("no usable Vulkan device");
        QTemporaryDir dir;
        // What main() does with --data-dir: the pipeline cache goes to the data folder's cache.
        qunsetenv("HEARTH_CACHE_DIR");
        const QString cache = hearth::app::exportBackendCacheDir(dir.path());
        QCOMPARE(cache, QDir(dir.path()).filePath(QStringLiteral("cache")));
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        c->settings()->insert(QStringLiteral("backend"), QStringLiteral("vulkan"));
        c->settings()->insert(QStringLiteral("gpuLayers"), QStringLiteral("all"));
        QVERIFY(hearth::test::loadTinyModel(*c));
        const QString label = c->modelInfo().value("backendLabel").toString();
        QVERIFY2(label.startsWith(QStringLiteral("Vulkan · ")) && label.size() > 9,
                 qPrintable(label));
        QVERIFY2(!label.contains(QStringLiteral(" + ")), qPrintable(label));
        // The device saves its pipeline cache when it goes: in the folder the app handed over.
        c->unloadModel();
        QTRY_VERIFY_WITH_TIMEOUT(
            !QDir(cache)
                 .entryList({QStringLiteral("vulkan-pipelines-*.bin")}, QDir::Files)
                 .isEmpty(),
            30000);
    }

    void int4SwitchConvertsThenReusesTheCache() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        c->settings()->insert(QStringLiteral("int4Weights"), true);
        QStringList phases, texts;
        connect(c.get(), &ChatController::loadProgressChanged, c.get(), [&] {
            if (phases.isEmpty() || phases.last() != c->loadPhase()) phases << c->loadPhase();
            texts << c->loadText();
        });
        QVERIFY(hearth::test::loadTinyModel(*c));
        const QVariantMap info = c->modelInfo();
        QVERIFY(info.value("int4Converted").toBool());
        QVERIFY(!info.value("int4CacheHit").toBool());
        // stories260K's linear layers are F32; the badge's tooltip says what they became.
        QCOMPARE(info.value("int4SourceTypes").toString(), QStringLiteral("F32"));
        QCOMPARE(info.value("weightsTip").toString(), QStringLiteral("4-bit (converted from F32)"));
        QVERIFY2(info.value("weightTypes").toString().contains("Q4_0"),
                 qPrintable(info.value("weightTypes").toString()));
        // The chosen file stays the model's path (recent models, reload); the weights in use
        // are the cached conversion under <data dir>/cache.
        QCOMPARE(info.value("path").toString(), hearth::test::tinyModelPath());
        QVERIFY(info.value("weightsPath").toString().startsWith(c->int4CacheDir()));
        QCOMPARE(c->settings()->value("recentModels").toStringList().value(0),
                 hearth::test::tinyModelPath());
        // The conversion was shown as such before the loading itself.
        QVERIFY2(phases.indexOf("converting") >= 0 &&
                     phases.indexOf("converting") < phases.lastIndexOf("loading"),
                 qPrintable(phases.join(',')));
        QVERIFY2(
            std::any_of(texts.begin(), texts.end(),
                        [](const QString& t) { return t.startsWith("Converting to 4-bit… "); }),
            qPrintable(texts.join(',')));

        QVERIFY(c->send(QStringLiteral("Once upon a time")));
        const QString reason = hearth::test::waitForReply(*c);
        QVERIFY(!reason.isEmpty() && reason != QLatin1String("error"));
        QVERIFY(c->lastReport().generatedTokens > 0);
        QVERIFY(!hearth::test::messageText(*c, 1).isEmpty());

        // Loading again reuses the conversion.
        phases.clear();
        c->reloadModel();
        QTRY_COMPARE_WITH_TIMEOUT(c->modelState(), QStringLiteral("ready"), 30000);
        QVERIFY(c->modelInfo().value("int4Converted").toBool());
        QVERIFY(c->modelInfo().value("int4CacheHit").toBool());
        QVERIFY2(!phases.contains("converting"), qPrintable(phases.join(',')));

        // Clearing the cache reports the bytes it freed: at least the converted file.
        QSignalSpy cleared(c.get(), &ChatController::int4CacheCleared);
        c->clearInt4Cache();
        QVERIFY(cleared.wait(10000) || !cleared.isEmpty());
        const qint64 freed = cleared.first().at(0).toLongLong();
        QVERIFY2(freed >= c->modelInfo().value("fileBytes").toLongLong(),
                 qPrintable(QString::number(freed)));
        QVERIFY(c->int4CacheNote().startsWith(QStringLiteral("Freed ")));
        QVERIFY(QDir(c->int4CacheDir() + "/int4")
                    .entryList(QStringList{"*.gguf"}, QDir::Files)
                    .isEmpty());
        // Nothing is left to free the second time.
        cleared.clear();
        c->clearInt4Cache();
        QVERIFY(cleared.wait(10000) || !cleared.isEmpty());
        QCOMPARE(cleared.first().at(0).toLongLong(), 0);
    }

    void int4OffLoadsTheFileAsItIs() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        QVERIFY(hearth::test::loadTinyModel(*c));
        QVERIFY(!c->modelInfo().value("int4Converted").toBool());
        QVERIFY(!c->modelInfo().contains("weightsTip"));
        QCOMPARE(c->loadPhase(), QStringLiteral("preparing"));
        QCOMPARE(c->loadText(), QStringLiteral("Preparing the weights… 100%"));
        QVERIFY(!QDir(c->int4CacheDir()).exists());
    }

    void quantizedKvCachesGenerate() {
        REQUIRE_MODEL();
        for (const char* kv : {"q8_0", "q4_0"}) {
            QTemporaryDir dir;
            auto c = hearth::test::openController(dir.path());
            QVERIFY(c);
            c->settings()->insert(QStringLiteral("kvType"), QString::fromLatin1(kv));
            QCOMPARE(c->settings()->engineConfig().kvType, QString::fromLatin1(kv));
            QVERIFY(hearth::test::loadTinyModel(*c));
            QVERIFY(c->send(QStringLiteral("Tom had a red ball.")));
            const QString reason = hearth::test::waitForReply(*c);
            QVERIFY2(!reason.isEmpty() && reason != QLatin1String("error"), kv);
            QVERIFY2(c->lastReport().generatedTokens > 0, kv);
            QVERIFY2(!hearth::test::messageText(*c, 1).isEmpty(), kv);
            QVERIFY2(c->notice().isEmpty(), qPrintable(c->notice()));
        }
    }

    // Speculative decoding from the settings: the same greedy reply with prompt lookup and
    // with a draft model (the model itself: every draft accepted), the acceptance in the
    // status; a draft model that cannot be loaded leaves speculation off and says why.
    void speculativeDecodingKeepsTheReplyAndReportsAcceptance() {
        REQUIRE_MODEL();
        const struct {
            const char* mode;
            QString draft;
            const char* drafter;
        } cases[] = {{"off", {}, ""},
                     {"lookup", {}, "lookup"},
                     {"draft", hearth::test::tinyModelPath(), "draft model"},
                     {"draft", QStringLiteral("/nonexistent/draft.gguf"), ""}};
        QString plain;
        for (const auto& k : cases) {
            QTemporaryDir dir;
            auto c = hearth::test::openController(dir.path());
            QVERIFY(c);
            c->settings()->insert(QStringLiteral("maxTokens"), 48);
            c->settings()->insert(QStringLiteral("speculative"), QString::fromLatin1(k.mode));
            c->settings()->insert(QStringLiteral("draftModel"), k.draft);
            QVERIFY(hearth::test::loadTinyModel(*c));
            QVERIFY(c->send(QStringLiteral("Once upon a time")));
            const QString reason = hearth::test::waitForReply(*c);
            QVERIFY2(!reason.isEmpty() && reason != QLatin1String("error"), k.mode);
            const auto r = c->lastReport();
            if (plain.isEmpty()) plain = hearth::test::messageText(*c, 1);
            QCOMPARE(hearth::test::messageText(*c, 1), plain);
            QCOMPARE(r.drafter, QString::fromLatin1(k.drafter));
            if (r.drafter == QLatin1String("draft model")) {
                QVERIFY(r.drafted > 0);
                QCOMPARE(r.accepted, r.drafted);
                QCOMPARE(c->stats().value("acceptance").toDouble(), 1.0);
                QVERIFY(r.meanAcceptedLength > 2.0);
            }
            if (k.draft.startsWith(QLatin1String("/nonexistent")))
                QVERIFY2(r.speculativeNote.contains(QLatin1String("could not be loaded")),
                         qPrintable(r.speculativeNote));
            else
                QVERIFY2(r.speculativeNote.isEmpty(), qPrintable(r.speculativeNote));
        }
    }

    // The context the chats get is the model's training context when the setting asks for more
    // (stories260K: 128 of 2048), and the model info says so and why; "Beyond the training
    // length" keeps the setting after a reload.
    void contextLongerThanTrainingIsClampedAndShown() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        c->settings()->insert(QStringLiteral("contextLength"), 2048);
        c->settings()->insert(QStringLiteral("contextBeyondTraining"), false);
        QVERIFY(hearth::test::loadTinyModel(*c));
        QCOMPARE(c->modelInfo().value("contextLength").toLongLong(), qint64(128));
        const QString note = c->modelInfo().value("contextNote").toString();
        QVERIFY2(note.contains(QLatin1String("trained on 128 tokens")), qPrintable(note));
        QVERIFY2(note.contains(QLatin1String("2048")), qPrintable(note));
        QVERIFY(c->send(QStringLiteral("Once upon a time")));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        QCOMPARE(c->lastReport().contextSize, qint64(128));  // the status line's "context N / 128"

        c->settings()->insert(QStringLiteral("contextBeyondTraining"), true);
        QVERIFY(hearth::test::loadTinyModel(*c));
        QCOMPARE(c->modelInfo().value("contextLength").toLongLong(), qint64(2048));
        const QString beyond = c->modelInfo().value("contextNote").toString();
        QVERIFY2(beyond.contains(QLatin1String("lose coherence")), qPrintable(beyond));
        QVERIFY(c->send(QStringLiteral("Once upon a time")));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        QCOMPARE(c->lastReport().contextSize, qint64(2048));
    }

    void notAModelIsRefusedBeforeLoading() {
        QTemporaryDir dir;
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        QVERIFY(!c->loadModel(QUrl::fromLocalFile(dir.filePath(QStringLiteral("notes.txt")))));
        QVERIFY(c->modelError().contains(QStringLiteral("notes.txt")));
        QCOMPARE(c->modelState(), QStringLiteral("none"));
    }
};

int main(int argc, char** argv) {
    QGuiApplication app(argc, argv);
    ChatEngineOptionsTest test;
    return QTest::qExec(&test, argc, argv);
}
#include "chat_engine_options_test.moc"
