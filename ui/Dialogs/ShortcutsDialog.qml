import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth

// Every keyboard shortcut in one sheet (F1 or Ctrl+/).
Dialog {
    id: dialog

    readonly property var shortcuts: [
        { keys: qsTr("Enter"), what: qsTr("Send the message") },
        { keys: qsTr("Shift+Enter"), what: qsTr("New line in the message") },
        { keys: qsTr("Esc"), what: qsTr("Stop the reply; cancel an edit or a rename") },
        { keys: qsTr("Ctrl+Enter"), what: qsTr("Save an edited message and ask again") },
        { keys: qsTr("Ctrl+N"), what: qsTr("New chat") },
        { keys: qsTr("Ctrl+F"), what: qsTr("Search chats") },
        { keys: qsTr("Ctrl+B"), what: qsTr("Go to the chat list") },
        { keys: qsTr("↑ ↓, Enter"), what: qsTr("Choose a chat in the list and open it") },
        { keys: qsTr("F2"), what: qsTr("Rename the chosen chat") },
        { keys: qsTr("Delete"), what: qsTr("Delete the chosen chat (Undo in the banner)") },
        { keys: qsTr("Menu, Shift+F10"), what: qsTr("Actions of the chosen chat or message") },
        { keys: qsTr("Tab, Shift+Tab"), what: qsTr("Move between controls and message actions") },
        { keys: qsTr("Ctrl+Shift+C"), what: qsTr("Copy the last answer") },
        { keys: qsTr("Ctrl+,"), what: qsTr("Settings") },
        { keys: qsTr("F1, Ctrl+/"), what: qsTr("This list of shortcuts") }
    ]

    objectName: "shortcutsDialog"
    title: qsTr("Keyboard shortcuts")
    modal: true
    anchors.centerIn: parent
    width: Math.min(parent ? parent.width - 48 : 520, 560)
    height: Math.min(parent ? parent.height - 48 : 600, implicitHeight)

    background: Rectangle {
        color: Theme.c.surface
        border.color: Theme.c.border
        radius: Theme.radius
    }

    footer: DialogButtonBox {
        background: null
        Button {
            objectName: "shortcutsCloseButton"
            text: qsTr("Close")
            Accessible.name: text
            DialogButtonBox.buttonRole: DialogButtonBox.RejectRole
        }
    }

    ScrollView {
        anchors.fill: parent
        contentWidth: availableWidth
        clip: true

        GridLayout {
            width: parent.width
            Accessible.role: Accessible.Pane
            Accessible.name: dialog.title
            columns: 2
            columnSpacing: 16
            rowSpacing: 6
            Repeater {
                model: dialog.shortcuts
                delegate: Label {
                    required property var modelData
                    required property int index
                    Layout.column: 0
                    Layout.row: index
                    text: modelData.keys
                    color: Theme.c.text
                    font.pixelSize: Theme.fontBody
                    font.bold: true
                    Accessible.role: Accessible.StaticText
                    Accessible.name: qsTr("%1: %2").arg(modelData.keys).arg(modelData.what)
                }
            }
            Repeater {
                model: dialog.shortcuts
                delegate: Label {
                    required property var modelData
                    required property int index
                    Layout.column: 1
                    Layout.row: index
                    Layout.fillWidth: true
                    text: modelData.what
                    wrapMode: Text.Wrap
                    color: Theme.c.textMuted
                    font.pixelSize: Theme.fontBody
                    Accessible.ignored: true
                }
            }
        }
    }
}
