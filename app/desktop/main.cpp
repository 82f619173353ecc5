// The desktop app: parses the command line, sets up data and translations, shows Main.qml.
#include <QDir>
#include <QGuiApplication>
#include <QIcon>
#include <QLocale>
#include <QQmlApplicationEngine>
#include <QQmlContext>
#include <QQmlExtensionPlugin>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QStandardPaths>
#include <QTranslator>
#include <QUrl>
#include <cstdio>

#include "app_info.h"
#include "hearth/version.h"
#include "command_line.h"
#include "qml_types.h"
#include "screenshot.h"

Q_IMPORT_QML_PLUGIN(HearthPlugin)

int main(int argc, char* argv[]) {
    QGuiApplication app(argc, argv);
    QGuiApplication::setApplicationName(QStringLiteral("Hearth"));
    QGuiApplication::setOrganizationName(QStringLiteral("Hearth"));
    QGuiApplication::setApplicationVersion(QStringLiteral(HEARTH_VERSION));

    const CommandLineOptions options = parseCommandLine(QGuiApplication::arguments());
    if (!options.error.isEmpty()) {
        std::fprintf(stderr, "hearth: %s (try --help)\n", qPrintable(options.error));
        return 2;
    }

    QString dataDir = options.dataDir;
    if (dataDir.isEmpty())
        dataDir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    AppInfo appInfo(QDir(dataDir).absolutePath());
    if (options.showVersion) {
        std::printf("%s\n", qPrintable(appInfo.versionLine()));
        return 0;
    }
    if (!QDir().mkpath(appInfo.dataDir())) {
        std::fprintf(stderr, "hearth: cannot create the data folder %s\n",
                     qPrintable(appInfo.dataDir()));
        return 1;
    }

    QTranslator translator;
    if (translator.load(QLocale(), QStringLiteral("hearth"), QStringLiteral("_"),
                        QStringLiteral(":/i18n")))
        QCoreApplication::installTranslator(&translator);

    QGuiApplication::setWindowIcon(QIcon(QStringLiteral(":/Hearth/icons/hearth.svg")));
    QQuickStyle::setStyle(QStringLiteral("Basic"));
    hearth::app::registerQmlTypes(&appInfo);

    QQmlApplicationEngine engine;
    hearth::app::prepareEngine(&engine);
    QObject::connect(
        &engine, &QQmlApplicationEngine::objectCreationFailed, &app,
        []() { QCoreApplication::exit(1); }, Qt::QueuedConnection);
    engine.setInitialProperties({
        {QStringLiteral("initialTheme"), options.theme},
        {QStringLiteral("initialModel"), options.modelFile.isEmpty()
                                             ? QUrl()
                                             : QUrl::fromLocalFile(options.modelFile)},
    });
    engine.load(QUrl(QStringLiteral("qrc:/Hearth/Main.qml")));
    if (engine.rootObjects().isEmpty()) return 1;

    if (!options.screenshotFile.isEmpty()) {
        auto* window = qobject_cast<QQuickWindow*>(engine.rootObjects().constFirst());
        if (!window) {
            std::fprintf(stderr, "hearth: the main object is not a window\n");
            return 1;
        }
        scheduleScreenshot(window, options.screenshotFile);
    }
    return QGuiApplication::exec();
}
