// The window with a model on a server: the model library lists it beside the local files,
// marked remote with its host; the Servers dialog shows the connection; a reply with reasoning
// (vLLM's reasoning_content, replayed) shows its folded thinking block; Settings hides the
// local-only settings. Screenshots go to <build>/tests/app/remote/screenshots/remote.
#include <QDir>
#include <QGuiApplication>
#include <QImage>
#include <QQmlApplicationEngine>
#include <QQmlExtensionPlugin>
#include <QQuickItem>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

#include "app_info.h"
#include "main_window.h"
#include "remote_fixture.h"

Q_IMPORT_QML_PLUGIN(HearthPlugin)

using hearth::app::ChatController;
using namespace hearth::test;

class RemoteUiTest : public QObject {
    Q_OBJECT

    void shoot(QQuickWindow* window, const QString& name) {
        QTest::qWait(350);  // popups finish opening, colours settle
        const QImage shot = window->grabWindow();
        QVERIFY(!shot.isNull());
        const QString file = m_shots + QLatin1Char('/') + name + QStringLiteral(".png");
        QVERIFY2(shot.save(file), qPrintable(file));
    }

private slots:
    void initTestCase() {
        QQuickStyle::setStyle(QStringLiteral("Basic"));
        QVERIFY(m_dataDir.isValid());
        m_appInfo = std::make_unique<AppInfo>(m_dataDir.path());
        hearth::app::registerQmlTypes(m_appInfo.get());
        m_shots = QCoreApplication::applicationDirPath() + QStringLiteral("/screenshots/remote");
        QVERIFY(QDir().mkpath(m_shots));
    }

    void remoteModelInPickerAndConnectionDialog() {
        ReplayServer server;
        QVERIFY(server.start());
        server.stream = ReplayServer::transcript(QStringLiteral("vllm_reasoning.sse"));
        auto c = openController(m_dataDir.path());
        QVERIFY(c);
        bool ok = false;
        QString message;
        const QString id = addConnection(*c, server.base(), QStringLiteral("sk-ui"), &ok, &message);
        QVERIFY2(ok, qPrintable(message));

        QQmlApplicationEngine engine;
        QQuickWindow* window = loadMainWindow(engine, *c);
        QVERIFY(window);
        window->resize(1200, 800);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window));

        // The model library: the remote model with its host, beside the local files.
        QVERIFY(openPopup(window, QStringLiteral("modelLibraryDialog")));
        QQuickItem* remote = nullptr;
        QTRY_VERIFY((remote = findNamed(window, QStringLiteral("remoteModel"))) != nullptr);
        QQuickItem* badge = findNamed(window, QStringLiteral("remoteBadge"));
        QVERIFY(badge);
        QVERIFY(badge->isVisible());
        QCOMPARE(badge->property("text").toString(), QStringLiteral("Remote · 127.0.0.1"));
        QCOMPARE(remote->property("modelData").toMap().value("model").toString(),
                 QStringLiteral("replayed"));
        shoot(window, QStringLiteral("model-library"));

        // The Servers dialog with the connection and the models it serves.
        QVERIFY(openPopup(window, QStringLiteral("connectionsDialog")));
        QQuickItem* list = nullptr;
        QTRY_VERIFY((list = findNamed(window, QStringLiteral("connectionList"))) != nullptr);
        QTRY_COMPARE(list->property("count").toInt(), 1);
        shoot(window, QStringLiteral("connections-dialog"));
        QVERIFY(closePopup(window, QStringLiteral("connectionsDialog")));
        QVERIFY(closePopup(window, QStringLiteral("modelLibraryDialog")));

        // Using it: the header says where it runs; a reply's reasoning is a folded block.
        QVERIFY(useRemote(*c, id, QStringLiteral("replayed")));
        QQuickItem* backend = findNamed(window, QStringLiteral("backendBadge"));
        QVERIFY(backend);
        QVERIFY(c->modelInfo().value("backendLabel").toString().contains("127.0.0.1"));
        QQuickItem* name = findNamed(window, QStringLiteral("modelName"));
        QVERIFY(name);
        QTRY_COMPARE(name->property("text").toString(), QStringLiteral("replayed"));
        QTRY_VERIFY(!name->property("truncated").toBool());  // the name is shown whole
        QVERIFY(c->send(QStringLiteral("Hello")));
        QCOMPARE(waitForReply(*c), QStringLiteral("length"));
        QTRY_VERIFY(findNamed(window, QStringLiteral("thinkingBlock")) != nullptr);
        shoot(window, QStringLiteral("remote-chat"));

        // Settings: the local engine's settings are hidden, a note says why.
        QVERIFY(openPopup(window, QStringLiteral("settingsPanel")));
        QQuickItem* note = findNamed(window, QStringLiteral("remoteSettingsNote"));
        QVERIFY(note);
        QTRY_VERIFY(note->isVisible());
        for (const char* local :
             {"kvSetting", "int4Setting", "gpuLayersSetting", "contextSetting"}) {
            QQuickItem* item = findNamed(window, QString::fromLatin1(local));
            QVERIFY2(item && !item->isVisible(), local);
        }
        shoot(window, QStringLiteral("settings-remote"));
        QVERIFY(closePopup(window, QStringLiteral("settingsPanel")));
    }

private:
    QTemporaryDir m_dataDir;
    std::unique_ptr<AppInfo> m_appInfo;
    QString m_shots;
};

int main(int argc, char** argv) {
    QGuiApplication app(argc, argv);
    RemoteUiTest test;
    return QTest::qExec(&test, argc, argv);
}
#include "remote_ui_test.moc"
