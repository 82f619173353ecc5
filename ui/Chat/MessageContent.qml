import QtQuick
import QtQuick.Controls
import Hearth
import Hearth.App

// A message's text. Replies are Markdown (headings, lists, tables, inline code); fenced code
// blocks are cut out and shown as CodeBlocks. A streaming reply ends with a cursor.
Column {
    id: root

    required property ChatController controller
    property string text
    property bool markdown: true
    property bool streaming: false

    // [{code: bool, lang: string, text: string}] in order. An unclosed fence (still
    // streaming) runs to the end.
    function split(source) {
        const parts = []
        const fence = /```([^\n`]*)\n([\s\S]*?)(?:```|$)/g
        let last = 0
        let m
        while ((m = fence.exec(source)) !== null) {
            if (m[0].length === 0)
                break
            if (m.index > last)
                parts.push({ code: false, lang: "", text: source.slice(last, m.index) })
            parts.push({ code: true, lang: m[1].trim(), text: m[2].replace(/\n$/, "") })
            last = fence.lastIndex
        }
        if (last < source.length || parts.length === 0)
            parts.push({ code: false, lang: "", text: source.slice(last) })
        return parts
    }

    readonly property var parts: markdown ? split(text) : [{ code: false, lang: "", text: text }]

    spacing: 8

    Repeater {
        model: root.parts
        delegate: Loader {
            required property var modelData
            required property int index
            width: root.width
            sourceComponent: modelData.code ? codeComponent : textComponent
            readonly property string partText: modelData.text
                + (root.streaming && index === root.parts.length - 1 && !modelData.code ? " ▍" : "")
            readonly property string partLang: modelData.lang
        }
    }

    Component {
        id: textComponent
        TextEdit {
            text: parent ? parent.partText : ""
            textFormat: root.markdown ? TextEdit.MarkdownText : TextEdit.PlainText
            readOnly: true
            selectByMouse: true
            wrapMode: TextEdit.Wrap
            color: Theme.c.text
            selectionColor: Theme.c.accent
            selectedTextColor: Theme.c.accentText
            font.pixelSize: Theme.fontBody
            onLinkActivated: link => Qt.openUrlExternally(link)
        }
    }
    Component {
        id: codeComponent
        CodeBlock {
            code: parent ? parent.partText : ""
            language: parent ? parent.partLang : ""
            onCopyRequested: root.controller.copyText(code)
        }
    }
}
