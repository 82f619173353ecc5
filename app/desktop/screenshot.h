// --screenshot: waits until the window has rendered and stopped changing, saves it, quits.
#pragma once

#include <QString>
#include <functional>

class QQuickWindow;

// Arranges for `window` to be grabbed into `file` once settled; the app exits with 0 on
// success and 1 when the image could not be written. `describe`, when set, adds a line about
// the app's state at the moment of the grab (e.g. "model: ready"), so a headless check can
// tell a picture of a loaded model from one of an empty window.
void scheduleScreenshot(QQuickWindow* window, const QString& file,
                        std::function<QString()> describe = {});
