import QtQuick
import QtQuick.Controls
import Hearth

// A Dialog in the theme's colours whatever window it opens in: its title bar, buttons and
// fields take the palette from Theme (the Basic style's defaults are light and unreadable in
// the dark theme).
Dialog {
    modal: true
    anchors.centerIn: parent
    palette.window: Theme.c.surface
    palette.windowText: Theme.c.text
    palette.base: Theme.c.window
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
    background: Rectangle {
        color: Theme.c.surface
        border.color: Theme.c.border
        radius: Theme.radius
    }
}
