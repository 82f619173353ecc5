// Main.qml and a model handed over by a later start of Hearth (single instance): opened at
// once when idle; during a reply the user is asked first, and only accepting replaces it.
#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QQmlExtensionPlugin>
#include <QQuickItem>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QTemporaryDir>
#include <QTest>

#include "app_info.h"
#include "chat_controller.h"
#include "qml_types.h"
#include "test_data.h"

Q_IMPORT_QML_PLUGIN(HearthPlugin)

namespace {

// The real Main.qml on `controller`, as main() loads it; null when it did not load.
QQuickWindow* loadMainWindow(QQmlApplicationEngine& engine,
                             hearth::app::ChatController& controller) {
    hearth::app::prepareEngine(&engine);
    engine.setInitialProperties({{QStringLiteral("controller"), QVariant::fromValue(&controller)}});
    engine.load(QUrl(QStringLiteral("qrc:/Hearth/Main.qml")));
    if (engine.rootObjects().size() != 1) return nullptr;
    return qobject_cast<QQuickWindow*>(engine.rootObjects().first());
}

}  // namespace

class ModelHandoverTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QQuickStyle::setStyle(QStringLiteral("Basic"));
        QVERIFY(m_dataDir.isValid());
        m_appInfo = std::make_unique<AppInfo>(m_dataDir.path());
        hearth::app::registerQmlTypes(m_appInfo.get());
    }

    // A model handed over by a later start (single instance): loaded at once when idle; while a
    // reply is being written the user is asked first, and only accepting replaces the model.
    void modelFromAnotherStartAsksDuringAReply() {
        const auto model = hearth::test::shared_file("models/stories260K.gguf");
        if (!model) QSKIP("stories260K.gguf not found (HEARTH_SHARED_DIR)");
        const QUrl url = QUrl::fromLocalFile(QString::fromStdString(model->string()));
        hearth::app::ChatController controller;
        controller.setDataDir(m_dataDir.filePath(QStringLiteral("handover")));
        QQmlApplicationEngine engine;
        QQuickWindow* window = loadMainWindow(engine, controller);
        QVERIFY(window);
        auto* dialog = window->findChild<QObject*>(QStringLiteral("replaceModelDialog"));
        QVERIFY(dialog);
        QTRY_VERIFY(controller.ready());

        QVERIFY(QMetaObject::invokeMethod(window, "openFromElsewhere", Q_ARG(QVariant, url)));
        QVERIFY(!dialog->property("opened").toBool());
        QTRY_COMPARE_WITH_TIMEOUT(controller.modelState(), QStringLiteral("ready"), 30000);

        QVERIFY(controller.send(QStringLiteral("Once upon a time")));
        QVERIFY(controller.generating());
        QVERIFY(QMetaObject::invokeMethod(window, "openFromElsewhere", Q_ARG(QVariant, url)));
        QTRY_VERIFY(dialog->property("opened").toBool());
        QCOMPARE(controller.modelState(), QStringLiteral("ready"));  // nothing replaced yet
        QVERIFY(QMetaObject::invokeMethod(dialog, "reject"));
        QTRY_VERIFY(!dialog->property("opened").toBool());
        QCOMPARE(controller.modelState(), QStringLiteral("ready"));

        QTRY_VERIFY_WITH_TIMEOUT(!controller.generating(), 60000);
        QVERIFY(controller.send(QStringLiteral("Tell me more")));
        QVERIFY(QMetaObject::invokeMethod(window, "openFromElsewhere", Q_ARG(QVariant, url)));
        QTRY_VERIFY(dialog->property("opened").toBool());
        QVERIFY(QMetaObject::invokeMethod(dialog, "accept"));
        QCOMPARE(controller.modelState(), QStringLiteral("loading"));
        QTRY_VERIFY(!controller.generating());  // the reply was stopped for the new model
        QTRY_COMPARE_WITH_TIMEOUT(controller.modelState(), QStringLiteral("ready"), 30000);
    }

    // Once a model has loaded, what the user types goes to the composer: focus must not stay
    // on the button that opened the file dialog (Space would open the dialog again).
    void typingAfterALoadGoesToTheComposer() {
        const auto model = hearth::test::shared_file("models/stories260K.gguf");
        if (!model) QSKIP("stories260K.gguf not found (HEARTH_SHARED_DIR)");
        hearth::app::ChatController controller;
        controller.setDataDir(m_dataDir.filePath(QStringLiteral("focus")));
        QQmlApplicationEngine engine;
        QQuickWindow* window = loadMainWindow(engine, controller);
        QVERIFY(window);
        QVERIFY(QTest::qWaitForWindowExposed(window));
        QTRY_VERIFY(controller.ready());
        auto* choose = window->findChild<QQuickItem*>(QStringLiteral("chooseButton"));
        QVERIFY(choose);
        choose->forceActiveFocus();  // where a mouse click on "Choose a model…" leaves focus
        QVERIFY(controller.loadModel(QUrl::fromLocalFile(QString::fromStdString(model->string()))));
        QTRY_COMPARE_WITH_TIMEOUT(controller.modelState(), QStringLiteral("ready"), 30000);

        for (const QChar c : QStringLiteral("Once upon a time"))
            QTest::keyClick(window, c.toLatin1());
        auto* input = window->findChild<QQuickItem*>(QStringLiteral("composerInput"));
        QVERIFY(input);
        QTRY_COMPARE(input->property("text").toString(), QStringLiteral("Once upon a time"));
        auto* dialog = window->findChild<QObject*>(QStringLiteral("modelFileDialog"));
        QVERIFY(dialog);
        QVERIFY(!dialog->property("visible").toBool());
    }

private:
    QTemporaryDir m_dataDir;
    std::unique_ptr<AppInfo> m_appInfo;
};

int main(int argc, char** argv) {
    QGuiApplication app(argc, argv);
    ModelHandoverTest test;
    return QTest::qExec(&test, argc, argv);
}
#include "model_handover_test.moc"
