import QtQuick
import QtQuick.Controls
import Hearth
import Hearth.App

// The messages of the selected branch. Follows a streaming reply until the person scrolls
// up; scrolling back to the bottom follows again.
ListView {
    id: view

    required property ChatController controller
    property bool follow: true

    clip: true
    spacing: 14
    topMargin: 16
    bottomMargin: 16
    model: controller.messages
    boundsBehavior: Flickable.StopAtBounds
    Accessible.role: Accessible.List
    Accessible.name: qsTr("Messages")
    ScrollBar.vertical: ScrollBar {
        Accessible.name: qsTr("Scroll the messages")
    }

    delegate: MessageDelegate {
        width: ListView.view.width
        controller: view.controller
    }

    onMovementEnded: follow = atYEnd
    onFlickStarted: follow = false
    onContentHeightChanged: if (follow) Qt.callLater(positionViewAtEnd)
    onCountChanged: {
        if (controller.highlightedMessageId !== 0) return  // a search result is shown
        follow = true
        Qt.callLater(positionViewAtEnd)
    }

    // A search result: the matching message is scrolled into the middle of the view.
    function showHighlighted() {
        const row = controller.messages.indexOfMessage(controller.highlightedMessageId)
        if (row < 0) return
        follow = false
        positionViewAtIndex(row, ListView.Center)
    }
    Connections {
        target: view.controller
        function onHighlightChanged() { Qt.callLater(view.showHighlighted) }
    }

    Label {
        anchors.centerIn: parent
        width: Math.min(parent.width - 64, 480)
        visible: view.count === 0
        horizontalAlignment: Text.AlignHCenter
        wrapMode: Text.Wrap
        text: view.controller.modelState === "ready"
              ? qsTr("Ask %1 anything. Your chat stays on this computer.").arg(view.controller.modelInfo.name)
              : qsTr("Load a model to start chatting.")
        color: Theme.c.textMuted
        font.pixelSize: Theme.fontLarge
    }
}
