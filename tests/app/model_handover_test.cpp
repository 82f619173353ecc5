// Main.qml and a model handed over by a later start of Hearth (single instance): opened at
// once when idle; during a reply the user is asked first, and only accepting replaces it.
#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QQmlExtensionPlugin>
#include <QQuickStyle>
#include <QTemporaryDir>
#include <QTest>

#include "app_info.h"
#include "chat_controller.h"
#include "qml_types.h"
#include "test_data.h"

Q_IMPORT_QML_PLUGIN(HearthPlugin)

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
        hearth::app::prepareEngine(&engine);
        engine.setInitialProperties(
            {{QStringLiteral("controller"), QVariant::fromValue(&controller)}});
        engine.load(QUrl(QStringLiteral("qrc:/Hearth/Main.qml")));
        QCOMPARE(engine.rootObjects().size(), 1);
        QObject* window = engine.rootObjects().first();
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
