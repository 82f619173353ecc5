import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth
import Hearth.App

// The inline messages above the chat: load errors, the chat-template note, settings that need
// a reload, notices and errors from the history, and undo for a deleted chat. Several at once
// collapse into the most important one on one line, with "N more" to show them all.
ColumnLayout {
    id: root

    required property ChatController controller
    property bool showModelError: true
    property bool expanded: false

    // The banners with something to say, most important first.
    readonly property var active: {
        const list = []
        if (modelErrorBanner.message.length > 0) list.push(modelErrorBanner)
        if (noticeBanner.message.length > 0 && noticeBanner.isError) list.push(noticeBanner)
        if (undoBanner.message.length > 0) list.push(undoBanner)
        if (reloadBanner.message.length > 0) list.push(reloadBanner)
        if (noticeBanner.message.length > 0 && !noticeBanner.isError) list.push(noticeBanner)
        if (templateBanner.message.length > 0) list.push(templateBanner)
        return list
    }
    readonly property bool collapsed: !expanded && active.length > 1
    function shown(banner) {
        return active.indexOf(banner) === 0 || (active.indexOf(banner) > 0 && !collapsed)
    }
    onActiveChanged: if (active.length <= 1) expanded = false

    spacing: 6

    Banner {
        id: modelErrorBanner
        objectName: "modelErrorBanner"
        Layout.fillWidth: true
        message: root.showModelError ? root.controller.modelError : ""
        visible: root.shown(this)
        singleLine: root.collapsed
        // A model the fit check refused can still be loaded (it may swap or fail later).
        actionText: root.controller.modelTooLarge ? qsTr("Load anyway") : ""
        onAction: root.controller.loadModelAnyway()
        onDismissed: root.controller.clearModelError()
    }
    Banner {
        id: noticeBanner
        objectName: "noticeBanner"
        Layout.fillWidth: true
        isError: root.controller.noticeIsError
        message: root.controller.notice
        visible: root.shown(this)
        singleLine: root.collapsed
        onDismissed: root.controller.clearNotice()
    }
    Banner {
        id: undoBanner
        objectName: "undoBanner"
        Layout.fillWidth: true
        isError: false
        property bool hidden: false
        message: root.controller.undoTitle.length > 0 && !hidden
                 ? qsTr("Moved “%1” to the trash.").arg(root.controller.undoTitle) : ""
        visible: root.shown(this)
        singleLine: root.collapsed
        actionText: qsTr("Undo")
        onAction: root.controller.undoDelete()
        onDismissed: hidden = true
        Connections {
            target: root.controller
            function onUndoChanged() { undoBanner.hidden = false }
        }
    }
    Banner {
        id: reloadBanner
        objectName: "reloadBanner"
        Layout.fillWidth: true
        isError: false
        property bool hidden: false
        message: {
            const keys = root.controller.reloadSettings
            if (!root.controller.reloadNeeded || hidden || keys.length === 0) return ""
            if (keys.length > 1)
                return keys.indexOf("contextBeyondTraining") >= 0
                        ? qsTr("The changed settings take effect when the model is loaded again.")
                        : qsTr("The new backend and 4-bit weights settings take effect when the model is loaded again.")
            if (keys[0] === "int4Weights")
                return qsTr("The 4-bit weights setting takes effect when the model is loaded again.")
            if (keys[0] === "contextBeyondTraining")
                return qsTr("The “Beyond the training length” setting takes effect when the model is loaded again.")
            return qsTr("The new backend setting takes effect when the model is loaded again.")
        }
        visible: root.shown(this)
        singleLine: root.collapsed
        actionText: qsTr("Reload now")
        onAction: root.controller.reloadModel()
        onDismissed: hidden = true
        Connections {
            target: root.controller
            function onReloadNeededChanged() { reloadBanner.hidden = false }
        }
    }
    Banner {
        id: templateBanner
        objectName: "templateBanner"
        Layout.fillWidth: true
        isError: false
        message: root.controller.templateNote
        visible: root.shown(this)
        singleLine: root.collapsed
        onDismissed: root.controller.clearTemplateNote()
    }
    Button {
        objectName: "bannerMore"
        visible: root.active.length > 1
        flat: true
        Layout.alignment: Qt.AlignRight
        text: root.collapsed ? qsTr("%n more message(s)", "", root.active.length - 1)
                             : qsTr("Show fewer")
        Accessible.name: text
        onClicked: root.expanded = !root.expanded
    }
}
