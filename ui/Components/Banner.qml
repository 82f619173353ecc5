import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth

// An inline message with a dismiss button: errors and notices that should not pop up.
Rectangle {
    id: banner

    property string message
    property bool isError: true
    signal dismissed

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
        ToolButton {
            text: "✕"
            Accessible.name: qsTr("Dismiss message")
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Dismiss")
            onClicked: banner.dismissed()
        }
    }
}
