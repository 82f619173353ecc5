import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth
import Hearth.App

// While a model loads: a progress bar, the phase (converting to 4-bit or loading) with the
// percentage, the bytes, and Cancel.
Rectangle {
    id: root

    required property ChatController controller

    visible: controller.modelState === "loading"
    implicitHeight: row.implicitHeight + 16
    radius: 8
    color: Theme.c.surface
    border.color: Theme.c.border
    Accessible.role: Accessible.ProgressBar
    Accessible.name: controller.loadText

    RowLayout {
        id: row
        anchors.fill: parent
        anchors.margins: 8
        spacing: 10
        Label {
            text: qsTr("Loading %1").arg(root.controller.modelInfo.name || "")
            color: Theme.c.text
            font.pixelSize: Theme.fontBody
            elide: Text.ElideMiddle
            Layout.maximumWidth: 260
        }
        ProgressBar {
            objectName: "loadProgressBar"
            Layout.fillWidth: true
            from: 0
            to: 1
            value: root.controller.loadFraction
        }
        Label {
            objectName: "loadPercent"
            text: root.controller.loadText
            color: Theme.c.text
            font.pixelSize: Theme.fontBody
        }
        Label {
            text: root.controller.loadBytesText
            color: Theme.c.textMuted
            font.pixelSize: Theme.fontSmall
        }
        Button {
            objectName: "cancelLoadButton"
            text: qsTr("Cancel")
            Accessible.name: qsTr("Cancel loading the model")
            onClicked: root.controller.cancelLoad()
        }
    }
}
