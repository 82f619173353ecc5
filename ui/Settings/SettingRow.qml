import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth

// A label, a control (the default child) and an optional note under it.
ColumnLayout {
    id: row

    property string label
    property string note
    default property alias content: holder.data

    spacing: 4
    Layout.fillWidth: true

    Label {
        text: row.label
        color: Theme.c.text
        font.pixelSize: Theme.fontBody
        font.bold: true
    }
    RowLayout {
        id: holder
        Layout.fillWidth: true
        spacing: 8
    }
    Label {
        Layout.fillWidth: true
        visible: row.note.length > 0
        text: row.note
        wrapMode: Text.Wrap
        color: Theme.c.textMuted
        font.pixelSize: Theme.fontSmall
    }
}
