import QtQuick
import QtQuick.Controls
import Hearth

// A small text button under a message.
ToolButton {
    id: control
    font.pixelSize: Theme.fontSmall
    Accessible.name: text
    contentItem: Text {
        text: control.text
        font: control.font
        color: control.enabled ? Theme.c.textMuted : Theme.c.border
    }
    background: Rectangle {
        implicitHeight: 24
        radius: 4
        color: control.hovered ? Theme.c.surfaceAlt : "transparent"
    }
}
