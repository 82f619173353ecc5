import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Hearth
import Hearth.App

// The model library: every .gguf in the chosen folders and the recent files, with what each
// is and whether it fits in the memory free now (the engine's estimate), and Load; below, the
// models on servers (Servers…), marked remote with their host.
ThemedDialog {
    id: dialog

    required property ChatController controller
    readonly property ModelLibrary library: controller ? controller.library : null

    function fitText(fit) {
        if (fit === "fits") return qsTr("Fits")
        if (fit === "tight") return qsTr("Tight")
        if (fit === "wont-fit") return qsTr("Won't fit")
        return ""
    }

    title: qsTr("Models")
    width: Math.min(parent ? parent.width - 48 : 720, 720)
    height: Math.min(parent ? parent.height - 80 : 560, 560)
    onAboutToShow: if (library) library.refresh()

    ColumnLayout {
        anchors.fill: parent
        spacing: 8

        RowLayout {
            Layout.fillWidth: true
            Label {
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                text: dialog.library && dialog.library.folders.length > 0
                      ? qsTr("Folders: %1").arg(dialog.library.folders.join(", "))
                      : qsTr("Add a folder with .gguf files; recent models are always listed.")
                color: Theme.c.textMuted
                font.pixelSize: Theme.fontSmall
            }
            BusyIndicator {
                visible: dialog.library !== null && dialog.library.scanning
                running: visible
                Layout.preferredWidth: 24
                Layout.preferredHeight: 24
            }
            HeaderButton {
                objectName: "addModelFolder"
                text: qsTr("Add folder…")
                onClicked: folderDialog.open()
            }
            HeaderButton {
                objectName: "openConnections"
                text: qsTr("Servers…")
                tip: qsTr("Models on a server: vLLM, LMDeploy, llama.cpp's server or another Hearth")
                onClicked: connectionsDialog.open()
            }
        }
        ListView {
            id: list
            objectName: "modelLibraryList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            spacing: 4
            model: dialog.library ? dialog.library.models : []
            delegate: Rectangle {
                required property var modelData
                width: ListView.view.width
                implicitHeight: entry.implicitHeight + 12
                radius: 6
                color: modelData.loaded ? Theme.c.dropActive : "transparent"
                border.color: Theme.c.border
                Accessible.role: Accessible.ListItem
                Accessible.name: modelData.error.length > 0
                                 ? qsTr("%1: cannot be used").arg(modelData.name)
                                 : qsTr("%1, %2, %3, %4").arg(modelData.name).arg(modelData.sizeText)
                                       .arg(modelData.quantization).arg(dialog.fitText(modelData.fit))
                RowLayout {
                    id: entry
                    anchors.fill: parent
                    anchors.margins: 6
                    spacing: 10
                    ColumnLayout {
                        Layout.fillWidth: true
                        spacing: 2
                        Label {
                            Layout.fillWidth: true
                            text: modelData.name + (modelData.loaded ? "  " + qsTr("(in use)") : "")
                            elide: Text.ElideRight
                            color: Theme.c.text
                            font.pixelSize: Theme.fontBody
                            font.bold: true
                        }
                        Label {
                            Layout.fillWidth: true
                            elide: Text.ElideMiddle
                            text: modelData.error.length > 0
                                  ? qsTr("Cannot be used: %1").arg(modelData.error)
                                  : qsTr("%1 · %2 · %3 · context %4 · needs about %5")
                                        .arg(modelData.architecture).arg(modelData.quantization)
                                        .arg(modelData.sizeText).arg(modelData.contextTrained)
                                        .arg(modelData.estimateText)
                            color: modelData.error.length > 0 ? Theme.c.error : Theme.c.textMuted
                            font.pixelSize: Theme.fontSmall
                        }
                        Label {
                            Layout.fillWidth: true
                            elide: Text.ElideMiddle
                            text: modelData.path
                            color: Theme.c.textMuted
                            font.pixelSize: Theme.fontSmall
                        }
                    }
                    Label {
                        objectName: "fitLabel"
                        visible: text.length > 0
                        text: dialog.fitText(modelData.fit)
                        color: modelData.fit === "fits" ? Theme.c.success
                               : modelData.fit === "tight" ? Theme.c.accent : Theme.c.error
                        font.pixelSize: Theme.fontSmall
                        font.bold: true
                        ToolTip.visible: fitArea.containsMouse
                        ToolTip.text: qsTr("Needs about %1; %2 is free now.")
                                      .arg(modelData.estimateText).arg(modelData.availableText)
                        MouseArea {
                            id: fitArea
                            anchors.fill: parent
                            hoverEnabled: true
                        }
                    }
                    Button {
                        text: qsTr("Load")
                        enabled: modelData.error.length === 0 && !modelData.loaded
                        Accessible.name: qsTr("Load %1").arg(modelData.name)
                        onClicked: {
                            dialog.controller.loadModelFile(modelData.path)
                            dialog.close()
                        }
                    }
                }
            }
            Label {
                anchors.centerIn: parent
                visible: list.count === 0 && !(dialog.library && dialog.library.scanning)
                text: qsTr("No models found yet.")
                color: Theme.c.textMuted
                font.pixelSize: Theme.fontBody
            }
        }
        Label {
            visible: remoteList.count > 0
            text: qsTr("On servers")
            color: Theme.c.text
            font.pixelSize: Theme.fontBody
            font.bold: true
        }
        ListView {
            id: remoteList
            objectName: "remoteModelList"
            visible: count > 0
            Layout.fillWidth: true
            Layout.preferredHeight: Math.min(contentHeight, 160)
            clip: true
            spacing: 4
            model: dialog.controller && dialog.controller.connections
                   ? dialog.controller.connections.remoteModels : []
            delegate: Rectangle {
                id: remoteRow
                required property var modelData
                readonly property bool inUse: dialog.controller.modelRemote
                    && dialog.controller.modelInfo.connectionId === modelData.connectionId
                    && dialog.controller.modelInfo.name === modelData.model
                objectName: "remoteModel"
                width: ListView.view.width
                implicitHeight: remoteEntry.implicitHeight + 12
                radius: 6
                color: inUse ? Theme.c.dropActive : "transparent"
                border.color: Theme.c.border
                Accessible.role: Accessible.ListItem
                Accessible.name: qsTr("%1, remote, on %2").arg(modelData.model).arg(modelData.host)
                RowLayout {
                    id: remoteEntry
                    anchors.fill: parent
                    anchors.margins: 6
                    spacing: 10
                    ColumnLayout {
                        Layout.fillWidth: true
                        spacing: 2
                        Label {
                            Layout.fillWidth: true
                            text: remoteRow.modelData.model + (remoteRow.inUse ? "  " + qsTr("(in use)") : "")
                            elide: Text.ElideRight
                            color: Theme.c.text
                            font.pixelSize: Theme.fontBody
                            font.bold: true
                        }
                        Label {
                            Layout.fillWidth: true
                            elide: Text.ElideRight
                            text: qsTr("%1 · %2").arg(remoteRow.modelData.connectionName).arg(remoteRow.modelData.host)
                            color: Theme.c.textMuted
                            font.pixelSize: Theme.fontSmall
                        }
                    }
                    Label {
                        objectName: "remoteBadge"
                        text: qsTr("Remote · %1").arg(remoteRow.modelData.host)
                        color: Theme.c.accent
                        font.pixelSize: Theme.fontSmall
                        font.bold: true
                    }
                    Button {
                        text: qsTr("Use")
                        enabled: !remoteRow.inUse
                        Accessible.name: qsTr("Use %1 on %2").arg(remoteRow.modelData.model).arg(remoteRow.modelData.host)
                        onClicked: {
                            dialog.controller.loadRemoteModel(remoteRow.modelData.connectionId, remoteRow.modelData.model)
                            dialog.close()
                        }
                    }
                }
            }
        }
        RowLayout {
            Layout.fillWidth: true
            Repeater {
                model: dialog.library ? dialog.library.folders : []
                delegate: HeaderButton {
                    required property string modelData
                    text: qsTr("Remove %1").arg(modelData.substring(modelData.lastIndexOf("/") + 1))
                    tip: qsTr("Stop listing the models in %1").arg(modelData)
                    onClicked: dialog.library.removeFolder(modelData)
                }
            }
            Item { Layout.fillWidth: true }
            Button {
                text: qsTr("Close")
                onClicked: dialog.close()
            }
        }
    }

    ConnectionsDialog {
        id: connectionsDialog
        controller: dialog.controller
        parent: dialog.parent
    }

    FolderDialog {
        id: folderDialog
        title: qsTr("A folder with models")
        onAccepted: dialog.library.addFolder(selectedFolder)
    }
}
