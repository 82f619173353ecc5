import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Hearth

// The large target for a .gguf file, with a button that opens a file dialog instead.
Rectangle {
    id: zone

    // True while something is dragged over the window (the window owns the DropArea so a
    // drop anywhere counts).
    property bool dragActive: false
    signal fileChosen(url fileUrl)

    radius: Theme.radius * 1.5
    color: dragActive ? Theme.c.dropActive : Theme.c.dropIdle
    border.width: 2
    border.color: dragActive ? Theme.c.accent : Theme.c.border
    implicitHeight: 260

    Behavior on color { ColorAnimation { duration: Theme.animationMs } }

    Accessible.role: Accessible.Grouping
    Accessible.name: qsTr("Model drop zone")

    ColumnLayout {
        anchors.centerIn: parent
        width: Math.min(parent.width - 48, 460)
        spacing: Theme.spacing

        Image {
            Layout.alignment: Qt.AlignHCenter
            source: "qrc:/Hearth/icons/hearth.svg"
            sourceSize.width: 56
            sourceSize.height: 56
            opacity: zone.dragActive ? 1.0 : 0.85
            Accessible.ignored: true
        }
        Label {
            objectName: "dropPrompt"
            Layout.fillWidth: true
            horizontalAlignment: Text.AlignHCenter
            text: zone.dragActive ? qsTr("Release to open the model") : qsTr("Drop a .gguf model here")
            color: Theme.c.text
            font.pixelSize: Theme.fontLarge
            font.bold: true
            wrapMode: Text.Wrap
        }
        Label {
            Layout.fillWidth: true
            horizontalAlignment: Text.AlignHCenter
            text: qsTr("GGUF files from Hugging Face, LM Studio or llama.cpp work as they are.")
            color: Theme.c.textMuted
            font.pixelSize: Theme.fontBody
            wrapMode: Text.Wrap
        }
        AccentButton {
            objectName: "chooseButton"
            Layout.alignment: Qt.AlignHCenter
            Layout.topMargin: 6
            text: qsTr("Choose a model…")
            Accessible.description: qsTr("Opens a file dialog to pick a .gguf model")
            onClicked: fileDialog.open()
        }
    }

    FileDialog {
        id: fileDialog
        objectName: "modelFileDialog"
        title: qsTr("Choose a model")
        nameFilters: [qsTr("GGUF models (*.gguf)"), qsTr("All files (*)")]
        onAccepted: zone.fileChosen(selectedFile)
    }
}
