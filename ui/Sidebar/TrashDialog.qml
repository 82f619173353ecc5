import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth
import Hearth.App

// Deleted chats stay here for 30 days: restore one, delete one for good, or empty the trash.
ThemedDialog {
    id: dialog

    required property ChatController controller

    title: qsTr("Trash")
    width: Math.min(parent ? parent.width - 48 : 480, 480)
    height: Math.min(parent ? parent.height - 80 : 460, 460)
    onAboutToShow: controller.refreshTrash()

    ColumnLayout {
        anchors.fill: parent
        spacing: 8
        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: qsTr("Deleted chats are kept for 30 days, then removed for good.")
            color: Theme.c.textMuted
            font.pixelSize: Theme.fontSmall
        }
        ListView {
            id: list
            objectName: "trashList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            model: dialog.controller.trash
            spacing: 2
            delegate: RowLayout {
                required property var modelData
                width: ListView.view.width
                spacing: 6
                Label {
                    Layout.fillWidth: true
                    text: modelData.title
                    elide: Text.ElideRight
                    color: Theme.c.text
                    font.pixelSize: Theme.fontBody
                }
                Label {
                    text: qsTr("%n day(s) left", "", modelData.daysLeft)
                    color: Theme.c.textMuted
                    font.pixelSize: Theme.fontSmall
                }
                Button {
                    objectName: "restoreButton"
                    text: qsTr("Restore")
                    Accessible.name: qsTr("Restore %1").arg(modelData.title)
                    onClicked: dialog.controller.restoreChat(modelData.chatId)
                }
                Button {
                    text: qsTr("Delete")
                    Accessible.name: qsTr("Delete %1 for good").arg(modelData.title)
                    onClicked: dialog.controller.purgeChat(modelData.chatId)
                }
            }
            Label {
                anchors.centerIn: parent
                visible: list.count === 0
                text: qsTr("The trash is empty.")
                color: Theme.c.textMuted
                font.pixelSize: Theme.fontBody
            }
        }
        RowLayout {
            Layout.fillWidth: true
            Button {
                objectName: "emptyTrashButton"
                enabled: list.count > 0
                text: qsTr("Empty trash")
                onClicked: confirmEmpty.open()
            }
            Item { Layout.fillWidth: true }
            Button {
                text: qsTr("Close")
                onClicked: dialog.close()
            }
        }
    }

    ThemedDialog {
        id: confirmEmpty
        objectName: "confirmEmptyTrash"
        title: qsTr("Empty the trash?")
        Label {
            text: qsTr("%n chat(s) will be deleted for good.", "", list.count)
            color: Theme.c.text
        }
        standardButtons: Dialog.Yes | Dialog.Cancel
        onAccepted: dialog.controller.emptyTrash()
    }
}
