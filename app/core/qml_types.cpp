#include "qml_types.h"

#include <QQmlEngine>

#include "app_info.h"
#include "model_picker.h"

namespace hearth::app {

void registerQmlTypes(AppInfo* appInfo) {
    constexpr const char* uri = "Hearth.App";
    qmlRegisterType<ModelPicker>(uri, 1, 0, "ModelPicker");
    qmlRegisterSingletonInstance(uri, 1, 0, "AppInfo", appInfo);
}

void prepareEngine(QQmlEngine* engine) { engine->addImportPath(QStringLiteral("qrc:/")); }

}  // namespace hearth::app
