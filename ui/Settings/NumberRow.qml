import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth

// A numeric setting edited as text (so decimals and large numbers both work), with bounds.
SettingRow {
    id: row

    property real value
    property real from: 0
    property real to: 100
    property int decimals: 0
    signal edited(real value)

    TextField {
        objectName: "numberField"
        Layout.preferredWidth: 110
        text: row.decimals > 0 ? Number(row.value).toFixed(row.decimals) : String(Math.round(row.value))
        color: Theme.c.text
        font.pixelSize: Theme.fontBody
        Accessible.name: row.label
        validator: DoubleValidator { bottom: row.from; top: row.to; decimals: row.decimals }
        onEditingFinished: {
            const v = Number(text)
            if (!isNaN(v) && v >= row.from && v <= row.to)
                row.edited(row.decimals > 0 ? v : Math.round(v))
        }
    }
    Label {
        text: qsTr("(%1 – %2)").arg(row.from).arg(row.to)
        color: Theme.c.textMuted
        font.pixelSize: Theme.fontSmall
    }
}
