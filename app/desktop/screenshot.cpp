#include "screenshot.h"

#include <QCoreApplication>
#include <QImage>
#include <QQuickWindow>
#include <QTimer>
#include <cstdio>

namespace {

// Settled means: at least a few frames drawn and no new frame for a short while, with an upper
// bound so an animation that never stops cannot hang a headless check.
constexpr int kQuietMs = 300;
constexpr int kMaxWaitMs = 5000;

}  // namespace

void scheduleScreenshot(QQuickWindow* window, const QString& file,
                        std::function<QString()> describe) {
    auto* quiet = new QTimer(window);
    quiet->setSingleShot(true);
    quiet->setInterval(kQuietMs);

    auto grab = [window, file, describe]() {
        const QImage image = window->grabWindow();
        const bool ok = !image.isNull() && image.save(file, "PNG");
        if (ok) {
            std::fprintf(stdout, "screenshot: %s (%dx%d)\n", qPrintable(file), image.width(),
                         image.height());
            if (describe) std::fprintf(stdout, "%s\n", qPrintable(describe()));
        } else {
            std::fprintf(stderr, "screenshot: could not write %s\n", qPrintable(file));
        }
        std::fflush(stdout);
        QCoreApplication::exit(ok ? 0 : 1);
    };
    QObject::connect(quiet, &QTimer::timeout, window, grab);
    QObject::connect(window, &QQuickWindow::frameSwapped, quiet, qOverload<>(&QTimer::start));
    quiet->start();  // offscreen may not swap at all once the scene is static
    QTimer::singleShot(kMaxWaitMs, window, grab);
}
