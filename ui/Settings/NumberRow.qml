import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth

// A numeric setting edited as text (so decimals and large numbers both work), with bounds. A
// number outside them (or no number) is refused where the person can see it: the field goes
// back to the value in use and a message says what is allowed.
SettingRow {
    id: row

    property real value
    property real from: 0
    property real to: 100
    property int decimals: 0
    // Set when the last entry was refused (the message shown under the field).
    property string error: ""
    signal edited(real value)

    function shown(v) {
        return decimals > 0 ? Number(v).toFixed(decimals) : String(Math.round(v))
    }
    // Checks the text; applies a valid number, else restores the value in use. Returns whether
    // the entry was valid.
    function commit(text) {
        const v = Number(String(text).trim().replace(",", "."))
        if (String(text).trim().length === 0 || isNaN(v) || v < from || v > to) {
            error = qsTr("“%1” is not allowed: enter a number from %2 to %3. Kept %4.")
                .arg(String(text).trim()).arg(from).arg(to).arg(shown(value))
            field.text = Qt.binding(() => row.shown(row.value))
            return false
        }
        error = ""
        const applied = decimals > 0 ? v : Math.round(v)
        if (applied !== value)
            edited(applied)
        // Shows the value in use again (the setting's, once the edit has reached it).
        field.text = Qt.binding(() => row.shown(row.value))
        return true
    }

    TextField {
        id: field
        objectName: "numberField"
        Layout.preferredWidth: 110
        text: row.shown(row.value)
        color: row.error.length > 0 ? Theme.c.error : Theme.c.text
        font.pixelSize: Theme.fontBody
        Accessible.name: row.label
        Accessible.description: row.error.length > 0 ? row.error
                                : qsTr("A number from %1 to %2").arg(row.from).arg(row.to)
        // No validator: it would swallow an out-of-range entry silently (editingFinished is
        // not emitted for it), which is the bug this row fixes.
        onEditingFinished: row.commit(text)
    }
    Label {
        text: qsTr("(%1 – %2)").arg(row.from).arg(row.to)
        color: Theme.c.textMuted
        font.pixelSize: Theme.fontSmall
    }
    Label {
        objectName: "numberError"
        Layout.fillWidth: true
        visible: row.error.length > 0
        text: row.error
        wrapMode: Text.Wrap
        color: Theme.c.error
        font.pixelSize: Theme.fontSmall
        Accessible.role: Accessible.AlertMessage
        Accessible.name: text
    }
}
