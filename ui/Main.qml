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
    // Below this width (more with larger text) the chat list becomes a drawer opened from the
    // header, so the chat column keeps its room.
    readonly property bool compact: width < 900 * Theme.fontBody / 14

    width: 1100
    height: 760
    minimumWidth: 640
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
        showChatsButton: window.compact
        onSettingsRequested: settingsPanel.open()
        onAboutRequested: aboutDialog.open()
        onShortcutsRequested: shortcutsDialog.open()
        onChatsRequested: sidebarDrawer.open()
    }

    // The one chat list: in the row beside the chat when there is room, in a drawer otherwise.
    Sidebar {
        id: sidebar
        objectName: "sidebar"
        parent: window.compact ? drawerHost : sideHost
        anchors.fill: parent
        controller: window.controller
    }
    Drawer {
        id: sidebarDrawer
        objectName: "sidebarDrawer"
        width: Math.min(300 * Theme.fontBody / 14, window.width * 0.85)
        height: window.height
        interactive: window.compact
        focus: true
        Item {
            id: drawerHost
            anchors.fill: parent
        }
        onClosed: if (window.compact && !window.showWelcome) composer.focusInput()
    }
    onCompactChanged: if (!compact) sidebarDrawer.close()

    RowLayout {
        anchors.fill: parent
        spacing: 0

        Item {
            id: sideHost
            visible: !window.compact
            Layout.preferredWidth: 270
            Layout.fillHeight: true
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
                objectName: "statusLine"
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
            sidebarDrawer.close()
            if (window.controller.modelState === "ready")
                composer.focusInput()
        }
    }

    // Screen readers hear a reply as it is written, like an aria-live region: "Assistant is
    // writing a reply…", then whole sentences as they are completed (at most one announcement
    // every 1.5 s, so the speech is not cut off by every token), and the rest when it ends.
    // The focus stays in the composer. Banners are alerts of their own (Banner.qml).
    LiveRegion {
        id: liveRegion
        objectName: "liveRegion"
        property int spokenLength: 0  // of the streaming reply, already announced
        property double spokenAt: 0
        property int minInterval: 1500  // ms between announcements while streaming
        property bool replyActive: false

        function speakSentences(done) {
            const text = window.controller.messages.lastAssistantText()
            let upto = text.length
            if (!done) {
                const ends = /[.!?。！？\n]/g
                upto = -1
                let m
                while ((m = ends.exec(text)) !== null)
                    upto = m.index + 1
                if (upto <= spokenLength || Date.now() - spokenAt < minInterval)
                    return
            }
            const part = text.slice(spokenLength, upto).trim()
            const first = spokenLength === 0
            spokenLength = Math.max(spokenLength, upto)
            spokenAt = Date.now()
            if (part.length > 0)
                announce(first ? qsTr("Assistant: %1").arg(part) : part)
            else if (done && first)
                announce(qsTr("The reply is empty."))
        }
    }
    Connections {
        target: window.controller
        function onGeneratingChanged() {
            // Once per reply: generatingChanged is also emitted while a reply goes on (e.g.
            // when the chat it writes into is no longer the one shown).
            const starts = window.controller.generating && !liveRegion.replyActive
            liveRegion.replyActive = window.controller.generating
            if (!starts)
                return
            liveRegion.spokenLength = 0
            liveRegion.spokenAt = Date.now()
            liveRegion.announce(qsTr("Assistant is writing a reply…"))
        }
        function onReplyFinished(messageId, stopReason) { liveRegion.speakSentences(true) }
    }
    Connections {
        target: window.controller.messages
        function onDataChanged() {
            if (window.controller.generating)
                liveRegion.speakSentences(false)
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
        objectName: "settingsPanel"
        controller: window.controller
    }
    AboutDialog {
        id: aboutDialog
        objectName: "aboutDialog"
    }
    ShortcutsDialog {
        id: shortcutsDialog
    }

    Shortcut {
        sequence: "Ctrl+N"
        onActivated: { window.controller.newChat(); composer.focusInput() }
    }
    Shortcut {
        sequence: "Ctrl+F"
        onActivated: {
            if (window.compact)
                sidebarDrawer.open()
            sidebar.focusSearch()
        }
    }
    Shortcut {
        sequence: "Ctrl+B"
        onActivated: {
            if (window.compact)
                sidebarDrawer.open()
            sidebar.focusList()
        }
    }
    Shortcut {
        sequences: ["F1", "Ctrl+/"]
        onActivated: shortcutsDialog.open()
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
