import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Hearth
import Hearth.App

// Every setting, saved as soon as it changes. Each says when it takes effect.
Drawer {
    id: panel

    required property ChatController controller
    readonly property var st: controller.settings
    readonly property var reasons: controller.modelInfo.backendReasons
    // Settings of the local engine only; hidden while the model in use is on a server.
    readonly property bool local: !controller.modelRemote

    function backendOption(value, text) {
        const known = reasons !== undefined && reasons[value] !== undefined
        const reason = value === "auto" || !known ? "" : reasons[value]
        return { value: value, text: text, enabled: reason.length === 0, reason: reason }
    }

    onOpened: controller.refreshSavedContext()
    edge: Qt.RightEdge
    width: Math.min(460, parent ? parent.width * 0.9 : 460)
    height: parent ? parent.height : 600
    background: Rectangle { color: Theme.c.surface; border.color: Theme.c.border }

    ScrollView {
        anchors.fill: parent
        contentWidth: availableWidth
        ColumnLayout {
            objectName: "settingsColumn"
            Accessible.role: Accessible.Dialog
            Accessible.name: qsTr("Settings")
            width: panel.width - 44
            x: 20
            spacing: 16
            Label {
                Layout.topMargin: 16
                text: qsTr("Settings")
                color: Theme.c.text
                font.pixelSize: Theme.fontLarge
                font.bold: true
            }
            Label {
                objectName: "remoteSettingsNote"
                visible: !panel.local
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                text: qsTr("The model in use runs on %1: its backend, memory, context and 4-bit settings are the server's, so they are not shown here. Sampling and the system prompt are sent with every message.")
                      .arg(panel.controller.modelInfo.host || "")
                color: Theme.c.textMuted
                font.pixelSize: Theme.fontSmall
            }
            ChoiceRow {
                objectName: "backendSetting"
                visible: panel.local
                Layout.rightMargin: 28
                label: qsTr("Backend")
                note: qsTr("Applies when the model is loaded again.")
                value: panel.st ? panel.st.backend : "auto"
                options: [panel.backendOption("auto", qsTr("Auto")), panel.backendOption("cuda", "CUDA"),
                          panel.backendOption("vulkan", "Vulkan"), panel.backendOption("cpu", "CPU")]
                onChosen: v => panel.st.backend = v
            }
            SettingRow {
                visible: panel.local
                label: qsTr("GPU layers")
                note: qsTr("Layers run on the GPU, the rest on the CPU. Auto puts as many as fit in its free memory.")
                    + " " + qsTr("Applies when the model is loaded again.")
                TextField {
                    objectName: "gpuLayersSetting"
                    Layout.preferredWidth: 120
                    placeholderText: qsTr("Auto")
                    text: panel.st && panel.st.gpuLayers !== "auto" ? panel.st.gpuLayers : ""
                    // Empty must be acceptable too (an IntValidator holds it back as
                    // intermediate, so clearing the field would never return to Auto).
                    validator: RegularExpressionValidator { regularExpression: /^[0-9]{0,6}$/ }
                    font.pixelSize: Theme.fontBody
                    Accessible.name: qsTr("GPU layers (empty for automatic)")
                    onEditingFinished: panel.st.gpuLayers = text.length > 0 ? text : "auto"
                }
            }
            ChoiceRow {
                objectName: "kvSetting"
                visible: panel.local
                label: qsTr("KV cache")
                note: qsTr("Applies from the next message. Q8 and Q4 hold longer chats in less memory.")
                      + (panel.st && panel.st.kvType === "q4_0"
                         ? " " + qsTr("Q4 changes the model's answers noticeably on small models (it agrees with F16 far less often than Q8).")
                         : "")
                      + (panel.st && panel.st.kvType === "q8_0"
                         ? " " + qsTr("On the CPU, Q8 also makes long chats decode faster than F16.")
                         : "")
                value: panel.st ? panel.st.kvType : "f16"
                options: [{ value: "f16", text: "F16" }, { value: "f32", text: "F32" },
                          { value: "q8_0", text: "Q8" }, { value: "q4_0", text: "Q4" }]
                onChosen: v => panel.st.kvType = v
            }
            SettingRow {
                label: qsTr("Reload the last model at start")
                note: qsTr("Hearth loads the model you used last when it starts.")
                Switch {
                    objectName: "reloadLastModelSetting"
                    text: checked ? qsTr("On") : qsTr("Off")
                    checked: panel.st ? panel.st.reloadLastModel : true
                    font.pixelSize: Theme.fontBody
                    Accessible.name: qsTr("Reload the last model at start")
                    onToggled: panel.st.reloadLastModel = checked
                }
            }
            SettingRow {
                visible: panel.local
                label: qsTr("4-bit weights")
                note: qsTr("Converts 16/8-bit models to 4-bit when loading: about a quarter of the memory, faster replies; the first load takes longer, then it is cached.")
                    + " " + qsTr("Applies when the model is loaded again.")
                Switch {
                    objectName: "int4Setting"
                    text: checked ? qsTr("On") : qsTr("Off")
                    checked: panel.st ? panel.st.int4Weights : false
                    font.pixelSize: Theme.fontBody
                    Accessible.name: qsTr("Convert weights to 4-bit when loading")
                    onToggled: panel.st.int4Weights = checked
                }
                Button {
                    objectName: "clearInt4CacheButton"
                    text: qsTr("Clear 4-bit cache")
                    Accessible.name: qsTr("Delete the cached 4-bit conversions")
                    onClicked: panel.controller.clearInt4Cache()
                }
                Label {
                    objectName: "int4CacheNote"
                    Layout.fillWidth: true
                    text: panel.controller.int4CacheNote
                    color: Theme.c.textMuted
                    font.pixelSize: Theme.fontSmall
                    elide: Text.ElideRight
                }
            }
            NumberRow {
                objectName: "contextSetting"
                visible: panel.local
                label: qsTr("Context length (tokens)")
                note: qsTr("0 uses the model's own length, at most 4096. Applies from the next message.")
                from: 0; to: 131072
                value: panel.st ? panel.st.contextLength : 0
                onEdited: v => panel.st.contextLength = v
            }
            Label {
                objectName: "contextNote"
                visible: panel.local && text.length > 0
                Layout.fillWidth: true
                text: panel.controller.modelInfo.contextNote || ""
                wrapMode: Text.WordWrap
                color: Theme.c.textMuted
                font.pixelSize: Theme.fontSmall
                Accessible.name: text
            }
            SettingRow {
                visible: panel.local
                label: qsTr("Beyond the training length")
                note: qsTr("Keeps a context length longer than the model was trained on (otherwise it is shortened to the model's own); replies past that length may lose coherence.")
                    + " " + qsTr("Applies when the model is loaded again.")
                Switch {
                    objectName: "contextBeyondTrainingSetting"
                    text: checked ? qsTr("On") : qsTr("Off")
                    checked: panel.st ? panel.st.contextBeyondTraining : false
                    font.pixelSize: Theme.fontBody
                    Accessible.name: qsTr("Allow a context longer than the model was trained on")
                    onToggled: panel.st.contextBeyondTraining = checked
                }
            }
            NumberRow {
                objectName: "kvMemorySetting"
                visible: panel.local
                label: qsTr("KV memory (MB)")
                note: qsTr("Memory for the context of all open chats together; the least recently used chats are saved to disk when it is full. 0 chooses a quarter of the free memory, at most eight full contexts. Applies from the next message.")
                from: 0; to: 262144
                value: panel.st ? panel.st.kvMemoryMB : 0
                onEdited: v => panel.st.kvMemoryMB = v
            }
            SettingRow {
                visible: panel.local
                label: qsTr("Saved context")
                note: qsTr("Chats' context is kept on disk so they continue at once after a restart. Oldest are deleted past the limit (MB).")
                SpinBox {
                    objectName: "savedContextLimitSetting"
                    from: 0; to: 1048576; editable: true
                    value: panel.st ? panel.st.savedContextLimitMB : 4096
                    Accessible.name: qsTr("Saved context limit in megabytes")
                    onValueModified: panel.st.savedContextLimitMB = value
                }
                Button {
                    objectName: "clearSavedContextButton"
                    text: qsTr("Clear saved context (%1)").arg(panel.controller.savedContextText)
                    Accessible.name: qsTr("Delete the chats' saved context")
                    onClicked: panel.controller.clearSavedContext()
                }
            }
            NumberRow {
                visible: panel.local
                label: qsTr("CPU threads")
                note: qsTr("0 uses all cores. Applies from the next message.")
                from: 0; to: 256
                value: panel.st ? panel.st.threads : 0
                onEdited: v => panel.st.threads = v
            }
            ChoiceRow {
                objectName: "speculativeSetting"
                visible: panel.local
                label: qsTr("Speculative decoding")
                note: qsTr("Drafts several tokens and lets the model check them in one step: the same replies, faster when the drafts are right. Prompt lookup drafts from the chat's own text (code being edited, quotes); a draft model is a smaller model with the same vocabulary. Applies from the next message.")
                value: panel.st ? panel.st.speculative : "off"
                options: [{ value: "off", text: qsTr("Off") }, { value: "lookup", text: qsTr("Prompt lookup") },
                          { value: "draft", text: qsTr("Draft model") }]
                onChosen: v => panel.st.speculative = v
            }
            SettingRow {
                visible: panel.local && (panel.st ? panel.st.speculative === "draft" : false)
                label: qsTr("Draft model file")
                TextField {
                    objectName: "draftModelSetting"
                    Layout.fillWidth: true
                    text: panel.st ? panel.st.draftModel : ""
                    placeholderText: qsTr("A GGUF file with the same vocabulary")
                    font.pixelSize: Theme.fontBody
                    Accessible.name: qsTr("Draft model file")
                    onEditingFinished: panel.st.draftModel = text
                }
                Button {
                    text: qsTr("Choose…")
                    Accessible.name: qsTr("Choose the draft model file")
                    onClicked: draftDialog.open()
                }
            }
            NumberRow {
                objectName: "temperatureSetting"
                label: qsTr("Temperature")
                note: qsTr("0 always picks the most likely word. Applies from the next message.")
                from: 0; to: 2; decimals: 2
                value: panel.st ? panel.st.temperature : 0.8
                onEdited: v => panel.st.temperature = v
            }
            NumberRow {
                label: qsTr("Top-k")
                from: 0; to: 1000
                value: panel.st ? panel.st.topK : 40
                onEdited: v => panel.st.topK = v
            }
            NumberRow {
                label: qsTr("Top-p")
                from: 0; to: 1; decimals: 2
                value: panel.st ? panel.st.topP : 0.95
                onEdited: v => panel.st.topP = v
            }
            NumberRow {
                label: qsTr("Min-p")
                from: 0; to: 1; decimals: 2
                value: panel.st ? panel.st.minP : 0.05
                onEdited: v => panel.st.minP = v
            }
            NumberRow {
                label: qsTr("Repeat penalty")
                from: 0.5; to: 2; decimals: 2
                value: panel.st ? panel.st.repeatPenalty : 1.1
                onEdited: v => panel.st.repeatPenalty = v
            }
            NumberRow {
                label: qsTr("Longest reply (tokens)")
                from: 1; to: 32768
                value: panel.st ? panel.st.maxTokens : 512
                onEdited: v => panel.st.maxTokens = v
            }
            SettingRow {
                label: qsTr("Default system prompt")
                note: qsTr("Used by new chats.")
                TextArea {
                    objectName: "systemPromptSetting"
                    // Tab moves on (a text field must not trap the keyboard).
                    Keys.onTabPressed: nextItemInFocusChain(true).forceActiveFocus(Qt.TabFocusReason)
                    Keys.onBacktabPressed: nextItemInFocusChain(false).forceActiveFocus(Qt.BacktabFocusReason)
                    Layout.fillWidth: true
                    Layout.rightMargin: 28
                    wrapMode: TextEdit.Wrap
                    text: panel.st ? panel.st.systemPrompt : ""
                    placeholderText: qsTr("e.g. You are a concise assistant.")
                    color: Theme.c.text
                    font.pixelSize: Theme.fontBody
                    Accessible.name: qsTr("Default system prompt")
                    onEditingFinished: panel.st.systemPrompt = text
                }
            }
            ChoiceRow {
                objectName: "themeSetting"
                label: qsTr("Theme")
                note: qsTr("Applies at once.")
                value: panel.st ? panel.st.theme : "system"
                options: [{ value: "light", text: qsTr("Light") }, { value: "dark", text: qsTr("Dark") },
                          { value: "system", text: qsTr("Follow system") }]
                onChosen: v => panel.st.theme = v
            }
            ChoiceRow {
                objectName: "languageSetting"
                label: qsTr("Language")
                note: qsTr("Applies after Hearth is restarted.")
                value: panel.st ? panel.st.language : "system"
                options: [{ value: "system", text: qsTr("System") }, { value: "en", text: "English" },
                          { value: "zh_CN", text: "简体中文" }]
                onChosen: v => panel.st.language = v
            }
            ChoiceRow {
                objectName: "fontSetting"
                label: qsTr("Text size")
                note: qsTr("Applies at once.")
                value: panel.st ? String(panel.st.fontScale) : "1"
                options: [{ value: "0.9", text: qsTr("Small") }, { value: "1", text: qsTr("Normal") },
                          { value: "1.15", text: qsTr("Large") }, { value: "1.3", text: qsTr("Larger") }]
                onChosen: v => panel.st.fontScale = Number(v)
            }
            ApiServerSection {
                controller: panel.controller
            }
            Button {
                objectName: "restoreDefaultsButton"
                Layout.bottomMargin: 20
                text: qsTr("Restore defaults")
                Accessible.name: text
                onClicked: confirmDefaults.open()
            }
            ConfirmDefaultsDialog {
                id: confirmDefaults
                objectName: "confirmDefaults"
                settings: panel.st
                parent: Overlay.overlay
            }
        }
    }

    FileDialog {
        id: draftDialog
        title: qsTr("Choose a draft model")
        nameFilters: [qsTr("GGUF models (*.gguf)"), qsTr("All files (*)")]
        onAccepted: panel.st.draftModel = decodeURIComponent(selectedFile.toString().replace(/^file:\/\//, ""))
    }
}
