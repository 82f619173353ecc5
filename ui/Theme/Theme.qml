pragma Singleton
import QtQuick

// Colours, sizes and fonts. Palettes are plain data so a new theme is a new entry, not code.
QtObject {
    id: theme

    // "light", "dark" or "system"
    property string mode: "system"

    readonly property SystemPalette systemPalette: SystemPalette {}
    readonly property bool systemIsDark: systemPalette.window.hslLightness < 0.5
    readonly property bool dark: mode === "dark" || (mode === "system" && systemIsDark)

    readonly property var palettes: ({
        "light": {
            "window": "#faf7f2",
            "surface": "#ffffff",
            "surfaceAlt": "#f2ede5",
            "border": "#e0d6c8",
            "text": "#2a211c",
            "textMuted": "#6e6258",
            "accent": "#c85a12",
            "accentHover": "#a94a0c",
            "accentText": "#ffffff",
            "dropIdle": "#fffdf9",
            "dropActive": "#fde9d6",
            "error": "#a8281e",
            "errorSurface": "#fce9e7",
            "success": "#2f7d32",
            "successSurface": "#e8f4e8",
            "shadow": "#1a000000"
        },
        "dark": {
            "window": "#1b1714",
            "surface": "#26201c",
            "surfaceAlt": "#2f2823",
            "border": "#433a33",
            "text": "#f1e9e1",
            "textMuted": "#b3a69a",
            "accent": "#f08a3c",
            "accentHover": "#f6a262",
            "accentText": "#1b1714",
            "dropIdle": "#221c18",
            "dropActive": "#3a2a1e",
            "error": "#ff8a80",
            "errorSurface": "#3b1f1c",
            "success": "#8bd48e",
            "successSurface": "#1f3320",
            "shadow": "#66000000"
        }
    })
    readonly property var c: dark ? palettes.dark : palettes.light

    property real fontScale: 1.0
    readonly property int fontSmall: Math.round(12 * fontScale)
    readonly property int fontBody: Math.round(14 * fontScale)
    readonly property int fontLarge: Math.round(18 * fontScale)
    readonly property int fontTitle: Math.round(30 * fontScale)

    readonly property int spacing: 12
    readonly property int radius: 12
    readonly property int animationMs: 140
}
