import QtQuick
import QtQuick.Layouts
import QtTest
import Hearth
import Hearth.App

// The chat header's context meter, the overflow notice and the chat-settings popup on the
// real engine (stories260K, a 256-token context), each saved as a screenshot in light and dark
// under <build>/tests/ui/screenshots.
TestCase {
    id: testCase
    name: "ContextUi"
    when: windowShown
    visible: true
    width: 900
    height: 700

    property int dirCounter: 0

    Component {
        id: viewComponent
        Rectangle {
            id: flow
            required property string dataDir
            property ChatController controller: ChatController {
                dataDir: flow.dataDir
            }
            property alias header: chatHeader
            property alias chat: chatView
            width: 900
            height: 700
            color: Theme.c.window
            ColumnLayout {
                anchors.fill: parent
                ChatHeader {
                    id: chatHeader
                    Layout.fillWidth: true
                    Layout.margins: 12
                    controller: flow.controller
                }
                ChatView {
                    id: chatView
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                    controller: flow.controller
                }
                StatusLine {
                    Layout.fillWidth: true
                    Layout.margins: 12
                    controller: flow.controller
                }
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

    function shoot(item, name) {
        for (const mode of ["light", "dark"]) {
            Theme.mode = mode
            wait(50)
            const image = grabImage(item)
            verify(image.width > 0)
            const path = testScreenshotDir + "/" + name + "-" + mode + ".png"
            image.save(path)  // throws (failing the test) when it cannot write
        }
        Theme.mode = "light"
    }

    function test_meterNoticeAndChatSettings() {
        if (tinyModelUrl.toString().length === 0)
            skip("../shared/models/stories260K.gguf not found (set HEARTH_SHARED_DIR)")
        dirCounter += 1
        const view = createTemporaryObject(viewComponent, testCase,
                                           { dataDir: testTempRoot + "/context-" + dirCounter })
        const c = view.controller
        tryVerify(() => c.ready, 10000)
        c.settings.temperature = 0
        c.settings.maxTokens = 8
        c.settings.contextLength = 256
        // 256 positions, past the 128 stories260K was trained on: allowed explicitly.
        c.settings.contextBeyondTraining = true
        c.settings.systemPrompt = "Tell tales."
        verify(c.loadModel(tinyModelUrl))
        tryCompare(c, "modelState", "ready", 30000)
        replySpy.target = c
        for (let i = 0; i < 8 && c.contextDroppedUpTo === 0; ++i) {
            replySpy.clear()
            verify(c.send("Turn " + i + ": Lily and Tom went to the park with their dog and played until the sun went down."))
            replySpy.wait(60000)
        }
        verify(c.contextDroppedUpTo !== 0)

        // The meter in the header: used / max.
        const meter = findByName(view.header, "headerContextMeter")
        verify(meter.visible)
        compare(meter.text, qsTr("%1 / %2 tokens").arg(c.stats.contextUsed).arg(256))

        // The notice under the newest message the model no longer sees.
        let row = -1
        for (let i = 0; i < view.chat.count; ++i) {
            view.chat.positionViewAtIndex(i, ListView.Contain)
            const item = view.chat.itemAtIndex(i)
            if (item && item.messageId === c.contextDroppedUpTo)
                row = i
        }
        verify(row >= 0)
        view.chat.positionViewAtIndex(row, ListView.Center)
        tryVerify(() => view.chat.itemAtIndex(row) !== null)
        const notice = findByName(view.chat.itemAtIndex(row), "contextNotice")
        verify(notice.visible)
        // Only there.
        for (let i = 0; i < view.chat.count; ++i) {
            const item = view.chat.itemAtIndex(i)
            if (item && i !== row)
                verify(!findByName(item, "contextNotice").visible)
        }
        shoot(view, "context-meter-and-notice")

        // The chat's own settings.
        const button = findByName(view.header, "chatSettingsButton")
        verify(button.visible)
        mouseClick(button)
        const panel = view.header.chatSettingsPanel
        tryVerify(() => panel.opened)
        compare(findByName(panel.contentItem, "chatSystemPrompt").text, "Tell tales.")
        shoot(view, "chat-settings")
        c.setChatSampling("temperature", 0.4)
        tryCompare(c.chatSettings, "temperature", 0.4)
        panel.close()
    }
}
