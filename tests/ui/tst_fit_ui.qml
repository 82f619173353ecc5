import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QtTest
import Hearth
import Hearth.App

// The placement settings in the views, on the real engine and stories260K: the GPU-layers field
// of the settings panel (a number splits the model between the CPU and an accelerator, empty
// means automatic), and the fit check's refusal with its "Load anyway" action. The accelerator
// is the reference plugin (hearth-backend-ref), which stands in for a GPU here. Screenshots land
// in <build>/tests/ui/screenshots.
TestCase {
    id: testCase
    name: "FitUi"
    when: windowShown
    visible: true
    width: 1000
    height: 720

    property int dirCounter: 0

    Component {
        id: viewComponent
        Rectangle {
            id: flow
            required property string dataDir
            property ChatController controller: ChatController {
                dataDir: flow.dataDir
            }
            property alias banners: appBanners
            width: 1000
            height: 720
            color: Theme.c.window
            ColumnLayout {
                anchors.fill: parent
                AppBanners {
                    id: appBanners
                    Layout.fillWidth: true
                    Layout.margins: 8
                    controller: flow.controller
                }
                Item {
                    Layout.fillHeight: true
                }
            }
        }
    }
    Component {
        id: settingsComponent
        SettingsPanel {}
    }

    function findByName(item, name) {
        if (!item)
            return null
        if (item.objectName === name)
            return item
        const kids = item.children
        for (let i = 0; kids && i < kids.length; ++i) {
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
            grabImage(item).save(testScreenshotDir + "/" + name + "-" + mode + ".png")
        }
        Theme.mode = "light"
    }
    function makeView() {
        if (tinyModelUrl.toString().length === 0)
            skip("../shared/models/stories260K.gguf not found (set HEARTH_SHARED_DIR)")
        dirCounter += 1
        const view = createTemporaryObject(viewComponent, testCase,
                                           { dataDir: testTempRoot + "/fit-" + dirCounter })
        tryVerify(() => view.controller.ready, 10000)
        return view
    }
    function typeInto(field, text) {
        field.forceActiveFocus()
        field.selectAll()
        keyClick(Qt.Key_Delete)
        for (const ch of text)
            keyClick(ch)
        keyClick(Qt.Key_Return)
    }

    function cleanup() {
        testEnv.unset("HEARTH_HOST_MEMORY_AVAILABLE")
    }

    // The field stores a number as typed and an empty field as "auto"; letters never get in.
    // The number reaches the engine: with the reference plugin as the backend, that many layers
    // run on it and the model info says so.
    function test_gpuLayersFieldSplitsTheModel() {
        const view = makeView()
        const c = view.controller
        const panel = createTemporaryObject(settingsComponent, view, { controller: c })
        panel.open()
        tryVerify(() => panel.opened)
        const field = findByName(panel.contentItem, "gpuLayersSetting")
        verify(field)
        verify(field.Accessible.name.length > 0)
        compare(field.text, "")
        compare(c.settings.gpuLayers, "auto")

        typeInto(field, "3")
        compare(c.settings.gpuLayers, "3")
        typeInto(field, "x")
        compare(field.text, "")  // the validator keeps letters out
        compare(c.settings.gpuLayers, "auto")
        typeInto(field, "2")
        compare(c.settings.gpuLayers, "2")
        shoot(panel.contentItem, "settings-gpu-layers")
        panel.close()

        c.settings.backend = "ref"
        verify(c.loadModel(tinyModelUrl))
        tryCompare(c, "modelState", "ready", 30000)
        compare(c.modelInfo.backend, "ref")
        compare(c.modelInfo.gpuLayers, 2)
        verify(c.modelInfo.backendTip.indexOf("2 of 5 layers") >= 0, c.modelInfo.backendTip)
    }

    // A model the fit check refuses shows why, with the numbers, and "Load anyway" loads it.
    function test_loadAnywayAfterFitRefusal() {
        const view = makeView()
        const c = view.controller
        c.settings.backend = "cpu"
        testEnv.set("HEARTH_HOST_MEMORY_AVAILABLE", "500000")  // less than the weights
        verify(c.loadModel(tinyModelUrl))
        tryVerify(() => c.modelTooLarge, 30000)
        verify(c.modelState !== "ready")
        const banner = findByName(view.banners, "modelErrorBanner")
        tryVerify(() => banner.visible)
        verify(banner.message.indexOf("500.0 KB available") >= 0, banner.message)
        compare(banner.actionText, "Load anyway")
        shoot(view, "fit-refused")

        banner.action()
        tryCompare(c, "modelState", "ready", 30000)
        verify(!c.modelTooLarge)
        tryVerify(() => !banner.visible)
    }
}
