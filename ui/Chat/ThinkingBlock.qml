import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth

// A reasoning model's thinking (Qwen3, QwQ, DeepSeek-R1 write it between <think> and
// </think>), collapsed above the answer: a one-line header while it streams or once it is
// done, the text itself only when the user opens it.
Column {
    id: root

    property string text
    property bool done: false
    property bool expanded: false
    readonly property int words: text.trim().length === 0 ? 0 : text.trim().split(/\s+/).length

    spacing: 4

    AbstractButton {
        id: header
        objectName: "thinkingHeader"
        width: Math.min(root.width, label.implicitWidth + 24)
        height: label.implicitHeight + 8
        focusPolicy: Qt.StrongFocus
        Accessible.role: Accessible.Button
        Accessible.name: label.text
        Accessible.description: root.expanded ? qsTr("Hide the model's thinking")
                                              : qsTr("Show the model's thinking")
        onClicked: root.expanded = !root.expanded

        background: Rectangle {
            radius: 6
            color: header.hovered ? Theme.c.surfaceAlt : "transparent"
            border.color: header.visualFocus ? Theme.c.accent : "transparent"
        }
        contentItem: Label {
            id: label
            leftPadding: 6
            text: (root.expanded ? "▾ " : "▸ ")
                  + (!root.done ? qsTr("Thinking…")
                             : root.words === 1 ? qsTr("Thought for 1 word")
                             : qsTr("Thought for %1 words").arg(root.words))
            color: Theme.c.textMuted
            font.pixelSize: Theme.fontBody
            font.italic: !root.done
        }
    }

    TextEdit {
        objectName: "thinkingText"
        visible: root.expanded
        width: root.width
        leftPadding: 10
        text: root.text.trim()
        textFormat: TextEdit.PlainText
        readOnly: true
        selectByMouse: true
        wrapMode: TextEdit.Wrap
        color: Theme.c.textMuted
        selectionColor: Theme.c.accent
        selectedTextColor: Theme.c.accentText
        font.pixelSize: Theme.fontBody
        Accessible.role: Accessible.StaticText
        Accessible.name: qsTr("Thinking: %1").arg(text)
    }
}
