import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth

// An inline message with a dismiss button and an optional action: errors and notices that
// should not pop up. Errors in the error colours; everything else in quiet neutral ones.
Rectangle {
    id: banner

    property string message
    property bool isError: true
    // One line, elided (AppBanners collapses several messages this way).
    property bool singleLine: false
    property string actionText: ""
    signal dismissed
    signal action

    visible: message.length > 0
    implicitHeight: row.implicitHeight + 20
    radius: 8
    color: isError ? Theme.c.errorSurface : Theme.c.surfaceAlt
    border.color: isError ? Theme.c.error : Theme.c.border
    border.width: 1

    Accessible.role: Accessible.AlertMessage
    Accessible.description: isError ? qsTr("Error") : qsTr("Notice")
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
            maximumLineCount: banner.singleLine ? 1 : 100
            elide: Text.ElideRight
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
