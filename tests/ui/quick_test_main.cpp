// Qt Quick Test runner: registers the app's C++ types and gives the tests real files to drop.
#include <QFile>
#include <QQmlContext>
#include <QQmlEngine>
#include <QQmlExtensionPlugin>
#include <QQuickStyle>
#include <QTemporaryDir>
#include <QUrl>
#include <QtQuickTest>
#include <memory>

#include "app_info.h"
#include "qml_types.h"

Q_IMPORT_QML_PLUGIN(HearthPlugin)

class Setup : public QObject {
    Q_OBJECT

public slots:
    void applicationAvailable() {
        QQuickStyle::setStyle(QStringLiteral("Basic"));
        m_appInfo = std::make_unique<AppInfo>(m_dir.path());
        hearth::app::registerQmlTypes(m_appInfo.get());
    }

    void qmlEngineAvailable(QQmlEngine* engine) {
        hearth::app::prepareEngine(engine);
        auto write = [this](const QString& name, const QByteArray& bytes) {
            QFile f(m_dir.filePath(name));
            if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write test file %s", qPrintable(name));
            f.write(bytes);
            return QUrl::fromLocalFile(f.fileName());
        };
        auto* ctx = engine->rootContext();
        ctx->setContextProperty(QStringLiteral("testGgufUrl"),
                                write(QStringLiteral("story.gguf"),
                                      QByteArray("GGUF\x03\x00\x00\x00", 8) + QByteArray(4088, '\0')));
        ctx->setContextProperty(QStringLiteral("testTextUrl"),
                                write(QStringLiteral("notes.txt"), "just text"));
    }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<AppInfo> m_appInfo;
};

QUICK_TEST_MAIN_WITH_SETUP(hearth_ui, Setup)
#include "quick_test_main.moc"
