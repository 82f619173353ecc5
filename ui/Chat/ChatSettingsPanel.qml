import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth
import Hearth.App

// The open chat's own settings: its system prompt and the sampling values it overrides. A
// value left as in Settings follows Settings; "Use Settings" drops this chat's overrides.
Popup {
    id: panel

    required property ChatController controller
    readonly property var cs: controller.chatSettings
    readonly property var st: controller.settings

    function valueOf(key) {
        return cs[key] !== undefined ? cs[key] : (st ? st[key] : 0)
    }

    modal: true
    focus: true
    width: Math.min(440, parent ? parent.width - 40 : 440)
    padding: 16
    background: Rectangle { color: Theme.c.surface; border.color: Theme.c.border; radius: Theme.radius }

    ScrollView {
        anchors.fill: parent
        implicitHeight: Math.min(column.implicitHeight, panel.parent ? panel.parent.height - 80 : 600)
        contentWidth: availableWidth
        ColumnLayout {
            id: column
            objectName: "chatSettingsColumn"
            width: panel.availableWidth
            spacing: 12
            Accessible.role: Accessible.Dialog
            Accessible.name: qsTr("Chat settings")
            Label {
                text: qsTr("This chat")
                color: Theme.c.text
                font.pixelSize: Theme.fontLarge
                font.bold: true
            }
            SettingRow {
                label: qsTr("System prompt")
                note: qsTr("Applies from the next message. New chats start with the one in Settings.")
                TextArea {
                    id: systemPrompt
                    objectName: "chatSystemPrompt"
                    // Tab moves on (a text field must not trap the keyboard).
                    Keys.onTabPressed: nextItemInFocusChain(true).forceActiveFocus(Qt.TabFocusReason)
                    Keys.onBacktabPressed: nextItemInFocusChain(false).forceActiveFocus(Qt.BacktabFocusReason)
                    Layout.fillWidth: true
                    Layout.preferredHeight: 90
                    wrapMode: TextEdit.Wrap
                    text: panel.cs.systemPrompt !== undefined ? panel.cs.systemPrompt : ""
                    color: Theme.c.text
                    font.pixelSize: Theme.fontBody
                    placeholderText: qsTr("No system prompt")
                    Accessible.name: qsTr("System prompt of this chat")
                    onEditingFinished: if (text !== panel.cs.systemPrompt) panel.controller.setChatSystemPrompt(text)
                }
            }
            SettingRow {
                label: qsTr("Presets")
                note: qsTr("Named system prompts: pick one for this chat, or save this chat's under a name.")
                ComboBox {
                    objectName: "presetChoice"
                    Layout.fillWidth: true
                    model: panel.controller.presets
                    textRole: "name"
                    displayText: count > 0 ? qsTr("Pick a preset…") : qsTr("No presets yet")
                    enabled: count > 0
                    Accessible.name: qsTr("Use a saved system prompt")
                    onActivated: index => panel.controller.setChatSystemPrompt(panel.controller.presets[index].prompt)
                }
            }
            RowLayout {
                Layout.fillWidth: true
                TextField {
                    id: presetName
                    objectName: "presetName"
                    Layout.fillWidth: true
                    placeholderText: qsTr("Preset name")
                    color: Theme.c.text
                    Accessible.name: qsTr("Name for the preset")
                }
                Button {
                    objectName: "savePresetButton"
                    text: qsTr("Save as preset")
                    enabled: presetName.text.trim().length > 0
                    Accessible.name: qsTr("Save this chat's system prompt as a preset")
                    onClicked: {
                        panel.controller.savePreset(presetName.text, systemPrompt.text)
                        presetName.text = ""
                    }
                }
            }
            Repeater {
                model: [
                    { key: "temperature", label: qsTr("Temperature"), from: 0, to: 2, decimals: 2 },
                    { key: "topK", label: qsTr("Top-k"), from: 0, to: 1000, decimals: 0 },
                    { key: "topP", label: qsTr("Top-p"), from: 0, to: 1, decimals: 2 },
                    { key: "minP", label: qsTr("Min-p"), from: 0, to: 1, decimals: 2 },
                    { key: "repeatPenalty", label: qsTr("Repeat penalty"), from: 0.5, to: 2, decimals: 2 },
                    { key: "maxTokens", label: qsTr("Longest reply (tokens)"), from: 1, to: 32768, decimals: 0 }
                ]
                delegate: NumberRow {
                    required property var modelData
                    objectName: "chat_" + modelData.key
                    label: modelData.label + (panel.cs[modelData.key] !== undefined ? "" : " " + qsTr("(as in Settings)"))
                    from: modelData.from; to: modelData.to; decimals: modelData.decimals
                    value: panel.valueOf(modelData.key)
                    onEdited: v => panel.controller.setChatSampling(modelData.key, v)
                }
            }
            RowLayout {
                Item { Layout.fillWidth: true }
                Button {
                    objectName: "chatSettingsReset"
                    text: qsTr("Use Settings")
                    Accessible.name: qsTr("Use the sampling from Settings for this chat")
                    onClicked: {
                        for (const k of ["temperature", "topK", "topP", "minP", "repeatPenalty", "maxTokens"])
                            panel.controller.setChatSampling(k, undefined)
                    }
                }
                Button {
                    text: qsTr("Close")
                    Accessible.name: text
                    onClicked: panel.close()
                }
            }
        }
    }
}
