import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth
import Hearth.App

// What a person sees before any model is loaded: what Hearth is, and where the model goes.
Item {
    id: root

    required property ModelPicker picker
    property bool dragActive: false

    // Offers dropped or chosen URLs to the picker; the first one decides.
    function offerUrls(urls) {
        if (!urls || urls.length === 0)
            return false
        return picker.offer(urls[0])
    }

    Accessible.role: Accessible.Pane
    Accessible.name: qsTr("Welcome")

    ColumnLayout {
        anchors.centerIn: parent
        width: Math.min(parent.width - 64, 640)
        spacing: Theme.spacing * 1.5

        Label {
            Layout.alignment: Qt.AlignHCenter
            text: qsTr("Hearth")
            color: Theme.c.text
            font.pixelSize: Theme.fontTitle
            font.bold: true
        }
        Label {
            Layout.fillWidth: true
            horizontalAlignment: Text.AlignHCenter
            text: qsTr("Chat with language models that run entirely on your own computer. Nothing you type leaves this machine.")
            color: Theme.c.textMuted
            font.pixelSize: Theme.fontBody
            wrapMode: Text.Wrap
        }
        DropZone {
            id: dropZone
            objectName: "dropZone"
            Layout.fillWidth: true
            Layout.topMargin: 8
            dragActive: root.dragActive
            onFileChosen: fileUrl => root.offerUrls([fileUrl])
        }
        Banner {
            objectName: "rejectionBanner"
            Layout.fillWidth: true
            message: root.picker.errorMessage
            onDismissed: root.picker.clearError()
        }
        ModelCard {
            objectName: "modelCard"
            Layout.fillWidth: true
            visible: root.picker.hasModel
            fileName: root.picker.fileName
            sizeText: root.picker.sizeText
        }
    }
}
