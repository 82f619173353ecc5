// Qt Quick Test runner: registers the app's C++ types and gives the tests real files to drop.
#include <QCoreApplication>
#include <QDir>
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
#include "test_data.h"

Q_IMPORT_QML_PLUGIN(HearthPlugin)

// Lets a test set an environment variable the engine reads (e.g. the available memory the fit
// check sees) and put it back afterwards.
class TestEnv : public QObject {
    Q_OBJECT

public:
    Q_INVOKABLE void set(const QString& name, const QString& value) {
        qputenv(name.toUtf8().constData(), value.toUtf8());
    }
    Q_INVOKABLE void unset(const QString& name) { qunsetenv(name.toUtf8().constData()); }
};

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
            if (!f.open(QIODevice::WriteOnly))
                qFatal("cannot write test file %s", qPrintable(name));
            f.write(bytes);
            return QUrl::fromLocalFile(f.fileName());
        };
        auto* ctx = engine->rootContext();
        ctx->setContextProperty(QStringLiteral("testEnv"), &m_env);
        ctx->setContextProperty(
            QStringLiteral("testGgufUrl"),
            write(QStringLiteral("story.gguf"),
                  QByteArray("GGUF\x03\x00\x00\x00", 8) + QByteArray(4088, '\0')));
        ctx->setContextProperty(QStringLiteral("testTextUrl"),
                                write(QStringLiteral("notes.txt"), "just text"));
        // A .gguf that passes the quick check but that the engine refuses.
        ctx->setContextProperty(
            QStringLiteral("badGgufUrl"),
            write(QStringLiteral("broken.gguf"),
                  QByteArray("GGUF\x03\x00\x00\x00", 8) + QByteArray(64, '\xff')));
        // The tiny real model; empty when ../shared is absent (the tests then skip).
        const auto model = hearth::test::shared_file("models/stories260K.gguf");
        ctx->setContextProperty(
            QStringLiteral("tinyModelUrl"),
            model ? QUrl::fromLocalFile(QString::fromStdString(model->string())) : QUrl());
        // Screenshots the tests save (kept with the build for a look).
        const QString shots =
            QCoreApplication::applicationDirPath() + QStringLiteral("/screenshots");
        QDir().mkpath(shots);
        ctx->setContextProperty(QStringLiteral("testScreenshotDir"), shots);
        // Each test makes its own data folders below this one.
        ctx->setContextProperty(QStringLiteral("testTempRoot"),
                                m_dir.filePath(QStringLiteral("data")));
    }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<AppInfo> m_appInfo;
    TestEnv m_env;
};

QUICK_TEST_MAIN_WITH_SETUP(hearth_ui, Setup)
#include "quick_test_main.moc"
