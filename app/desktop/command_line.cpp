#include "command_line.h"

#include <QCommandLineParser>
#include <QCoreApplication>

CommandLineOptions parseCommandLine(const QStringList& arguments) {
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QCoreApplication::translate("main", "Chat with language models on your own computer."));
    parser.addHelpOption();
    const QCommandLineOption version(QStringList{"v", "version"},
                                     QCoreApplication::translate("main", "Print the version and exit."));
    const QCommandLineOption dataDir(
        "data-dir", QCoreApplication::translate("main", "Keep chats and settings in DIR."), "DIR");
    const QCommandLineOption screenshot(
        "screenshot",
        QCoreApplication::translate("main", "Render the window into FILE (PNG) once it has settled, then exit."),
        "FILE");
    const QCommandLineOption theme(
        "theme", QCoreApplication::translate("main", "Colour theme: light or dark."), "THEME");
    parser.addOptions({version, dataDir, screenshot, theme});
    parser.addPositionalArgument("model", QCoreApplication::translate("main", "A .gguf model to open."),
                                 "[model.gguf]");

    CommandLineOptions out;
    if (!parser.parse(arguments)) {
        out.error = parser.errorText();
        return out;
    }
    if (parser.isSet("help")) parser.showHelp(0);   // prints and exits
    out.showVersion = parser.isSet(version);
    out.dataDir = parser.value(dataDir);
    out.screenshotFile = parser.value(screenshot);
    out.theme = parser.value(theme);
    if (!out.theme.isEmpty() && out.theme != QLatin1String("light") &&
        out.theme != QLatin1String("dark")) {
        out.error = QCoreApplication::translate("main", "--theme must be light or dark");
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) {
        out.error = QCoreApplication::translate("main", "expected at most one model file");
    } else if (positional.size() == 1) {
        out.modelFile = positional.first();
    }
    return out;
}
