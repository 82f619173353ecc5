#include "qml_types.h"

#include <QQmlEngine>

#include "app_info.h"
#include "app_settings.h"
#include "chat_controller.h"
#include "chat_list_model.h"
#include "connections.h"
#include "message_model.h"
#include "model_library.h"
#include "model_picker.h"

namespace hearth::app {

void registerQmlTypes(AppInfo* appInfo) {
    constexpr const char* uri = "Hearth.App";
    qmlRegisterType<ModelPicker>(uri, 1, 0, "ModelPicker");
    qmlRegisterType<ChatController>(uri, 1, 0, "ChatController");
    const QString owned = QStringLiteral("owned by ChatController");
    qmlRegisterUncreatableType<AppSettings>(uri, 1, 0, "AppSettings", owned);
    qmlRegisterUncreatableType<ChatListModel>(uri, 1, 0, "ChatListModel", owned);
    qmlRegisterUncreatableType<MessageModel>(uri, 1, 0, "MessageModel", owned);
    qmlRegisterUncreatableType<ModelLibrary>(uri, 1, 0, "ModelLibrary", owned);
    qmlRegisterUncreatableType<Connections>(uri, 1, 0, "RemoteConnections", owned);
    qmlRegisterSingletonInstance(uri, 1, 0, "AppInfo", appInfo);
}

void prepareEngine(QQmlEngine* engine) {
    engine->addImportPath(QStringLiteral("qrc:/"));
}

}  // namespace hearth::app
