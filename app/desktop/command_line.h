// The desktop app's command line: --version, --data-dir, --screenshot, --theme.
#pragma once

#include <QString>
#include <QStringList>

struct CommandLineOptions {
    bool showVersion = false;
    QString dataDir;          // empty: the platform's app-data location
    QString screenshotFile;   // empty: run normally
    QString theme;            // "", "light" or "dark"
    QString modelFile;        // a .gguf passed as an argument (e.g. from the file manager)
    QString error;            // non-empty when the command line is invalid
};

CommandLineOptions parseCommandLine(const QStringList& arguments);
