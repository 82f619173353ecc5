import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth

// Editing a sent message: saving makes a new branch and asks for a new reply.
ColumnLayout {
    id: root

    property alias text: area.text
    signal saved(string text)
    signal cancelled

    function focusInput() { area.forceActiveFocus() }

    spacing: 6
    TextArea {
        id: area
        objectName: "editArea"
        Layout.fillWidth: true
        wrapMode: TextEdit.Wrap
        color: Theme.c.text
        font.pixelSize: Theme.fontBody
        Accessible.name: qsTr("Edit message")
        Keys.onEscapePressed: root.cancelled()
    }
    RowLayout {
        Layout.alignment: Qt.AlignRight
        Button {
            text: qsTr("Cancel")
            onClicked: root.cancelled()
        }
        AccentButton {
            text: qsTr("Save and send")
            onClicked: root.saved(area.text)
        }
    }
}
