import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth
import Hearth.App

// One chat in the sidebar: click to open, rename inline, delete (with undo in the banner).
ItemDelegate {
    id: item

    required property ChatController controller
    required property var chatId
    required property string title
    property bool editing: false

    readonly property bool current: controller.currentChatId === chatId
    // Tall enough for the hover buttons (they are sized to fit, never clipped).
    height: Math.max(38, implicitHeight)
    Accessible.name: qsTr("Chat %1").arg(title)
    onClicked: if (!editing) controller.openChat(chatId)
    onDoubleClicked: startRename()

    function startRename() {
        editing = true
        renameField.text = title
        renameField.forceActiveFocus()
        renameField.selectAll()
    }

    background: Rectangle {
        radius: 6
        color: item.current ? Theme.c.dropActive : (item.hovered ? Theme.c.surface : "transparent")
    }
    contentItem: RowLayout {
        spacing: 2
        Label {
            Layout.fillWidth: true
            Layout.minimumWidth: 0
            visible: !item.editing
            text: item.title
            elide: Text.ElideRight
            color: Theme.c.text
            font.pixelSize: Theme.fontBody
        }
        // A reply is still being written into this chat (another chat is open).
        BusyIndicator {
            objectName: "writingIndicator"
            visible: item.controller.generatingChatId === item.chatId && !item.editing
            running: visible
            Layout.preferredWidth: 20
            Layout.preferredHeight: 20
            Accessible.name: qsTr("A reply is being written")
        }
        TextField {
            id: renameField
            objectName: "renameField"
            Layout.fillWidth: true
            visible: item.editing
            font.pixelSize: Theme.fontBody
            Accessible.name: qsTr("New name for the chat")
            onAccepted: {
                item.controller.renameChat(item.chatId, text)
                item.editing = false
            }
            Keys.onEscapePressed: item.editing = false
            onActiveFocusChanged: if (!activeFocus) item.editing = false
        }
        ToolButton {
            visible: item.hovered && !item.editing
            // Sized to fit the row (the style's 40 px default would stick out of it).
            implicitWidth: 26
            implicitHeight: 26
            padding: 2
            text: "✎"
            Accessible.name: qsTr("Rename chat")
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Rename")
            onClicked: item.startRename()
        }
        ToolButton {
            visible: item.hovered && !item.editing
            // Sized to fit the row (the style's 40 px default would stick out of it).
            implicitWidth: 26
            implicitHeight: 26
            padding: 2
            text: "✕"
            Accessible.name: qsTr("Delete chat")
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Delete")
            onClicked: item.controller.deleteChat(item.chatId)
        }
    }
}
