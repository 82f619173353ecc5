// --screenshot: waits until the window has rendered and stopped changing, saves it, quits.
#pragma once

#include <QString>

class QQuickWindow;

// Arranges for `window` to be grabbed into `file` once settled; the app exits with 0 on
// success and 1 when the image could not be written.
void scheduleScreenshot(QQuickWindow* window, const QString& file);
