import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth

// The model the person picked: its file name and size.
Rectangle {
    id: card

    property string fileName
    property string sizeText

    implicitHeight: column.implicitHeight + 24
    radius: 10
    color: Theme.c.surface
    border.color: Theme.c.border

    Accessible.role: Accessible.StaticText
    Accessible.name: qsTr("Selected model %1, %2").arg(fileName).arg(sizeText)

    ColumnLayout {
        id: column
        anchors.fill: parent
        anchors.margins: 12
        spacing: 2

        Label {
            text: qsTr("Selected model")
            color: Theme.c.textMuted
            font.pixelSize: Theme.fontSmall
        }
        Label {
            objectName: "modelFileName"
            Layout.fillWidth: true
            text: card.fileName
            elide: Text.ElideMiddle
            color: Theme.c.text
            font.pixelSize: Theme.fontLarge
            font.bold: true
        }
        Label {
            objectName: "modelFileSize"
            text: card.sizeText
            color: Theme.c.textMuted
            font.pixelSize: Theme.fontBody
        }
    }
}
