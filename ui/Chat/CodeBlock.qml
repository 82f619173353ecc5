import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth

// A fenced code block: monospace text, the language on top and a copy button.
Rectangle {
    id: block

    property string code
    property string language
    signal copyRequested

    implicitHeight: header.height + codeText.implicitHeight + 16
    radius: 8
    color: Theme.c.codeSurface
    border.color: Theme.c.border
    Accessible.role: Accessible.StaticText
    Accessible.name: qsTr("Code block %1").arg(language)

    Rectangle {
        id: header
        width: parent.width
        height: 28
        radius: 8
        color: Theme.c.codeHeader
        RowLayout {
            anchors.fill: parent
            anchors.leftMargin: 10
            anchors.rightMargin: 4
            Label {
                objectName: "codeLanguage"
                text: block.language.length > 0 ? block.language : qsTr("code")
                color: Theme.c.textMuted
                font.pixelSize: Theme.fontSmall
                font.family: "monospace"
            }
            Item { Layout.fillWidth: true }
            MessageAction {
                objectName: "copyCodeButton"
                property bool copied: false
                text: copied ? qsTr("Copied") : qsTr("Copy code")
                onClicked: {
                    block.copyRequested()
                    copied = true
                    resetTimer.restart()
                }
                Timer {
                    id: resetTimer
                    interval: 1500
                    onTriggered: parent.copied = false
                }
            }
        }
    }
    TextEdit {
        id: codeText
        anchors.top: header.bottom
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.margins: 8
        text: block.code
        readOnly: true
        selectByMouse: true
        wrapMode: TextEdit.WrapAnywhere
        font.family: "monospace"
        font.pixelSize: Theme.fontBody - 1
        color: Theme.c.text
        selectionColor: Theme.c.accent
    }
}
