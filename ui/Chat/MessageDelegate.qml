import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth
import Hearth.App

// One message: its text (Markdown for replies), the branch switcher ‹ 2/3 ›, and actions:
// copy, regenerate (replies), edit (own messages, which starts a new branch). The actions are
// Tab stops; a right click (or the Menu key inside the message) opens the same actions as a
// context menu. A screen reader reads the message as "Assistant: …" / "You: …".
FocusScope {
    id: root

    required property ChatController controller
    required property var messageId
    required property string role
    required property string content
    required property bool streaming
    required property bool interrupted
    required property int siblingIndex
    required property int siblingCount
    required property string stats
    required property string replyState
    required property bool canContinue
    required property int index

    readonly property bool isUser: role === "user"
    property bool editing: false

    implicitHeight: column.implicitHeight
    Accessible.role: Accessible.ListItem
    Accessible.name: (isUser ? qsTr("You: %1") : qsTr("Assistant: %1")).arg(content)
    Accessible.description: root.interrupted ? qsTr("interrupted") : root.stats

    function startEdit() {
        editor.text = root.content
        root.editing = true
        editor.focusInput()
    }
    function openContextMenu(x, y) {
        contextMenu.popup(root, x, y)
    }
    // Tabbing into a message scrolls it into view (the list does not follow focus itself).
    onActiveFocusChanged: if (activeFocus && ListView.view) ListView.view.positionViewAtIndex(index, ListView.Contain)
    Keys.onPressed: event => {
        if (event.key === Qt.Key_Menu || (event.key === Qt.Key_F10 && (event.modifiers & Qt.ShiftModifier))) {
            event.accepted = true
            root.openContextMenu(20, 20)
        }
    }
    Menu {
        id: contextMenu
        objectName: "messageContextMenu"
        MenuItem {
            text: qsTr("Copy")
            Accessible.name: text
            onTriggered: root.controller.copyText(root.content)
        }
        MenuItem {
            visible: !root.isUser
            height: visible ? implicitHeight : 0
            enabled: root.controller.modelState === "ready" && !root.controller.generating
            text: qsTr("Regenerate")
            Accessible.name: text
            onTriggered: root.controller.regenerate(root.messageId)
        }
        MenuItem {
            visible: root.isUser
            height: visible ? implicitHeight : 0
            enabled: root.controller.modelState === "ready" && !root.controller.generating
            text: qsTr("Edit")
            Accessible.name: text
            onTriggered: root.startEdit()
        }
        MenuItem {
            visible: root.siblingCount > 1
            height: visible ? implicitHeight : 0
            enabled: root.siblingIndex > 0 && !root.controller.generating
            text: qsTr("Previous version")
            Accessible.name: text
            onTriggered: root.controller.switchBranch(root.messageId, -1)
        }
        MenuItem {
            visible: root.siblingCount > 1
            height: visible ? implicitHeight : 0
            enabled: root.siblingIndex + 1 < root.siblingCount && !root.controller.generating
            text: qsTr("Next version")
            Accessible.name: text
            onTriggered: root.controller.switchBranch(root.messageId, 1)
        }
    }

    ColumnLayout {
        id: column
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.leftMargin: root.isUser ? Math.max(80, parent.width * 0.22) : 20
        anchors.rightMargin: 20
        spacing: 4

        Label {
            text: root.isUser ? qsTr("You") : qsTr("Assistant")
            color: Theme.c.textMuted
            font.pixelSize: Theme.fontSmall
            font.bold: true
            Layout.alignment: root.isUser ? Qt.AlignRight : Qt.AlignLeft
        }
        Rectangle {
            objectName: "messageBubble"
            Layout.fillWidth: true
            implicitHeight: (root.editing ? editor.implicitHeight : body.implicitHeight) + 20
            radius: Theme.radius
            color: root.isUser ? Theme.c.dropActive : Theme.c.surface
            // A search result opened this message.
            border.color: root.messageId === root.controller.highlightedMessageId
                          ? Theme.c.accent : Theme.c.border
            border.width: root.messageId === root.controller.highlightedMessageId ? 2 : 1

            MessageContent {
                id: body
                objectName: "messageContent"
                visible: !root.editing
                anchors.fill: parent
                anchors.margins: 10
                controller: root.controller
                text: root.content
                markdown: !root.isUser
                streaming: root.streaming
            }
            MessageEditor {
                id: editor
                visible: root.editing
                anchors.fill: parent
                anchors.margins: 10
                onSaved: text => {
                    root.editing = false
                    root.controller.editMessage(root.messageId, text)
                }
                onCancelled: root.editing = false
            }
            TapHandler {
                acceptedButtons: Qt.RightButton
                onTapped: eventPoint => root.openContextMenu(eventPoint.position.x,
                                                             eventPoint.position.y)
            }
        }
        ReplyState {
            controller: root.controller
            messageId: root.messageId
            replyState: root.replyState
            canContinue: root.canContinue
        }
        RowLayout {
            Layout.alignment: root.isUser ? Qt.AlignRight : Qt.AlignLeft
            spacing: 2
            visible: !root.streaming && !root.editing

            MessageAction {
                visible: root.siblingCount > 1
                text: "‹"
                tip: qsTr("Previous version")
                enabled: root.siblingIndex > 0 && !root.controller.generating
                Accessible.name: qsTr("Previous version")
                onClicked: root.controller.switchBranch(root.messageId, -1)
            }
            Label {
                objectName: "branchLabel"
                visible: root.siblingCount > 1
                text: qsTr("%1/%2").arg(root.siblingIndex + 1).arg(root.siblingCount)
                color: Theme.c.textMuted
                font.pixelSize: Theme.fontSmall
            }
            MessageAction {
                visible: root.siblingCount > 1
                text: "›"
                tip: qsTr("Next version")
                enabled: root.siblingIndex + 1 < root.siblingCount && !root.controller.generating
                Accessible.name: qsTr("Next version")
                onClicked: root.controller.switchBranch(root.messageId, 1)
            }
            MessageAction {
                text: qsTr("Copy")
                onClicked: root.controller.copyText(root.content)
            }
            MessageAction {
                visible: !root.isUser
                enabled: root.controller.modelState === "ready" && !root.controller.generating
                text: qsTr("Regenerate")
                onClicked: root.controller.regenerate(root.messageId)
            }
            MessageAction {
                visible: root.isUser
                enabled: root.controller.modelState === "ready" && !root.controller.generating
                text: qsTr("Edit")
                onClicked: root.startEdit()
            }
        }
        // The reply's numbers wrap under the actions: they must not widen the chat column.
        Label {
            objectName: "messageStats"
            Layout.fillWidth: true
            visible: !root.streaming && !root.editing && root.stats.length > 0
            horizontalAlignment: root.isUser ? Text.AlignRight : Text.AlignLeft
            wrapMode: Text.Wrap
            text: root.stats
            color: Theme.c.textMuted
            font.pixelSize: Theme.fontSmall
            leftPadding: 6
        }
        // Overflow: the model no longer sees this message and those above it.
        Label {
            objectName: "contextNotice"
            visible: root.messageId === root.controller.contextDroppedUpTo && root.messageId !== 0
            Layout.fillWidth: true
            Layout.topMargin: 6
            horizontalAlignment: Text.AlignHCenter
            wrapMode: Text.Wrap
            text: qsTr("Earlier messages up to here are no longer seen by the model: the chat is longer than its context. The system prompt is kept.")
            color: Theme.c.textMuted
            font.pixelSize: Theme.fontSmall
            font.italic: true
        }
    }
}
