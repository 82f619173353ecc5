import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Hearth
import Hearth.App

// Above the messages: the chat's title and Export (Markdown or JSON).
RowLayout {
    id: header

    required property ChatController controller
    property string format: "markdown"

    spacing: 8
    Label {
        objectName: "chatTitle"
        Layout.fillWidth: true
        text: header.controller.currentChatId !== 0 ? header.controller.currentChatTitle : qsTr("New chat")
        elide: Text.ElideRight
        color: Theme.c.text
        font.pixelSize: Theme.fontLarge
        font.bold: true
        Accessible.role: Accessible.Heading
    }
    HeaderButton {
        objectName: "exportButton"
        visible: header.controller.currentChatId !== 0
        text: qsTr("Export ▾")
        tip: qsTr("Save this chat as Markdown or JSON")
        onClicked: exportMenu.open()
        Menu {
            id: exportMenu
            y: parent.height
            MenuItem {
                text: qsTr("Markdown (.md)")
                onTriggered: { header.format = "markdown"; saveDialog.open() }
            }
            MenuItem {
                text: qsTr("JSON (.json)")
                onTriggered: { header.format = "json"; saveDialog.open() }
            }
        }
    }
    FileDialog {
        id: saveDialog
        title: qsTr("Export chat")
        fileMode: FileDialog.SaveFile
        defaultSuffix: header.format === "json" ? "json" : "md"
        nameFilters: header.format === "json" ? [qsTr("JSON files (*.json)")] : [qsTr("Markdown files (*.md)")]
        onAccepted: header.controller.exportChat(header.controller.currentChatId, selectedFile, header.format)
    }
}
