import QtQuick
import QtQuick.Controls
import Hearth

// The primary button: accent fill, readable in both palettes.
Button {
    id: control

    padding: 10
    leftPadding: 18
    rightPadding: 18
    font.pixelSize: Theme.fontBody
    Accessible.role: Accessible.Button
    Accessible.name: text

    contentItem: Text {
        text: control.text
        font: control.font
        color: Theme.c.accentText
        horizontalAlignment: Text.AlignHCenter
        verticalAlignment: Text.AlignVCenter
    }
    background: Rectangle {
        implicitWidth: 120
        implicitHeight: 40
        radius: 8
        color: control.down || control.hovered ? Theme.c.accentHover : Theme.c.accent
        border.width: control.visualFocus ? 2 : 0
        border.color: Theme.c.text
    }
}
