import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth
import Hearth.App

// One chat in the sidebar: click to open, rename inline, delete (with undo in the banner).
// The list is one Tab stop: arrows move, Enter opens, F2 renames, Delete deletes, the Menu key
// or a right click opens the context menu (see Sidebar.qml).
ItemDelegate {
    id: item

    required property ChatController controller
    required property var chatId
    required property string title
    property bool editing: false

    readonly property bool current: controller.currentChatId === chatId
    // The row the arrow keys are on, while the list has the keyboard focus.
    readonly property bool keyboardCurrent: ListView.isCurrentItem && ListView.view
                                            && ListView.view.activeFocus
    // Tall enough for the hover buttons (they are sized to fit, never clipped).
    height: Math.max(38, implicitHeight)
    focusPolicy: Qt.NoFocus
    Accessible.role: Accessible.ListItem
    Accessible.name: qsTr("Chat %1").arg(title)
    Accessible.description: current ? qsTr("Open") : ""
    Accessible.selected: current
    onClicked: if (!editing) controller.openChat(chatId)
    onDoubleClicked: startRename()

    function openContextMenu(x, y) {
        contextMenu.popup(item, x, y)
    }
    TapHandler {
        acceptedButtons: Qt.RightButton
        onTapped: eventPoint => item.openContextMenu(eventPoint.position.x, eventPoint.position.y)
    }
    Menu {
        id: contextMenu
        objectName: "chatContextMenu"
        MenuItem {
            text: qsTr("Open")
            Accessible.name: text
            onTriggered: item.controller.openChat(item.chatId)
        }
        MenuItem {
            text: qsTr("Rename (F2)")
            Accessible.name: text
            onTriggered: item.startRename()
        }
        MenuItem {
            text: qsTr("Delete (Del)")
            Accessible.name: text
            onTriggered: item.controller.deleteChat(item.chatId)
        }
    }

    function startRename() {
        editing = true
        renameField.text = title
        renameField.forceActiveFocus()
        renameField.selectAll()
    }

    background: Rectangle {
        radius: 6
        color: item.current ? Theme.c.dropActive : (item.hovered ? Theme.c.surface : "transparent")
        border.width: item.keyboardCurrent ? 2 : 0
        border.color: Theme.c.accent
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
                if (item.ListView.view) item.ListView.view.forceActiveFocus()
            }
            Keys.onEscapePressed: {
                item.editing = false
                if (item.ListView.view) item.ListView.view.forceActiveFocus()
            }
            onActiveFocusChanged: if (!activeFocus) item.editing = false
        }
        ToolButton {
            visible: item.hovered && !item.editing
            // Sized to fit the row (the style's 40 px default would stick out of it).
            implicitWidth: 26
            implicitHeight: 26
            padding: 2
            text: "✎"
            focusPolicy: Qt.NoFocus
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
            focusPolicy: Qt.NoFocus
            Accessible.name: qsTr("Delete chat")
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Delete")
            onClicked: item.controller.deleteChat(item.chatId)
        }
    }
}
