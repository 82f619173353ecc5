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
#include <QTimer>
#include <QTranslator>
#include <QUrl>
#include <cstdio>
#include <memory>
#include <string_view>

#include "app_info.h"
#include "backend_cache.h"
#include "chat_controller.h"
#include "command_line.h"
#include "demo_chat.h"
#include "hearth/version.h"
#include "qml_types.h"
#include "screenshot.h"
#include "single_instance.h"

Q_IMPORT_QML_PLUGIN(HearthPlugin)

namespace {
constexpr int kScreenshotLoadWaitMs = 120000;

bool asksOnlyForText(int argc, char* argv[]) {
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg(argv[i]);
        if (arg == "-h" || arg == "--help" || arg == "--help-all" || arg == "-v" ||
            arg == "--version")
            return true;
    }
    return false;
}
}  // namespace

int main(int argc, char* argv[]) {
    // --help and --version print text and need no display: a plain core application answers
    // them, so they work over ssh and in scripts where a GUI application would abort.
    std::unique_ptr<QCoreApplication> app;
#if defined(Q_OS_LINUX)
    // Without a display Qt aborts with a plug-in message that reads like a broken install.
    if (!asksOnlyForText(argc, argv) && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") &&
        qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) {
        std::fprintf(stderr,
                     "hearth: no display to open a window on (DISPLAY and WAYLAND_DISPLAY are "
                     "unset). For a headless check: QT_QPA_PLATFORM=offscreen hearth "
                     "--screenshot FILE\n");
        return 1;
    }
#endif
    if (asksOnlyForText(argc, argv))
        app = std::make_unique<QCoreApplication>(argc, argv);
    else
        app = std::make_unique<QGuiApplication>(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("Hearth"));
    QCoreApplication::setOrganizationName(QStringLiteral("Hearth"));
    QCoreApplication::setApplicationVersion(QStringLiteral(HEARTH_VERSION));

    const CommandLineOptions options = parseCommandLine(QCoreApplication::arguments());
    if (!options.error.isEmpty()) {
        std::fprintf(stderr, "hearth: %s (try --help)\n", qPrintable(options.error));
        return 2;
    }

    // Before any thread starts: the backend plugins read it when a device is made.
    hearth::app::exportBackendCacheDir(options.dataDir);

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

    // One Hearth per data folder: a later start hands its model file to the running window.
    // A headless --screenshot run is a check of its own and never hands over or listens.
    hearth::app::SingleInstance instance(appInfo.dataDir());
    if (options.screenshotFile.isEmpty()) {
        if (instance.handOff(options.modelFile)) {
            if (options.modelFile.isEmpty())
                std::printf(
                    "hearth: brought the Hearth already running on this data folder to "
                    "the front\n");
            else
                std::printf(
                    "hearth: opened %s in the Hearth already running on this data "
                    "folder\n",
                    qPrintable(options.modelFile));
            return 0;
        }
        if (!instance.listen())
            std::fprintf(stderr,
                         "hearth: cannot watch for later starts (%s); they will open windows of "
                         "their own\n",
                         qPrintable(instance.errorString()));
    }

    qint64 demoChatId = 0;
    if (options.demoChat) {
        QString error;
        demoChatId = hearth::app::seedDemoChat(appInfo.dataDir(), &error);
        if (demoChatId == 0) {
            std::fprintf(stderr, "hearth: --demo-chat: %s\n", qPrintable(error));
            return 1;
        }
    }

    hearth::app::ChatController controller;
    controller.setDataDir(appInfo.dataDir());
    if (demoChatId != 0) controller.openChat(demoChatId);

    // The language setting applies at start: "system" follows the locale.
    const QString language = controller.settings()->value(QStringLiteral("language")).toString();
    const QLocale locale = language == QLatin1String("system") ? QLocale() : QLocale(language);
    QTranslator translator;
    if (translator.load(locale, QStringLiteral("hearth"), QStringLiteral("_"),
                        QStringLiteral(":/i18n")))
        QCoreApplication::installTranslator(&translator);

    QGuiApplication::setWindowIcon(QIcon(QStringLiteral(":/Hearth/icons/hearth.svg")));
    QQuickStyle::setStyle(QStringLiteral("Basic"));
    hearth::app::registerQmlTypes(&appInfo);

    QQmlApplicationEngine engine;
    hearth::app::prepareEngine(&engine);
    QObject::connect(
        &engine, &QQmlApplicationEngine::objectCreationFailed, app.get(),
        []() { QCoreApplication::exit(1); }, Qt::QueuedConnection);
    // The model of the last session comes back at start (Settings: "Reload the last model"),
    // unless a file was given; a --screenshot check shows only what its command line asks for.
    QString startModel = options.modelFile;
    if (startModel.isEmpty() && options.screenshotFile.isEmpty())
        startModel = controller.settings()->modelToReload();
    engine.setInitialProperties({
        {QStringLiteral("controller"), QVariant::fromValue(&controller)},
        {QStringLiteral("initialTheme"), options.theme},
        {QStringLiteral("initialPanel"), options.show},
        {QStringLiteral("initialModel"),
         startModel.isEmpty() ? QUrl() : QUrl::fromLocalFile(startModel)},
    });
    engine.load(QUrl(QStringLiteral("qrc:/Hearth/Main.qml")));
    if (engine.rootObjects().isEmpty()) return 1;

    auto* window = qobject_cast<QQuickWindow*>(engine.rootObjects().constFirst());
    if (!window) {
        std::fprintf(stderr, "hearth: the main object is not a window\n");
        return 1;
    }
    QObject::connect(&instance, &hearth::app::SingleInstance::openRequested, window,
                     [window, &controller](const QString& path) {
                         window->show();
                         window->raise();
                         window->requestActivate();
                         if (path.isEmpty()) return;
                         std::printf("hearth: opening %s (from another start)\n", qPrintable(path));
                         std::fflush(stdout);
                         auto once = std::make_shared<QMetaObject::Connection>();
                         *once = QObject::connect(
                             &controller, &hearth::app::ChatController::modelLoaded, window,
                             [once, &controller]() {
                                 QObject::disconnect(*once);
                                 std::printf(
                                     "hearth: model ready: %s\n",
                                     qPrintable(controller.modelInfo().value("name").toString()));
                                 std::fflush(stdout);
                             });
                         QMetaObject::invokeMethod(window, "openFromElsewhere",
                                                   Q_ARG(QVariant, QUrl::fromLocalFile(path)));
                     });

    if (!options.screenshotFile.isEmpty()) {
        // With a model on the command line the picture is taken once its load has ended
        // (ready or refused), so it shows what a user sees after opening that file.
        auto describe = [&controller]() {
            QString line = QStringLiteral("model: ") + controller.modelState();
            if (!controller.modelError().isEmpty())
                line += QStringLiteral(" (") + controller.modelError() + QLatin1Char(')');
            return line;
        };
        // Taken at once unless a load is running; then when it ends, or after a time limit so
        // a load that never ends cannot hang a headless check.
        auto scheduled = std::make_shared<bool>(false);
        auto scheduleOnce = [=, &controller, file = options.screenshotFile](bool evenIfLoading) {
            if (*scheduled ||
                (!evenIfLoading && controller.modelState() == QLatin1String("loading")))
                return;
            *scheduled = true;
            scheduleScreenshot(window, file, describe);
        };
        const auto whenLoaded = [scheduleOnce]() { scheduleOnce(false); };
        QObject::connect(&controller, &hearth::app::ChatController::modelChanged, window,
                         whenLoaded);
        QObject::connect(&controller, &hearth::app::ChatController::modelErrorChanged, window,
                         whenLoaded);
        QTimer::singleShot(kScreenshotLoadWaitMs, window, [scheduleOnce]() { scheduleOnce(true); });
        whenLoaded();
    }
    return QGuiApplication::exec();
}
