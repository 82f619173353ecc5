import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth
import Hearth.App

// Settings → Local API server: an OpenAI-compatible server on this machine (127.0.0.1) over the
// loaded model, for editors, scripts and other apps. Off by default.
ColumnLayout {
    id: section

    required property ChatController controller
    readonly property var st: controller.settings

    objectName: "apiServerSection"
    spacing: 8
    Layout.fillWidth: true

    SettingRow {
        label: qsTr("Local API server")
        note: qsTr("Lets other programs on this computer use the loaded model through the OpenAI API (base URL below). Only this computer can connect.")
        Switch {
            objectName: "apiServerSwitch"
            text: checked ? qsTr("On") : qsTr("Off")
            checked: section.st ? section.st.apiServerEnabled : false
            font.pixelSize: Theme.fontBody
            Accessible.name: qsTr("Run the local API server")
            onToggled: section.st.apiServerEnabled = checked
        }
    }
    NumberRow {
        objectName: "apiServerPortSetting"
        label: qsTr("Port")
        from: 1; to: 65535
        value: section.st ? section.st.apiServerPort : 8080
        onEdited: v => section.st.apiServerPort = v
    }
    SettingRow {
        label: qsTr("API key")
        note: qsTr("Optional. When set, programs must send it as \"Authorization: Bearer KEY\".")
        TextField {
            objectName: "apiServerKeySetting"
            Layout.fillWidth: true
            Layout.rightMargin: 28
            text: section.st ? section.st.apiServerKey : ""
            // Shown as typed: Qt 6.4 gives a password field no accessible name, so a screen
            // reader could not say what the field is (app_accessibility_test).
            echoMode: TextInput.Normal
            placeholderText: qsTr("No key")
            color: Theme.c.text
            font.pixelSize: Theme.fontBody
            Accessible.name: qsTr("API key")
            onEditingFinished: section.st.apiServerKey = text
        }
    }
    RowLayout {
        Layout.fillWidth: true
        spacing: 8
        Label {
            objectName: "apiServerStatus"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            color: section.controller.apiServerError.length > 0 ? Theme.c.error : Theme.c.textMuted
            font.pixelSize: Theme.fontSmall
            text: section.controller.apiServerRunning
                  ? (section.controller.apiActiveRequests === 1
                     ? qsTr("Running at %1 · 1 active request").arg(section.controller.apiServerUrl)
                     : qsTr("Running at %1 · %2 active requests").arg(section.controller.apiServerUrl)
                           .arg(section.controller.apiActiveRequests))
                  : section.controller.apiServerError.length > 0
                    ? qsTr("Not running: %1").arg(section.controller.apiServerError)
                    : section.st && section.st.apiServerEnabled
                      ? qsTr("Starts when a model is loaded.")
                      : qsTr("Off")
        }
        Button {
            objectName: "copyApiUrlButton"
            enabled: section.controller.apiServerRunning
            text: qsTr("Copy base URL")
            Accessible.name: qsTr("Copy the API server's base URL")
            onClicked: section.controller.copyText(section.controller.apiServerUrl)
        }
    }
}
