import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth

// A setting chosen from a few options: [{value, text, enabled, reason}]. Unavailable options
// are disabled and say why.
SettingRow {
    id: row

    property var options: []
    property string value
    signal chosen(string value)

    Flow {
        Layout.fillWidth: true
        spacing: 6
        Repeater {
            model: row.options
            RadioButton {
                required property var modelData
                text: modelData.text
                checked: row.value === modelData.value
                enabled: modelData.enabled !== false
                opacity: enabled ? 1.0 : 0.45
                font.pixelSize: Theme.fontBody
                Accessible.name: text + (modelData.reason ? " — " + modelData.reason : "")
                ToolTip.visible: hovered && modelData.reason !== undefined && modelData.reason.length > 0
                ToolTip.text: modelData.reason || ""
                onClicked: row.chosen(modelData.value)
            }
        }
    }
}
