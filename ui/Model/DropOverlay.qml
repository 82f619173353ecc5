import QtQuick
import QtQuick.Controls
import Hearth

// Shown over the whole window while a file is dragged over it.
Rectangle {
    color: Theme.c.dropActive
    opacity: 0.92
    border.width: 3
    border.color: Theme.c.accent
    Accessible.role: Accessible.Grouping
    Accessible.name: qsTr("Drop to load the model")

    Label {
        anchors.centerIn: parent
        text: qsTr("Drop a .gguf model to load it")
        color: Theme.c.text
        font.pixelSize: Theme.fontLarge
        font.bold: true
    }
}
