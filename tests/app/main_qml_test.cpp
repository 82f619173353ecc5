// Loads the real Main.qml with every warning turned into a failure, so a missing QML module
// package (a run-time dependency the build cannot see) fails CI instead of a user's first run.
#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QQmlExtensionPlugin>
#include <QQuickStyle>
#include <QQuickItem>
#include <QQuickWindow>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "app_info.h"
#include "qml_types.h"

Q_IMPORT_QML_PLUGIN(HearthPlugin)

class MainQmlTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QQuickStyle::setStyle(QStringLiteral("Basic"));
        QVERIFY(m_dataDir.isValid());
        m_appInfo = std::make_unique<AppInfo>(m_dataDir.path());
        hearth::app::registerQmlTypes(m_appInfo.get());
    }

    void loadsWithoutWarnings() {
        QTest::failOnWarning(QRegularExpression(QStringLiteral(".*")));
        QQmlApplicationEngine engine;
        hearth::app::prepareEngine(&engine);
        engine.load(QUrl(QStringLiteral("qrc:/Hearth/Main.qml")));
        QCOMPARE(engine.rootObjects().size(), 1);
        auto* window = qobject_cast<QQuickWindow*>(engine.rootObjects().first());
        QVERIFY(window);
        QVERIFY(QTest::qWaitForWindowExposed(window));
        QCOMPARE(window->title(), QStringLiteral("Hearth"));

        // The pieces of the empty state are there.
        auto* zone = window->findChild<QQuickItem*>(QStringLiteral("dropZone"));
        QVERIFY(zone);
        QVERIFY(zone->isVisible());
        QVERIFY(window->findChild<QObject*>(QStringLiteral("chooseButton")));
        QVERIFY(window->findChild<QObject*>(QStringLiteral("modelFileDialog")));
        QVERIFY(window->findChild<QObject*>(QStringLiteral("aboutButton")));
        // Let a few frames render so late binding warnings would show up too.
        QTest::qWait(100);
    }

private:
    QTemporaryDir m_dataDir;
    std::unique_ptr<AppInfo> m_appInfo;
};

int main(int argc, char** argv) {
    QGuiApplication app(argc, argv);
    MainQmlTest test;
    return QTest::qExec(&test, argc, argv);
}
#include "main_qml_test.moc"
