import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Hearth
import Hearth.App

// Export: a file name suggested from the chat's title, the folder (Documents by default), and
// a Save button that saves on click. Hearth's own dialog, so it follows the light and dark
// themes and never depends on the platform's file dialog.
ThemedDialog {
    id: dialog

    required property ChatController controller
    property string format: "markdown"
    property var chatId: 0
    readonly property string fullPath: folderField.text.replace(/\/+$/, "") + "/" + nameField.text.trim()
    readonly property bool exists: dialog.controller !== null && nameField.text.trim().length > 0
                                   && dialog.controller.fileExists(fullPath)

    function openFor(chat, fmt) {
        chatId = chat
        format = fmt
        nameField.text = controller.exportFileName(chat, fmt)
        if (folderField.text.length === 0)
            folderField.text = controller.defaultExportFolder()
        open()
        nameField.forceActiveFocus()
        nameField.select(0, Math.max(0, nameField.text.lastIndexOf(".")))
    }

    title: format === "json" ? qsTr("Export chat (JSON, every branch)")
           : format === "text" ? qsTr("Export chat (plain text)") : qsTr("Export chat (Markdown)")
    width: Math.min(parent ? parent.width - 48 : 520, 520)

    ColumnLayout {
        anchors.fill: parent
        spacing: 6
        Label {
            text: qsTr("File name")
            color: Theme.c.text
            font.pixelSize: Theme.fontBody
        }
        TextField {
            id: nameField
            objectName: "exportName"
            Layout.fillWidth: true
            color: Theme.c.text
            font.pixelSize: Theme.fontBody
            Accessible.name: qsTr("File name")
            onAccepted: if (dialog.standardButton(Dialog.Save).enabled) dialog.accept()
        }
        Label {
            text: qsTr("Folder")
            color: Theme.c.text
            font.pixelSize: Theme.fontBody
        }
        RowLayout {
            Layout.fillWidth: true
            TextField {
                id: folderField
                objectName: "exportFolder"
                Layout.fillWidth: true
                color: Theme.c.text
                font.pixelSize: Theme.fontBody
                Accessible.name: qsTr("Folder")
            }
            Button {
                text: qsTr("Choose…")
                Accessible.name: qsTr("Choose the folder")
                onClicked: folderDialog.open()
            }
        }
        Label {
            objectName: "exportExists"
            Layout.fillWidth: true
            visible: dialog.exists
            wrapMode: Text.Wrap
            text: qsTr("A file with this name is already there; Save replaces it.")
            color: Theme.c.error
            font.pixelSize: Theme.fontSmall
        }
    }

    FolderDialog {
        id: folderDialog
        title: qsTr("Folder for the export")
        onAccepted: folderField.text = decodeURIComponent(selectedFolder.toString().replace(/^file:\/\//, ""))
    }

    standardButtons: Dialog.Save | Dialog.Cancel
    Component.onCompleted: {
        const save = standardButton(Dialog.Save)
        save.objectName = "exportSave"
        save.enabled = Qt.binding(() => nameField.text.trim().length > 0 && folderField.text.length > 0)
    }
    onAccepted: controller.exportChatToPath(chatId, fullPath, format)
}
