import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth
import Hearth.App

// How a reply ended, on its bubble: being written, stopped by the person, cut at the length
// limit or by a full context, ended by an error, or interrupted when Hearth closed; with
// Continue where the model can write on.
RowLayout {
    id: root

    required property ChatController controller
    property var messageId: 0
    property string replyState: ""
    property bool canContinue: false

    readonly property string label: {
        switch (replyState) {
        case "streaming": return qsTr("Writing…")
        case "stopped": return qsTr("Stopped by you")
        case "length": return qsTr("Stopped at the reply length limit")
        case "context-full": return qsTr("Stopped: the chat filled the model's context")
        case "error": return qsTr("Stopped by an error")
        case "interrupted": return qsTr("Interrupted: Hearth closed while writing this")
        }
        return ""
    }

    visible: label.length > 0
    spacing: 6

    Label {
        objectName: "replyStateLabel"
        text: root.label
        color: root.replyState === "error" || root.replyState === "context-full"
               ? Theme.c.error : Theme.c.textMuted
        font.pixelSize: Theme.fontSmall
        font.italic: true
        Accessible.role: Accessible.StaticText
        Accessible.name: text
    }
    MessageAction {
        objectName: "continueButton"
        visible: root.canContinue
        enabled: root.controller.modelState === "ready" && !root.controller.generating
        text: qsTr("Continue")
        Accessible.description: qsTr("Let the model write on from the end of this reply")
        onClicked: root.controller.continueReply(root.messageId)
    }
}
