import QtQuick
import QtQuick.Controls
import Hearth

// A flat tool-bar button that follows the theme.
ToolButton {
    id: control

    property string tip

    font.pixelSize: Theme.fontBody
    Accessible.name: tip.length > 0 ? tip : text
    ToolTip.visible: hovered && tip.length > 0
    ToolTip.text: tip
    ToolTip.delay: 500

    contentItem: Text {
        text: control.text
        font: control.font
        color: Theme.c.text
        horizontalAlignment: Text.AlignHCenter
        verticalAlignment: Text.AlignVCenter
    }
    background: Rectangle {
        implicitWidth: 36
        implicitHeight: 32
        radius: 6
        color: control.down ? Theme.c.border : (control.hovered ? Theme.c.surfaceAlt : "transparent")
        border.width: control.visualFocus ? 2 : 0
        border.color: Theme.c.accent
    }
}
