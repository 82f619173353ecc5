import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth
import Hearth.App

ApplicationWindow {
    id: window

    // Set by main() (and the tests).
    required property ChatController controller
    property string initialTheme: ""
    property string initialPanel: ""
    property url initialModel

    readonly property bool hasModel: controller.modelState === "ready"
    readonly property bool showWelcome: controller.modelState === "none"
                                        && controller.currentChatId === 0
                                        && controller.messages.count === 0

    width: 1100
    height: 760
    minimumWidth: 720
    minimumHeight: 480
    visible: true
    title: hasModel ? qsTr("%1 — Hearth").arg(controller.modelInfo.name) : qsTr("Hearth")
    color: Theme.c.window
    // The Basic style's controls (text fields, radio buttons, menus) follow the theme.
    palette.window: Theme.c.window
    palette.windowText: Theme.c.text
    palette.base: Theme.c.surface
    palette.alternateBase: Theme.c.surfaceAlt
    palette.text: Theme.c.text
    palette.button: Theme.c.surfaceAlt
    palette.buttonText: Theme.c.text
    palette.mid: Theme.c.border
    palette.dark: Theme.c.textMuted
    palette.light: Theme.c.surface
    palette.midlight: Theme.c.surfaceAlt
    palette.highlight: Theme.c.accent
    palette.highlightedText: Theme.c.accentText
    palette.placeholderText: Theme.c.textMuted
    palette.toolTipBase: Theme.c.surface
    palette.toolTipText: Theme.c.text

    Binding {
        target: Theme
        property: "mode"
        value: window.initialTheme.length > 0 ? window.initialTheme
               : (window.controller.settings ? window.controller.settings.theme : "system")
    }
    Binding {
        target: Theme
        property: "fontScale"
        value: window.controller.settings ? window.controller.settings.fontScale : 1.0
    }

    Component.onCompleted: {
        if (initialModel.toString().length > 0)
            controller.loadModel(initialModel)
        if (initialPanel === "settings")
            settingsPanel.open()
    }

    header: ModelBar {
        controller: window.controller
        onSettingsRequested: settingsPanel.open()
        onAboutRequested: aboutDialog.open()
    }

    RowLayout {
        anchors.fill: parent
        spacing: 0

        Sidebar {
            id: sidebar
            Layout.preferredWidth: 270
            Layout.fillHeight: true
            controller: window.controller
        }

        ColumnLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            spacing: 8

            AppBanners {
                Layout.fillWidth: true
                Layout.fillHeight: false
                Layout.leftMargin: 16
                Layout.rightMargin: 16
                Layout.topMargin: 8
                controller: window.controller
                showModelError: !window.showWelcome
            }
            LoadProgress {
                Layout.fillWidth: true
                Layout.leftMargin: 16
                Layout.rightMargin: 16
                controller: window.controller
            }
            EmptyState {
                id: emptyState
                objectName: "emptyState"
                Layout.fillWidth: true
                Layout.fillHeight: true
                visible: window.showWelcome
                controller: window.controller
                dragActive: windowDrop.containsDrag
            }
            ChatHeader {
                Layout.fillWidth: true
                Layout.fillHeight: false
                Layout.leftMargin: 20
                Layout.rightMargin: 16
                visible: !window.showWelcome
                controller: window.controller
            }
            ChatView {
                id: chatView
                objectName: "chatView"
                Layout.fillWidth: true
                Layout.fillHeight: true
                visible: !window.showWelcome
                controller: window.controller
            }
            Composer {
                id: composer
                Layout.fillWidth: true
                Layout.leftMargin: 16
                Layout.rightMargin: 16
                visible: !window.showWelcome
                controller: window.controller
            }
            StatusLine {
                Layout.fillWidth: true
                Layout.fillHeight: false
                Layout.leftMargin: 16
                Layout.rightMargin: 16
                Layout.bottomMargin: 6
                visible: !window.showWelcome
                controller: window.controller
            }
        }
    }

    // The whole window accepts a drop, with an overlay while something is dragged over it.
    DropOverlay {
        anchors.fill: parent
        visible: windowDrop.containsDrag && !window.showWelcome
    }
    DropArea {
        id: windowDrop
        objectName: "windowDrop"
        anchors.fill: parent
        onDropped: drop => {
            if (drop.hasUrls) {
                window.controller.loadModel(drop.urls[0])
                drop.acceptProposedAction()
            }
        }
    }

    // Typing goes to the composer as soon as there is something to talk to: after a model loads
    // (focus would otherwise stay on the button that opened the file dialog, and the first
    // Space would open it again) and whenever a chat is opened.
    Connections {
        target: window.controller
        function onModelLoaded() { composer.focusInput() }
        function onCurrentChatChanged() {
            if (window.controller.modelState === "ready")
                composer.focusInput()
        }
    }

    // A model handed over by a later start of Hearth (a double-click on a .gguf file while
    // this window runs). During a reply the user is asked first.
    function openFromElsewhere(url) {
        if (controller.generating) {
            replaceModelDialog.modelUrl = url
            replaceModelDialog.open()
        } else {
            controller.loadModel(url)
        }
    }
    ReplaceModelDialog {
        id: replaceModelDialog
        objectName: "replaceModelDialog"
        onAccepted: window.controller.loadModel(modelUrl)  // stops the reply first
    }

    SettingsPanel {
        id: settingsPanel
        controller: window.controller
    }
    AboutDialog {
        id: aboutDialog
    }

    Shortcut {
        sequence: "Ctrl+N"
        onActivated: { window.controller.newChat(); composer.focusInput() }
    }
    Shortcut {
        sequence: "Ctrl+F"
        onActivated: sidebar.focusSearch()
    }
    Shortcut {
        sequence: "Esc"
        enabled: window.controller.generating
        onActivated: window.controller.stop()
    }
    Shortcut {
        sequence: "Ctrl+,"
        onActivated: settingsPanel.open()
    }
    Shortcut {
        sequence: "Ctrl+Shift+C"
        onActivated: window.controller.copyLastAnswer()
    }
}
