import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth
import Hearth.App

// Above the messages: the chat's title, how full its context is, its own settings and Export
// (Markdown or JSON).
RowLayout {
    id: header

    required property ChatController controller
    readonly property alias chatSettingsPanel: chatSettings

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
    Label {
        objectName: "headerContextMeter"
        readonly property var s: header.controller.stats
        visible: s.contextSize !== undefined && s.contextSize > 0
        text: visible ? qsTr("%1 / %2 tokens").arg(s.contextUsed).arg(s.contextSize) : ""
        color: Theme.c.textMuted
        font.pixelSize: Theme.fontSmall
        Accessible.name: qsTr("Context used: %1 of %2 tokens").arg(s.contextUsed).arg(s.contextSize)
    }
    HeaderButton {
        objectName: "chatSettingsButton"
        visible: header.controller.currentChatId !== 0
        text: qsTr("Chat settings")
        tip: qsTr("This chat's system prompt and sampling")
        onClicked: chatSettings.open()
    }
    ChatSettingsPanel {
        id: chatSettings
        objectName: "chatSettingsPanel"
        controller: header.controller
        parent: Overlay.overlay
        x: parent ? (parent.width - width) / 2 : 0
        y: 60
    }
    HeaderButton {
        objectName: "exportButton"
        visible: header.controller.currentChatId !== 0
        text: qsTr("Export ▾")
        tip: qsTr("Save this chat as Markdown, text or JSON, or copy it")
        onClicked: exportMenu.open()
        Menu {
            id: exportMenu
            y: parent.height
            MenuItem {
                text: qsTr("Markdown (.md)")
                Accessible.name: text
                onTriggered: saveDialog.openFor(header.controller.currentChatId, "markdown")
            }
            MenuItem {
                text: qsTr("Plain text (.txt)")
                Accessible.name: text
                onTriggered: saveDialog.openFor(header.controller.currentChatId, "text")
            }
            MenuItem {
                text: qsTr("JSON, every branch (.json)")
                Accessible.name: text
                onTriggered: saveDialog.openFor(header.controller.currentChatId, "json")
            }
            MenuSeparator {}
            MenuItem {
                objectName: "copyConversation"
                text: qsTr("Copy conversation")
                Accessible.name: text
                onTriggered: header.controller.copyConversation()
            }
        }
    }
    SaveChatDialog {
        id: saveDialog
        objectName: "saveChatDialog"
        controller: header.controller
        parent: Overlay.overlay
    }
}
