import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth

// Asked when another start of Hearth (a double-click on a .gguf file) hands over a model while
// a reply is being written: opening it stops the reply and replaces the loaded model.
Dialog {
    id: dialog

    property url modelUrl
    readonly property string fileName: {
        const path = decodeURIComponent(modelUrl.toString())
        return path.substring(path.lastIndexOf("/") + 1)
    }

    title: qsTr("Open another model?")
    modal: true
    anchors.centerIn: parent
    width: Math.min(parent ? parent.width - 48 : 440, 440)

    background: Rectangle {
        color: Theme.c.surface
        border.color: Theme.c.border
        radius: Theme.radius
    }

    ColumnLayout {
        anchors.fill: parent
        Label {
            id: message
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            color: Theme.c.text
            Accessible.role: Accessible.AlertMessage
            Accessible.name: text
            text: qsTr("Hearth is writing a reply. Opening %1 stops the reply and replaces the loaded model.")
                  .arg(dialog.fileName)
        }
    }

    standardButtons: Dialog.Open | Dialog.Cancel
    Component.onCompleted: {
        const open = standardButton(Dialog.Open)
        open.text = Qt.binding(() => qsTr("Open %1").arg(dialog.fileName))
        open.Accessible.name = Qt.binding(() => open.text)
        const keep = standardButton(Dialog.Cancel)
        keep.text = qsTr("Keep the current model")
        keep.Accessible.name = keep.text
    }
}
