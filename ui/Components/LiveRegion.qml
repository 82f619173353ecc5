import QtQuick
import Hearth

// A screen-reader announcement (Qt 6.4 has no aria-live): an alert whose name is the text,
// shown again for each announcement, so assistive technology reads it (NameChanged and
// ObjectShow events) without moving the focus. Invisible to sighted users.
Item {
    id: region

    property string text
    signal announced(string message)

    function announce(message) {
        if (message.length === 0)
            return
        region.visible = false
        region.text = message
        region.visible = true
        region.announced(message)
    }

    width: 1
    height: 1
    opacity: 0.01
    Accessible.role: Accessible.AlertMessage
    Accessible.name: region.text
}
