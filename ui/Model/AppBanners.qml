import QtQuick
import QtQuick.Layouts
import Hearth
import Hearth.App

// The inline messages above the chat: load errors, the chat-template fallback, settings that
// need a reload, notices from the history, and undo for a deleted chat.
ColumnLayout {
    id: root

    required property ChatController controller
    property bool showModelError: true

    spacing: 6

    Banner {
        objectName: "modelErrorBanner"
        Layout.fillWidth: true
        visible: root.showModelError && message.length > 0
        message: root.controller.modelError
        // A model the fit check refused can still be loaded (it may swap or fail later).
        actionText: root.controller.modelTooLarge ? qsTr("Load anyway") : ""
        onAction: root.controller.loadModelAnyway()
        onDismissed: root.controller.clearModelError()
    }
    Banner {
        objectName: "templateBanner"
        Layout.fillWidth: true
        isError: false
        message: root.controller.templateNote.length > 0
                 ? qsTr("This model's chat template was not used as is: %1").arg(root.controller.templateNote)
                 : ""
        onDismissed: root.controller.clearTemplateNote()
    }
    Banner {
        id: reloadBanner
        objectName: "reloadBanner"
        Layout.fillWidth: true
        isError: false
        property bool hidden: false
        message: root.controller.reloadNeeded && !hidden
                 ? qsTr("The new backend setting takes effect when the model is loaded again.") : ""
        actionText: qsTr("Reload now")
        onAction: root.controller.reloadModel()
        onDismissed: hidden = true
        Connections {
            target: root.controller
            function onReloadNeededChanged() { reloadBanner.hidden = false }
        }
    }
    Banner {
        objectName: "noticeBanner"
        Layout.fillWidth: true
        isError: false
        message: root.controller.notice
        onDismissed: root.controller.clearNotice()
    }
    Banner {
        id: undoBanner
        objectName: "undoBanner"
        Layout.fillWidth: true
        isError: false
        property bool hidden: false
        message: root.controller.undoTitle.length > 0 && !hidden
                 ? qsTr("Deleted “%1”.").arg(root.controller.undoTitle) : ""
        actionText: qsTr("Undo")
        onAction: root.controller.undoDelete()
        onDismissed: hidden = true
        Connections {
            target: root.controller
            function onUndoChanged() { undoBanner.hidden = false }
        }
    }
}
