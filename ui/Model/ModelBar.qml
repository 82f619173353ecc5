import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Hearth
import Hearth.App

// The header: the loaded model (name, size, backend badge), load / unload / recent models,
// theme, settings and About. Narrow windows (or large text) move theme, settings and About
// into a "More" menu, then Unload too; the model name elides; a Chats button opens the
// sidebar when it is a drawer.
ToolBar {
    id: bar

    required property ChatController controller
    readonly property var info: controller.modelInfo
    readonly property bool ready: controller.modelState === "ready"
    property bool showChatsButton: false
    // Widths scale with the text size, so "narrow" means narrow for this text.
    readonly property real unit: Theme.fontBody / 14
    readonly property bool narrow: width < 1000 * unit
    readonly property bool veryNarrow: width < 760 * unit
    signal settingsRequested
    signal aboutRequested
    signal shortcutsRequested
    signal chatsRequested

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

        HeaderButton {
            objectName: "chatsButton"
            visible: bar.showChatsButton
            text: "☰"
            tip: qsTr("Chats")
            onClicked: bar.chatsRequested()
        }
        Label {
            visible: !bar.veryNarrow
            text: qsTr("Hearth")
            color: Theme.c.text
            font.pixelSize: Theme.fontBody
            font.bold: true
        }
        Rectangle {
            visible: !bar.veryNarrow
            width: 1
            Layout.preferredHeight: 20
            color: Theme.c.border
        }
        Label {
            objectName: "modelName"
            // Takes what is left, up to its full width, and elides below that.
            Layout.fillWidth: true
            Layout.minimumWidth: 40
            // Rounded up: the layout gives whole pixels, and a width a fraction short of the
            // text's elides it ("re…ed").
            Layout.maximumWidth: Math.min(Math.ceil(implicitWidth), 320 * bar.unit)
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
            visible: bar.ready && !bar.veryNarrow && text.length > 0  // none for a remote model
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
        Item {
            Layout.fillWidth: true
            Layout.minimumWidth: 0
        }
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
            visible: bar.ready && !bar.veryNarrow
            text: qsTr("Unload")
            tip: qsTr("Unload the model and free its memory")
            onClicked: bar.controller.unloadModel()
        }
        HeaderButton {
            objectName: "themeButton"
            visible: !bar.narrow
            text: Theme.dark ? "☀" : "☾"
            tip: Theme.dark ? qsTr("Switch to light theme") : qsTr("Switch to dark theme")
            onClicked: bar.controller.settings.theme = Theme.dark ? "light" : "dark"
        }
        HeaderButton {
            objectName: "settingsButton"
            visible: !bar.narrow
            text: "⚙"
            tip: qsTr("Settings (Ctrl+,)")
            onClicked: bar.settingsRequested()
        }
        HeaderButton {
            objectName: "shortcutsButton"
            visible: !bar.narrow
            text: "?"
            tip: qsTr("Keyboard shortcuts (F1)")
            onClicked: bar.shortcutsRequested()
        }
        HeaderButton {
            objectName: "aboutButton"
            visible: !bar.narrow
            text: qsTr("About")
            tip: qsTr("About Hearth")
            onClicked: bar.aboutRequested()
        }
        HeaderButton {
            objectName: "moreButton"
            visible: bar.narrow
            text: "⋯"
            tip: qsTr("More: theme, settings, keyboard shortcuts, About")
            onClicked: moreMenu.open()
            Menu {
                id: moreMenu
                objectName: "moreMenu"
                y: parent.height
                x: parent.width - width
                MenuItem {
                    visible: bar.ready && bar.veryNarrow
                    height: visible ? implicitHeight : 0
                    text: qsTr("Unload model")
                    Accessible.name: text
                    onTriggered: bar.controller.unloadModel()
                }
                MenuItem {
                    text: Theme.dark ? qsTr("Switch to light theme") : qsTr("Switch to dark theme")
                    Accessible.name: text
                    onTriggered: bar.controller.settings.theme = Theme.dark ? "light" : "dark"
                }
                MenuItem {
                    text: qsTr("Settings… (Ctrl+,)")
                    Accessible.name: text
                    onTriggered: bar.settingsRequested()
                }
                MenuItem {
                    text: qsTr("Keyboard shortcuts (F1)")
                    Accessible.name: text
                    onTriggered: bar.shortcutsRequested()
                }
                MenuItem {
                    text: qsTr("About Hearth")
                    Accessible.name: text
                    onTriggered: bar.aboutRequested()
                }
            }
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
