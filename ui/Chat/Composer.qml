import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth
import Hearth.App

// Where the person writes: Enter sends, Shift+Enter starts a new line, Stop while a reply is
// being generated; disabled with a hint while no model is loaded.
Rectangle {
    id: composer

    required property ChatController controller
    readonly property bool canType: controller.modelState === "ready"

    function focusInput() { input.forceActiveFocus() }
    function submit() {
        if (controller.send(input.text))
            input.text = ""
    }

    implicitHeight: Math.min(row.implicitHeight, 220) + 16
    radius: Theme.radius
    color: Theme.c.surface
    border.color: input.activeFocus ? Theme.c.accent : Theme.c.border

    RowLayout {
        id: row
        anchors.fill: parent
        anchors.margins: 8
        spacing: 8

        ScrollView {
            Layout.fillWidth: true
            Layout.fillHeight: true
            Layout.preferredHeight: Math.min(input.implicitHeight, 200)
            TextArea {
                id: input
                objectName: "composerInput"
                // Tab moves on (a text field must not trap the keyboard).
                Keys.onTabPressed: nextItemInFocusChain(true).forceActiveFocus(Qt.TabFocusReason)
                Keys.onBacktabPressed: nextItemInFocusChain(false).forceActiveFocus(Qt.BacktabFocusReason)
                enabled: composer.canType
                wrapMode: TextEdit.Wrap
                color: Theme.c.text
                font.pixelSize: Theme.fontBody
                placeholderText: composer.canType
                                 ? qsTr("Message %1 (Enter to send, Shift+Enter for a new line)").arg(composer.controller.modelInfo.name)
                                 : qsTr("Load a model to start chatting: drop a .gguf file anywhere or use Load model…")
                placeholderTextColor: Theme.c.textMuted
                background: null
                Accessible.name: qsTr("Message")
                Keys.onPressed: event => {
                    if ((event.key === Qt.Key_Return || event.key === Qt.Key_Enter)
                            && !(event.modifiers & Qt.ShiftModifier)) {
                        event.accepted = true
                        if (!composer.controller.generating)
                            composer.submit()
                    }
                }
            }
        }
        AccentButton {
            objectName: "sendButton"
            visible: !composer.controller.generating
            enabled: composer.canType && input.text.trim().length > 0
            text: qsTr("Send")
            Accessible.description: qsTr("Send the message (Enter)")
            onClicked: composer.submit()
        }
        AccentButton {
            objectName: "stopButton"
            visible: composer.controller.generating
            text: qsTr("Stop")
            Accessible.description: qsTr("Stop the reply (Esc)")
            onClicked: composer.controller.stop()
        }
    }
}
