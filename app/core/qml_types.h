// Makes the app's C++ objects visible to QML under the import "Hearth.App". Called by main()
// and by the QML tests, so both see the same types.
#pragma once

class AppInfo;
class QQmlEngine;

namespace hearth::app {

// Registers the instantiable types and the AppInfo singleton instance (owned by the caller).
void registerQmlTypes(AppInfo* appInfo);

// Lets `engine` find the "Hearth" module compiled into the binary. Qt 6.4 places it under
// qrc:/Hearth, which is not on the default import path (6.5+ uses qrc:/qt/qml).
void prepareEngine(QQmlEngine* engine);

}  // namespace hearth::app
