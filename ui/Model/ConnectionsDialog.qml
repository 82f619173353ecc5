import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth
import Hearth.App

// Servers: remote endpoints of the OpenAI API (vLLM, LMDeploy, llama.cpp's server, another
// Hearth). Add, edit and remove one; "Test connection" lists the models it serves, which then
// appear in the model library marked with their host. A self-signed certificate is accepted
// only when the person trusts it here, for this endpoint.
ThemedDialog {
    id: dialog

    required property ChatController controller
    readonly property RemoteConnections connections: controller ? controller.connections : null
    property string editingId: ""   // "" while adding a new one
    property string message: ""
    property bool messageIsError: false

    function entry(id) {
        const all = connections ? connections.list : []
        for (let i = 0; i < all.length; ++i)
            if (all[i].id === id) return all[i]
        return null
    }
    function startEdit(id) {
        const e = entry(id)
        editingId = e ? id : ""
        nameField.text = e ? e.name : ""
        urlField.text = e ? e.baseUrl : ""
        keyField.text = ""
        timeoutField.value = e ? e.timeoutSeconds : 120
        message = ""
    }
    function save() {
        if (editingId.length === 0) {
            const id = connections.add(nameField.text, urlField.text, keyField.text, timeoutField.value)
            if (id.length === 0) {
                message = connections.lastError()
                messageIsError = true
                return
            }
            editingId = id
        } else if (!connections.edit(editingId, nameField.text, urlField.text, keyField.text,
                                     keyField.text.length > 0 || clearKey.checked, timeoutField.value)) {
            message = connections.lastError()
            messageIsError = true
            return
        }
        keyField.text = ""
        clearKey.checked = false
        message = qsTr("Saved. Testing…")
        messageIsError = false
    }

    objectName: "connectionsDialog"
    title: qsTr("Servers")
    width: Math.min(parent ? parent.width - 48 : 720, 720)
    height: Math.min(parent ? parent.height - 80 : 600, 600)
    onAboutToShow: startEdit(editingId)

    Connections {
        target: dialog.connections
        function onTested(id, ok, text) {
            if (id !== dialog.editingId) return
            dialog.message = ok ? qsTr("Connected: %1.").arg(text) : text
            dialog.messageIsError = !ok
        }
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 8

        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: qsTr("Chat with models served by vLLM, LMDeploy, llama.cpp's server or another Hearth through their OpenAI API. Chats stay on this computer; each message is sent to the server.")
            color: Theme.c.textMuted
            font.pixelSize: Theme.fontSmall
        }
        Label {
            objectName: "keyWarning"
            visible: text.length > 0
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: dialog.connections ? dialog.connections.keyWarning : ""
            color: Theme.c.error
            font.pixelSize: Theme.fontSmall
        }
        ListView {
            id: list
            objectName: "connectionList"
            Layout.fillWidth: true
            Layout.preferredHeight: Math.min(contentHeight, 200)
            clip: true
            spacing: 4
            model: dialog.connections ? dialog.connections.list : []
            delegate: Rectangle {
                required property var modelData
                width: ListView.view.width
                implicitHeight: row.implicitHeight + 12
                radius: 6
                color: modelData.id === dialog.editingId ? Theme.c.dropActive : "transparent"
                border.color: Theme.c.border
                Accessible.role: Accessible.ListItem
                Accessible.name: qsTr("%1 at %2: %3").arg(modelData.name).arg(modelData.baseUrl)
                                 .arg(modelData.state === "ok" ? qsTr("%n model(s)", "", modelData.models.length)
                                                               : modelData.error)
                RowLayout {
                    id: row
                    anchors.fill: parent
                    anchors.margins: 6
                    spacing: 8
                    ColumnLayout {
                        Layout.fillWidth: true
                        spacing: 2
                        Label {
                            Layout.fillWidth: true
                            text: modelData.name + "  ·  " + modelData.baseUrl
                            elide: Text.ElideRight
                            color: Theme.c.text
                            font.pixelSize: Theme.fontBody
                            font.bold: true
                        }
                        Label {
                            Layout.fillWidth: true
                            wrapMode: Text.Wrap
                            maximumLineCount: 3
                            elide: Text.ElideRight
                            text: modelData.state === "testing" ? qsTr("Testing…")
                                  : modelData.state === "ok" ? qsTr("Serves: %1").arg(modelData.models.join(", "))
                                  : modelData.state === "error" ? modelData.error
                                  : qsTr("Not tested yet")
                            color: modelData.state === "error" ? Theme.c.error : Theme.c.textMuted
                            font.pixelSize: Theme.fontSmall
                        }
                        Label {
                            visible: modelData.trustedCert.length > 0
                            Layout.fillWidth: true
                            elide: Text.ElideMiddle
                            text: qsTr("Trusted certificate: %1").arg(modelData.trustedCert)
                            color: Theme.c.textMuted
                            font.pixelSize: Theme.fontSmall
                        }
                    }
                    Button {
                        text: qsTr("Edit")
                        Accessible.name: qsTr("Edit %1").arg(modelData.name)
                        onClicked: dialog.startEdit(modelData.id)
                    }
                    Button {
                        text: qsTr("Test connection")
                        Accessible.name: qsTr("Test the connection to %1").arg(modelData.name)
                        onClicked: {
                            dialog.editingId = modelData.id
                            dialog.connections.test(modelData.id)
                        }
                    }
                    Button {
                        text: qsTr("Remove")
                        Accessible.name: qsTr("Remove %1").arg(modelData.name)
                        onClicked: {
                            if (dialog.editingId === modelData.id) dialog.startEdit("")
                            dialog.connections.remove(modelData.id)
                        }
                    }
                }
            }
        }

        Label {
            text: dialog.editingId.length === 0 ? qsTr("Add a server") : qsTr("Edit the server")
            color: Theme.c.text
            font.pixelSize: Theme.fontBody
            font.bold: true
        }
        GridLayout {
            Layout.fillWidth: true
            columns: 2
            columnSpacing: 8
            rowSpacing: 6
            Label { text: qsTr("Name"); color: Theme.c.text; font.pixelSize: Theme.fontBody }
            TextField {
                id: nameField
                objectName: "connectionName"
                Layout.fillWidth: true
                placeholderText: qsTr("e.g. Lab GPU server (the host if empty)")
                font.pixelSize: Theme.fontBody
                Accessible.name: qsTr("Server name")
            }
            Label { text: qsTr("Base URL"); color: Theme.c.text; font.pixelSize: Theme.fontBody }
            TextField {
                id: urlField
                objectName: "connectionUrl"
                Layout.fillWidth: true
                placeholderText: "http://192.168.1.20:8000/v1"
                font.pixelSize: Theme.fontBody
                Accessible.name: qsTr("Base URL of the server's OpenAI API")
            }
            Label { text: qsTr("API key"); color: Theme.c.text; font.pixelSize: Theme.fontBody }
            RowLayout {
                Layout.fillWidth: true
                TextField {
                    id: keyField
                    objectName: "connectionKey"
                    Layout.fillWidth: true
                    // Shown as typed: Qt 6.4 gives a password field no accessible name.
                    echoMode: TextInput.Normal
                    placeholderText: {
                        const e = dialog.entry(dialog.editingId)
                        return e && e.hasKey ? qsTr("Unchanged (type to replace)") : qsTr("None")
                    }
                    font.pixelSize: Theme.fontBody
                    Accessible.name: qsTr("API key")
                }
                CheckBox {
                    id: clearKey
                    visible: {
                        const e = dialog.entry(dialog.editingId)
                        return e !== null && e.hasKey
                    }
                    text: qsTr("Remove key")
                    Accessible.name: qsTr("Remove the stored API key")
                }
            }
            Label { text: qsTr("Timeout (s)"); color: Theme.c.text; font.pixelSize: Theme.fontBody }
            SpinBox {
                id: timeoutField
                from: 1; to: 3600; value: 120; editable: true
                Accessible.name: qsTr("Seconds to wait for the server before giving up")
            }
        }
        Label {
            objectName: "connectionMessage"
            visible: text.length > 0
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: dialog.message
            color: dialog.messageIsError ? Theme.c.error : Theme.c.textMuted
            font.pixelSize: Theme.fontSmall
        }
        RowLayout {
            Layout.fillWidth: true
            Button {
                objectName: "trustCertificateButton"
                visible: {
                    const e = dialog.entry(dialog.editingId)
                    return e !== null && e.seenCert.length > 0
                }
                text: qsTr("Trust this certificate")
                Accessible.name: qsTr("Trust this server's certificate for this connection only")
                onClicked: dialog.connections.trustSeenCertificate(dialog.editingId, true)
            }
            Item { Layout.fillWidth: true }
            Button {
                visible: dialog.editingId.length > 0
                text: qsTr("New")
                Accessible.name: qsTr("Add another server")
                onClicked: dialog.startEdit("")
            }
            Button {
                objectName: "saveConnectionButton"
                text: dialog.editingId.length === 0 ? qsTr("Add and test") : qsTr("Save and test")
                enabled: urlField.text.trim().length > 0
                onClicked: dialog.save()
            }
            Button {
                text: qsTr("Close")
                onClicked: dialog.close()
            }
        }
    }
}
