import QtQuick
import QtQuick.Layouts
import QtTest
import Hearth
import Hearth.App

// The main flows on the real engine and the tiny model: drop a model, type and send, a bad
// file's banner, and settings that survive a restart.
TestCase {
    id: testCase
    name: "ChatFlow"
    when: windowShown
    visible: true
    width: 1000
    height: 720

    property int dirCounter: 0
    function newDataDir() {
        dirCounter += 1
        return testTempRoot + "/flow-" + dirCounter
    }

    Component {
        id: controllerComponent
        ChatController {}
    }
    Component {
        id: viewComponent
        ColumnLayout {
            id: flow
            required property string dataDir
            property ChatController controller: ChatController {
                dataDir: flow.dataDir
            }
            property alias empty: emptyState
            property alias chat: chatView
            width: 1000
            height: 720
            ModelBar {
                Layout.fillWidth: true
                controller: flow.controller
            }
            EmptyState {
                id: emptyState
                Layout.fillWidth: true
                Layout.preferredHeight: 300
                controller: flow.controller
            }
            ChatView {
                id: chatView
                Layout.fillWidth: true
                Layout.fillHeight: true
                controller: flow.controller
            }
            Composer {
                Layout.fillWidth: true
                controller: flow.controller
            }
        }
    }
    SignalSpy {
        id: replySpy
        signalName: "replyFinished"
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

    function makeController(dir) {
        const c = createTemporaryObject(controllerComponent, testCase, { dataDir: dir || newDataDir() })
        tryVerify(() => c.ready, 10000)
        return c
    }
    // A view with its own controller (destroyed together, so no binding sees it vanish).
    function makeView() {
        const view = createTemporaryObject(viewComponent, testCase, { dataDir: newDataDir() })
        tryVerify(() => view.controller.ready, 10000)
        return view
    }

    function loadTinyModel(view) {
        if (tinyModelUrl.toString().length === 0)
            skip("../shared/models/stories260K.gguf not found (set HEARTH_SHARED_DIR)")
        verify(view.empty.offerUrls([tinyModelUrl]))
        tryCompare(view.controller, "modelState", "ready", 30000)
    }

    function test_dropModelLoadsAndShowsName() {
        const view = makeView()
        const c = view.controller
        loadTinyModel(view)
        const name = findByName(view, "modelName")
        verify(c.modelInfo.name.length > 0)
        compare(name.text, c.modelInfo.name)
        verify(findByName(view, "backendBadge").visible)
        compare(c.settings.recentModels[0], tinyModelUrl.toString().replace("file://", ""))
    }

    function test_typeAndSendShowsAnAnswer() {
        const view = makeView()
        const c = view.controller
        c.settings.temperature = 0
        c.settings.maxTokens = 16
        loadTinyModel(view)
        const input = findByName(view, "composerInput")
        verify(input.enabled)
        input.forceActiveFocus()
        keyClick("O")
        keyClick(Qt.Key_N)
        keyClick(Qt.Key_C)
        keyClick(Qt.Key_E)
        compare(input.text, "Once")
        replySpy.target = c
        replySpy.clear()
        keyClick(Qt.Key_Return)
        compare(input.text, "")  // sent, not a new line
        replySpy.wait(60000)
        compare(view.chat.count, 2)
        tryVerify(() => view.chat.itemAtIndex(1) !== null)
        compare(view.chat.itemAtIndex(0).content, "Once")
        verify(view.chat.itemAtIndex(1).content.length > 0)
        compare(view.chat.itemAtIndex(1).role, "assistant")

        // Regenerate: a second version, and the switcher says 2/2.
        replySpy.clear()
        verify(c.regenerate(view.chat.itemAtIndex(1).messageId))
        replySpy.wait(60000)
        tryVerify(() => view.chat.itemAtIndex(1) !== null && view.chat.itemAtIndex(1).siblingCount === 2)
        const label = findByName(view.chat.itemAtIndex(1), "branchLabel")
        verify(label.visible)
        compare(label.text, "2/2")
    }

    function test_shiftEnterStartsANewLine() {
        const view = makeView()
        const c = view.controller
        loadTinyModel(view)
        const input = findByName(view, "composerInput")
        input.forceActiveFocus()
        keyClick(Qt.Key_A)
        keyClick(Qt.Key_Return, Qt.ShiftModifier)
        keyClick(Qt.Key_B)
        compare(input.text, "a\nb")
        verify(!c.generating)
    }

    function test_composerIsDisabledWithoutAModel() {
        const view = makeView()
        const c = view.controller
        const input = findByName(view, "composerInput")
        verify(!input.enabled)
        verify(input.placeholderText.indexOf(".gguf") >= 0)
    }

    function test_badFileShowsTheBanner() {
        const view = makeView()
        const c = view.controller
        verify(view.empty.offerUrls([badGgufUrl]))  // passes the quick check ...
        const banner = findByName(view, "rejectionBanner")
        tryVerify(() => banner.visible, 10000)     // ... the engine refuses it
        const text = findByName(banner, "bannerText").text
        verify(text.indexOf("broken.gguf") >= 0, text)
        compare(c.modelState, "none")
    }

    function test_settingsPersistAcrossRestart() {
        const dir = newDataDir()
        const first = controllerComponent.createObject(testCase, { dataDir: dir })
        tryVerify(() => first.ready, 10000)
        first.settings.temperature = 0.3
        first.settings.theme = "dark"
        first.settings.kvType = "f32"
        first.settings.int4Weights = true
        first.settings.systemPrompt = "Be brief."
        first.destroy()
        wait(0)
        const second = makeController(dir)
        compare(second.settings.temperature, 0.3)
        compare(second.settings.theme, "dark")
        compare(second.settings.kvType, "f32")
        compare(second.settings.int4Weights, true)
        compare(second.settings.systemPrompt, "Be brief.")
    }
}
