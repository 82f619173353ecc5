import QtQuick
import QtTest
import Hearth
import Hearth.App

// A reasoning model's <think>…</think> is shown collapsed above the answer, never as answer text.
TestCase {
    id: testCase
    name: "Thinking"
    when: windowShown
    visible: true
    width: 600
    height: 400

    Component {
        id: controllerComponent
        ChatController {}
    }
    Component {
        id: contentComponent
        MessageContent {
            width: 560
        }
    }

    function findByName(item, name) {
        if (item.objectName === name)
            return item
        const kids = item.children
        for (let i = 0; i < kids.length; ++i) {
            const found = findByName(kids[i], name)
            if (found)
                return found
        }
        return null
    }

    function make(text, streaming) {
        const c = createTemporaryObject(controllerComponent, testCase)
        return createTemporaryObject(contentComponent, testCase,
                                     { controller: c, text: text, streaming: streaming })
    }

    function test_closedThinkingIsCollapsedAboveTheAnswer() {
        const m = make("<think>\nThe user greets me. I should greet back.\n</think>\n\nHello there!", false)
        compare(m.hasThinking, true)
        compare(m.reasoning.done, true)
        compare(m.reasoning.thinking.trim(), "The user greets me. I should greet back.")
        compare(m.parts.length, 1)
        compare(m.parts[0].text, "Hello there!")
        const header = findByName(m, "thinkingHeader")
        const body = findByName(m, "thinkingText")
        verify(header.visible)
        verify(header.Accessible.name.indexOf("8") >= 0, header.Accessible.name)  // 8 words
        verify(!body.visible)
        waitForRendering(m)
        mouseClick(header)
        verify(body.visible)
        compare(body.text, "The user greets me. I should greet back.")
        // and closed again from the keyboard (a second click this soon would be a double-click)
        header.forceActiveFocus()
        keyClick(Qt.Key_Space)
        verify(!body.visible)
    }

    function test_streamingThinkingIsNotTheAnswer() {
        const m = make("<think>Let me work this out", true)
        compare(m.hasThinking, true)
        compare(m.reasoning.done, false)
        compare(m.parts[0].text, "")
        verify(findByName(m, "thinkingHeader").Accessible.name.indexOf("Thinking") >= 0)
    }

    function test_templateOpenedThinkingEndsAtTheClosingTag() {
        // DeepSeek-R1 distills: the template writes <think> into the prompt.
        const m = make("two plus two is four</think>The answer is 4.", false)
        compare(m.hasThinking, true)
        compare(m.reasoning.thinking, "two plus two is four")
        compare(m.parts[0].text, "The answer is 4.")
    }

    function test_plainRepliesAndUserTextAreUntouched() {
        const m = make("No tags here, just <b>text</b>.", false)
        compare(m.hasThinking, false)
        verify(!findByName(m, "thinkingHeader").parent.visible)
        compare(m.parts[0].text, "No tags here, just <b>text</b>.")
        const typed = createTemporaryObject(contentComponent, testCase,
            { controller: createTemporaryObject(controllerComponent, testCase),
              text: "<think>a user typed this</think>", markdown: false })
        compare(typed.hasThinking, false)
    }
}
