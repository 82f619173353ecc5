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

    // A reasoning model's reply: {thinking, done, answer}. The thinking runs from <think> (or
    // from the start when the chat template already opened it in the prompt and only the
    // closing tag appears) to </think>; while it streams, everything so far is thinking.
    function splitThinking(source) {
        const open = source.match(/^\s*<think>/)
        const close = source.indexOf("</think>")
        if (!open && close < 0)
            return { thinking: "", done: true, answer: source }
        const start = open ? open[0].length : 0
        if (close < 0)
            return { thinking: source.slice(start), done: false, answer: "" }
        return { thinking: source.slice(start, close), done: true,
                 answer: source.slice(close + 8).replace(/^\s+/, "") }
    }
    readonly property var reasoning: markdown ? splitThinking(text)
                                              : { thinking: "", done: true, answer: text }
    readonly property bool hasThinking: markdown && (reasoning.thinking.length > 0 || !reasoning.done)
    readonly property var parts: markdown ? split(reasoning.answer)
                                          : [{ code: false, lang: "", text: text }]

    spacing: 8

    ThinkingBlock {
        objectName: "thinkingBlock"
        width: root.width
        visible: root.hasThinking
        text: root.reasoning.thinking
        done: root.reasoning.done
    }

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

    // Models write single newlines meaning line breaks (poems, addresses, "Step 1:" lines);
    // Markdown would join them with a space, so each becomes a hard break. Blank lines (new
    // paragraphs) and code blocks are left alone.
    function hardBreaks(source) {
        return source.replace(/([^\n])\n(?!\n)/g, "$1  \n")
    }

    Component {
        id: textComponent
        TextEdit {
            text: parent ? (root.markdown ? root.hardBreaks(parent.partText) : parent.partText) : ""
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
