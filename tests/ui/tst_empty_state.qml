import QtQuick
import QtTest
import Hearth
import Hearth.App

// The empty state accepts a .gguf and refuses anything else with a visible message.
TestCase {
    id: testCase
    name: "EmptyState"
    when: windowShown
    visible: true
    width: 900
    height: 700

    Component {
        id: emptyStateComponent
        EmptyState {
            width: 900
            height: 700
            picker: ModelPicker {}
        }
    }

    function findByName(item, name) {
        if (item.objectName === name)
            return item
        for (let i = 0; i < item.children.length; ++i) {
            const found = findByName(item.children[i], name)
            if (found)
                return found
        }
        return null
    }

    function test_promptIsShown() {
        const view = createTemporaryObject(emptyStateComponent, testCase)
        const prompt = findByName(view, "dropPrompt")
        verify(prompt)
        compare(prompt.text, "Drop a .gguf model here")
        verify(findByName(view, "chooseButton").visible)
        verify(!findByName(view, "modelCard").visible)
        verify(!findByName(view, "rejectionBanner").visible)
    }

    function test_dragHighlightsTheZone() {
        const view = createTemporaryObject(emptyStateComponent, testCase)
        const zone = findByName(view, "dropZone")
        const idle = zone.color
        view.dragActive = true
        compare(findByName(view, "dropPrompt").text, "Release to open the model")
        verify(zone.border.color !== idle)
    }

    function test_acceptsGguf() {
        const view = createTemporaryObject(emptyStateComponent, testCase)
        verify(view.offerUrls([testGgufUrl]))
        const card = findByName(view, "modelCard")
        tryVerify(() => card.visible)
        compare(findByName(card, "modelFileName").text, "story.gguf")
        compare(findByName(card, "modelFileSize").text, "4.1 KB")
        verify(!findByName(view, "rejectionBanner").visible)
    }

    function test_rejectsTextWithMessage() {
        const view = createTemporaryObject(emptyStateComponent, testCase)
        verify(!view.offerUrls([testTextUrl]))
        const banner = findByName(view, "rejectionBanner")
        tryVerify(() => banner.visible)
        const text = findByName(banner, "bannerText").text
        verify(text.indexOf("notes.txt") >= 0, text)
        verify(text.indexOf(".gguf") >= 0, text)
        verify(!findByName(view, "modelCard").visible)
    }

    function test_dismissingTheMessageHidesIt() {
        const view = createTemporaryObject(emptyStateComponent, testCase)
        view.offerUrls([testTextUrl])
        const banner = findByName(view, "rejectionBanner")
        tryVerify(() => banner.visible)
        banner.dismissed()
        tryVerify(() => !banner.visible)
    }
}
