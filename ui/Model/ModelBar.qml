import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Hearth
import Hearth.App

// The header: the loaded model (name, size, backend badge), load / unload / recent models,
// theme, settings and About.
ToolBar {
    id: bar

    required property ChatController controller
    readonly property var info: controller.modelInfo
    readonly property bool ready: controller.modelState === "ready"
    signal settingsRequested
    signal aboutRequested

    background: Rectangle {
        color: Theme.c.surface
        Rectangle {
            anchors.bottom: parent.bottom
            width: parent.width
            height: 1
            color: Theme.c.border
        }
    }

    RowLayout {
        anchors.fill: parent
        anchors.leftMargin: 14
        anchors.rightMargin: 8
        spacing: 8

        Label {
            text: qsTr("Hearth")
            color: Theme.c.text
            font.pixelSize: Theme.fontBody
            font.bold: true
        }
        Rectangle {
            width: 1
            Layout.preferredHeight: 20
            color: Theme.c.border
        }
        Label {
            objectName: "modelName"
            Layout.maximumWidth: 320
            elide: Text.ElideMiddle
            text: bar.ready ? bar.info.name
                  : (bar.controller.modelState === "loading" ? qsTr("Loading %1…").arg(bar.info.name)
                                                             : qsTr("No model loaded"))
            color: bar.ready ? Theme.c.text : Theme.c.textMuted
            font.pixelSize: Theme.fontBody
            Accessible.name: qsTr("Model: %1").arg(text)
        }
        Label {
            objectName: "modelSize"
            visible: bar.ready
            text: bar.info.sizeText || ""
            color: Theme.c.textMuted
            font.pixelSize: Theme.fontSmall
        }
        Rectangle {
            id: badge
            objectName: "backendBadge"
            // The backends and, for converted weights, "4-bit (converted from F16)".
            readonly property string tip: (bar.info.weightsTip ? bar.info.weightsTip + "\n" : "")
                                          + (bar.info.backendTip || "")
            visible: bar.ready
            radius: 9
            color: Theme.c.surfaceAlt
            border.color: Theme.c.border
            implicitWidth: badgeText.implicitWidth + 16
            implicitHeight: 20
            Accessible.role: Accessible.StaticText
            Accessible.name: qsTr("Backend %1. %2").arg(badgeText.text).arg(badge.tip)
            Label {
                id: badgeText
                anchors.centerIn: parent
                text: bar.info.backendLabel || ""
                color: Theme.c.text
                font.pixelSize: Theme.fontSmall
            }
            HoverHandler { id: badgeHover }
            ToolTip.visible: badgeHover.hovered
            ToolTip.text: (bar.info.device ? bar.info.device + "\n" : "") + tip
        }
        Item { Layout.fillWidth: true }
        HeaderButton {
            objectName: "loadButton"
            text: qsTr("Load model…")
            tip: qsTr("Choose a .gguf model file")
            onClicked: fileDialog.open()
        }
        HeaderButton {
            objectName: "recentButton"
            text: qsTr("Recent ▾")
            tip: qsTr("Recently used models")
            enabled: bar.controller.settings && bar.controller.settings.recentModels.length > 0
            onClicked: recentMenu.open()
            Menu {
                id: recentMenu
                y: parent.height
                Repeater {
                    model: bar.controller.settings ? bar.controller.settings.recentModels : []
                    MenuItem {
                        required property string modelData
                        text: modelData.split("/").pop()
                        Accessible.name: qsTr("Load %1").arg(modelData)
                        onTriggered: bar.controller.loadModel("file://" + modelData)
                    }
                }
            }
        }
        HeaderButton {
            objectName: "unloadButton"
            visible: bar.ready
            text: qsTr("Unload")
            tip: qsTr("Unload the model and free its memory")
            onClicked: bar.controller.unloadModel()
        }
        HeaderButton {
            objectName: "themeButton"
            text: Theme.dark ? "☀" : "☾"
            tip: Theme.dark ? qsTr("Switch to light theme") : qsTr("Switch to dark theme")
            onClicked: bar.controller.settings.theme = Theme.dark ? "light" : "dark"
        }
        HeaderButton {
            objectName: "settingsButton"
            text: "⚙"
            tip: qsTr("Settings (Ctrl+,)")
            onClicked: bar.settingsRequested()
        }
        HeaderButton {
            objectName: "aboutButton"
            text: qsTr("About")
            tip: qsTr("About Hearth")
            onClicked: bar.aboutRequested()
        }
    }

    FileDialog {
        id: fileDialog
        objectName: "modelFileDialogBar"
        title: qsTr("Choose a model")
        nameFilters: [qsTr("GGUF models (*.gguf)"), qsTr("All files (*)")]
        onAccepted: bar.controller.loadModel(selectedFile)
    }
}
