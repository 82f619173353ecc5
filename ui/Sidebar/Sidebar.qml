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

    function focusList() {
        chatList.forceActiveFocus()
    }
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
            // Escape clears the search; on an empty field it goes on (closing the drawer).
            Keys.onEscapePressed: event => {
                event.accepted = text.length > 0
                text = ""
            }
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
            // One Tab stop; the keys below act on the row the arrows are on.
            activeFocusOnTab: true
            keyNavigationEnabled: true
            highlightMoveDuration: 0
            Accessible.role: Accessible.List
            Accessible.name: qsTr("Chats")
            Accessible.description: qsTr("Arrow keys move, Enter opens, F2 renames, Delete deletes")
            // Arriving by keyboard: a row is always chosen, so the ring shows where the keys act.
            onActiveFocusChanged: if (activeFocus && currentIndex < 0 && count > 0) currentIndex = 0
            // The list is rebuilt when chats change (a rename moves a chat to the top): the
            // chosen row stays on the same chat.
            property var keptChatId: 0
            Connections {
                target: sidebar.controller.chats
                function onModelAboutToBeReset() {
                    chatList.keptChatId = chatList.currentItem ? chatList.currentItem.chatId : 0
                }
                function onModelReset() {
                    Qt.callLater(() => {
                        const row = sidebar.controller.chats.indexOf(chatList.keptChatId)
                        if (row >= 0)
                            chatList.currentIndex = row
                    })
                }
            }
            Keys.onPressed: event => {
                const row = chatList.currentItem
                if (!row || row.editing)
                    return
                if (event.key === Qt.Key_Return || event.key === Qt.Key_Enter || event.key === Qt.Key_Space) {
                    sidebar.controller.openChat(row.chatId)
                } else if (event.key === Qt.Key_F2) {
                    row.startRename()
                } else if (event.key === Qt.Key_Delete) {
                    sidebar.controller.deleteChat(row.chatId)
                } else if (event.key === Qt.Key_Menu
                           || (event.key === Qt.Key_F10 && (event.modifiers & Qt.ShiftModifier))) {
                    row.openContextMenu(20, row.height / 2)
                } else {
                    return
                }
                event.accepted = true
            }
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
