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
        // Tab moves on (a text field must not trap the keyboard).
        Keys.onTabPressed: nextItemInFocusChain(true).forceActiveFocus(Qt.TabFocusReason)
        Keys.onBacktabPressed: nextItemInFocusChain(false).forceActiveFocus(Qt.BacktabFocusReason)
        Layout.fillWidth: true
        wrapMode: TextEdit.Wrap
        color: Theme.c.text
        font.pixelSize: Theme.fontBody
        Accessible.name: qsTr("Edit message")
        Keys.onEscapePressed: root.cancelled()
        // Ctrl+Enter saves (Enter alone is a new line while editing).
        Keys.onPressed: event => {
            if ((event.key === Qt.Key_Return || event.key === Qt.Key_Enter)
                    && (event.modifiers & Qt.ControlModifier)) {
                event.accepted = true
                root.saved(area.text)
            }
        }
    }
    RowLayout {
        Layout.alignment: Qt.AlignRight
        Button {
            text: qsTr("Cancel")
            Accessible.name: text
            Accessible.description: qsTr("Discard the changes (Esc)")
            onClicked: root.cancelled()
        }
        AccentButton {
            objectName: "saveEditButton"
            text: qsTr("Save and send")
            Accessible.description: qsTr("Save the edit as a new version and ask again (Ctrl+Enter)")
            onClicked: root.saved(area.text)
        }
    }
}
