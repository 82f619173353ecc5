import QtQuick
import QtQuick.Controls
import Hearth

// A small text button under a message. A Tab stop with a visible focus ring.
ToolButton {
    id: control

    property string tip

    font.pixelSize: Theme.fontSmall
    focusPolicy: Qt.StrongFocus
    Accessible.role: Accessible.Button
    Accessible.name: text
    Accessible.description: tip
    ToolTip.visible: hovered && tip.length > 0
    ToolTip.text: tip
    ToolTip.delay: 500
    contentItem: Text {
        text: control.text
        font: control.font
        color: control.enabled ? Theme.c.textMuted : Theme.c.border
        horizontalAlignment: Text.AlignHCenter
        verticalAlignment: Text.AlignVCenter
    }
    background: Rectangle {
        implicitHeight: 24
        radius: 4
        color: control.hovered || control.visualFocus ? Theme.c.surfaceAlt : "transparent"
        border.width: control.visualFocus ? 2 : 0
        border.color: Theme.c.accent
    }
}
