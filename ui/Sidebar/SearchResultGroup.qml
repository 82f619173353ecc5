import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth
import Hearth.App

// One chat in the search results: its title once, then each matching message with its
// highlighted snippet. Choosing a match opens the chat on that message's branch, scrolled to
// it and highlighted.
ColumnLayout {
    id: root

    required property ChatController controller
    required property var group  // {chatId, title, hits: [{messageId, role, snippet}]}

    spacing: 2

    Label {
        Layout.fillWidth: true
        leftPadding: 6
        topPadding: 6
        text: root.group.title.length > 0 ? root.group.title : qsTr("Untitled chat")
        elide: Text.ElideRight
        color: Theme.c.text
        font.pixelSize: Theme.fontBody
        font.bold: true
        Accessible.role: Accessible.Heading
        Accessible.name: qsTr("%1, %n match(es)", "", root.group.hits.length).arg(text)
    }
    Repeater {
        model: root.group.hits
        delegate: ItemDelegate {
            id: hit
            required property var modelData
            objectName: "searchHit"
            Layout.fillWidth: true
            Accessible.name: (modelData.role === "user" ? qsTr("Your message: %1")
                                                        : qsTr("Reply: %1"))
                             .arg(modelData.snippet.replace(/<[^>]*>/g, ""))
            onClicked: root.controller.openSearchResult(root.group.chatId, modelData.messageId)
            contentItem: Label {
                text: (hit.modelData.role === "user" ? qsTr("You: ") : "") + hit.modelData.snippet
                textFormat: Text.StyledText
                wrapMode: Text.Wrap
                maximumLineCount: 3
                elide: Text.ElideRight
                color: Theme.c.textMuted
                font.pixelSize: Theme.fontSmall
            }
        }
    }
}
