import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth
import Hearth.App

// Version and build facts, for bug reports and the curious.
Dialog {
    id: dialog

    title: qsTr("About Hearth")
    modal: true
    standardButtons: Dialog.Close
    Component.onCompleted: {
        const close = standardButton(Dialog.Close)
        close.Accessible.name = Qt.binding(() => close.text)
    }
    anchors.centerIn: parent
    width: Math.min(parent ? parent.width - 48 : 440, 440)

    background: Rectangle {
        color: Theme.c.surface
        border.color: Theme.c.border
        radius: Theme.radius
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 8

        RowLayout {
            spacing: 12
            Image {
                source: "qrc:/Hearth/icons/hearth.svg"
                sourceSize.width: 48
                sourceSize.height: 48
                Accessible.ignored: true
            }
            ColumnLayout {
                spacing: 0
                Label {
                    text: AppInfo.name
                    font.pixelSize: Theme.fontLarge
                    font.bold: true
                    color: Theme.c.text
                }
                Label {
                    objectName: "aboutVersion"
                    text: qsTr("Version %1").arg(AppInfo.version)
                    color: Theme.c.textMuted
                }
            }
        }
        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            color: Theme.c.text
            text: qsTr("Local language models with their own inference engine. MIT licensed.")
        }
        GridLayout {
            columns: 2
            columnSpacing: 12
            rowSpacing: 4
            Label { text: qsTr("Commit"); color: Theme.c.textMuted }
            Label { text: AppInfo.gitCommit; color: Theme.c.text; font.family: "monospace" }
            Label { text: qsTr("Build"); color: Theme.c.textMuted }
            Label { text: AppInfo.buildType; color: Theme.c.text }
            Label { text: qsTr("Compiler"); color: Theme.c.textMuted }
            Label { text: AppInfo.compiler; color: Theme.c.text }
            Label { text: qsTr("Qt"); color: Theme.c.textMuted }
            Label { text: AppInfo.qtVersion; color: Theme.c.text }
            Label { text: qsTr("Backends built"); color: Theme.c.textMuted }
            Label { text: AppInfo.backendsBuilt; color: Theme.c.text }
            Label {
                Layout.alignment: Qt.AlignTop
                text: qsTr("Backends found")
                color: Theme.c.textMuted
            }
            Label {
                objectName: "backendsFound"
                Layout.maximumWidth: 280
                // Loaded at run time: each backend or device, and why an unused one is unused.
                text: AppInfo.backendsFound
                color: Theme.c.text
                wrapMode: Text.Wrap
            }
            Label { text: qsTr("Data folder"); color: Theme.c.textMuted }
            Label {
                Layout.maximumWidth: 280
                text: AppInfo.dataDir
                color: Theme.c.text
                elide: Text.ElideMiddle
            }
        }
    }
}
