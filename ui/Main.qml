import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth
import Hearth.App

ApplicationWindow {
    id: window

    // Set by main() from the command line.
    property string initialTheme: ""
    property url initialModel

    width: 1100
    height: 760
    minimumWidth: 560
    minimumHeight: 480
    visible: true
    title: picker.hasModel ? qsTr("%1 — Hearth").arg(picker.fileName) : qsTr("Hearth")
    color: Theme.c.window

    Component.onCompleted: {
        if (initialTheme.length > 0)
            Theme.mode = initialTheme
        if (initialModel.toString().length > 0)
            picker.offer(initialModel)
    }

    ModelPicker {
        id: picker
    }

    header: ToolBar {
        background: Rectangle {
            color: Theme.c.surface
            Rectangle {
                anchors.bottom: parent.bottom
                width: parent.width
                height: 1
                color: Theme.c.border
            }
        }
        RowLayout {
            anchors.fill: parent
            anchors.leftMargin: 14
            anchors.rightMargin: 8
            Label {
                text: qsTr("Hearth")
                color: Theme.c.text
                font.pixelSize: Theme.fontBody
                font.bold: true
            }
            Item { Layout.fillWidth: true }
            HeaderButton {
                objectName: "themeButton"
                text: Theme.dark ? "☀" : "☾"
                tip: Theme.dark ? qsTr("Switch to light theme") : qsTr("Switch to dark theme")
                onClicked: Theme.mode = Theme.dark ? "light" : "dark"
            }
            HeaderButton {
                objectName: "aboutButton"
                text: qsTr("About")
                tip: qsTr("About Hearth")
                onClicked: aboutDialog.open()
            }
        }
    }

    EmptyState {
        id: emptyState
        anchors.fill: parent
        picker: picker
        dragActive: windowDrop.containsDrag
    }

    // The whole window accepts a drop, not only the drop zone.
    DropArea {
        id: windowDrop
        anchors.fill: parent
        onDropped: drop => {
            if (drop.hasUrls) {
                emptyState.offerUrls(drop.urls)
                drop.acceptProposedAction()
            }
        }
    }

    AboutDialog {
        id: aboutDialog
    }
}
