import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth

// Restore defaults asks first: it also clears the system prompt, which may be long and
// written by hand.
ThemedDialog {
    id: dialog

    property var settings

    title: qsTr("Restore the default settings?")
    width: Math.min(parent ? parent.width - 48 : 440, 440)
    Label {
        width: parent ? parent.width : 400
        wrapMode: Text.Wrap
        color: Theme.c.text
        text: dialog.settings && String(dialog.settings.systemPrompt).length > 0
              ? qsTr("Every setting goes back to its default, and your system prompt is cleared. Chats and their own settings are kept.")
              : qsTr("Every setting goes back to its default. Chats and their own settings are kept.")
        Accessible.role: Accessible.AlertMessage
        Accessible.name: text
    }
    standardButtons: Dialog.RestoreDefaults | Dialog.Cancel
    Component.onCompleted: standardButton(Dialog.RestoreDefaults).objectName = "confirmRestore"
    onAccepted: if (settings) settings.resetToDefaults()
    // RestoreDefaults has the Reset role, which does not accept the dialog by itself.
    onReset: { settings.resetToDefaults(); close() }
}
