import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth

// An inline message with a dismiss button and an optional action: errors and notices that
// should not pop up.
Rectangle {
    id: banner

    property string message
    property bool isError: true
    property string actionText: ""
    signal dismissed
    signal action

    visible: message.length > 0
    implicitHeight: row.implicitHeight + 20
    radius: 8
    color: isError ? Theme.c.errorSurface : Theme.c.successSurface
    border.color: isError ? Theme.c.error : Theme.c.success
    border.width: 1

    Accessible.role: Accessible.AlertMessage
    Accessible.name: message

    RowLayout {
        id: row
        anchors.fill: parent
        anchors.margins: 10
        spacing: 10

        Label {
            objectName: "bannerText"
            Layout.fillWidth: true
            text: banner.message
            wrapMode: Text.Wrap
            color: Theme.c.text
            font.pixelSize: Theme.fontBody
        }
        Button {
            objectName: "bannerAction"
            visible: banner.actionText.length > 0
            text: banner.actionText
            Accessible.name: banner.actionText
            onClicked: banner.action()
        }
        HeaderButton {
            text: "✕"
            tip: qsTr("Dismiss")
            Accessible.name: qsTr("Dismiss message")
            onClicked: banner.dismissed()
        }
    }
}
