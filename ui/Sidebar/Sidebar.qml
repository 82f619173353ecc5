import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Hearth
import Hearth.App

// New chat, full-text search with highlighted snippets, and the chats grouped by date.
Rectangle {
    id: sidebar

    required property ChatController controller
    readonly property bool searching: searchField.text.trim().length > 0

    function focusSearch() {
        searchField.forceActiveFocus()
        searchField.selectAll()
    }

    color: Theme.c.surfaceAlt
    Accessible.role: Accessible.Pane
    Accessible.name: qsTr("Chats")

    Rectangle {
        anchors.right: parent.right
        width: 1
        height: parent.height
        color: Theme.c.border
    }

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 10
        spacing: 8

        AccentButton {
            objectName: "newChatButton"
            Layout.fillWidth: true
            text: qsTr("New chat")
            Accessible.description: qsTr("Start a new chat (Ctrl+N)")
            onClicked: sidebar.controller.newChat()
        }
        TextField {
            id: searchField
            objectName: "searchField"
            Layout.fillWidth: true
            placeholderText: qsTr("Search chats (Ctrl+F)")
            Accessible.name: qsTr("Search chats")
            color: Theme.c.text
            font.pixelSize: Theme.fontBody
            onTextChanged: sidebar.controller.search(text)
            Keys.onEscapePressed: text = ""
        }
        ListView {
            id: searchList
            objectName: "searchResults"
            Layout.fillWidth: true
            Layout.fillHeight: true
            visible: sidebar.searching
            clip: true
            spacing: 4
            model: sidebar.controller.searchResults
            delegate: SearchResultGroup {
                required property var modelData
                width: ListView.view.width
                controller: sidebar.controller
                group: modelData
            }
            Label {
                anchors.centerIn: parent
                visible: searchList.count === 0
                text: qsTr("No matches")
                color: Theme.c.textMuted
                font.pixelSize: Theme.fontBody
            }
        }
        ListView {
            id: chatList
            objectName: "chatList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            visible: !sidebar.searching
            clip: true
            model: sidebar.controller.chats
            section.property: "section"
            section.delegate: Label {
                required property string section
                text: section
                topPadding: 10
                bottomPadding: 4
                leftPadding: 6
                color: Theme.c.textMuted
                font.pixelSize: Theme.fontSmall
                font.bold: true
                Accessible.role: Accessible.Heading
            }
            delegate: ChatListItem {
                width: ListView.view.width
                controller: sidebar.controller
            }
            Label {
                anchors.centerIn: parent
                width: parent.width - 20
                visible: chatList.count === 0
                text: qsTr("Your chats will appear here.")
                horizontalAlignment: Text.AlignHCenter
                wrapMode: Text.Wrap
                color: Theme.c.textMuted
                font.pixelSize: Theme.fontBody
            }
        }
        // The trash and importing an exported chat.
        RowLayout {
            Layout.fillWidth: true
            spacing: 4
            HeaderButton {
                objectName: "trashButton"
                text: sidebar.controller.trash.length > 0
                      ? qsTr("Trash (%1)").arg(sidebar.controller.trash.length) : qsTr("Trash")
                tip: qsTr("Deleted chats, kept for 30 days")
                onClicked: trashDialog.open()
            }
            HeaderButton {
                objectName: "modelLibraryButton"
                text: qsTr("Models")
                tip: qsTr("The models in your folders and the recent ones")
                onClicked: modelLibrary.open()
            }
            Item { Layout.fillWidth: true }
            HeaderButton {
                objectName: "importButton"
                text: qsTr("Import…")
                tip: qsTr("Import a chat exported as JSON")
                onClicked: importDialog.open()
            }
        }
    }

    ModelLibraryDialog {
        id: modelLibrary
        objectName: "modelLibraryDialog"
        controller: sidebar.controller
        parent: Overlay.overlay
    }
    TrashDialog {
        id: trashDialog
        objectName: "trashDialog"
        controller: sidebar.controller
        parent: Overlay.overlay
    }
    FileDialog {
        id: importDialog
        title: qsTr("Import a chat")
        fileMode: FileDialog.OpenFile
        nameFilters: [qsTr("Hearth chats (*.json)")]
        onAccepted: sidebar.controller.importChat(selectedFile)
    }
}
