import QtQuick
import QtQuick.Controls
import Hearth
import Hearth.App

// Speed of the last reply (live while one streams), time to first token, speculative
// decoding's acceptance rate, and how full the context is. A Flow: on a narrow window the
// pieces wrap onto a second line instead of pushing the chat column past the window's edge.
Flow {
    id: root

    required property ChatController controller
    readonly property var s: controller.stats
    readonly property bool has: s.contextSize !== undefined && s.contextSize > 0

    spacing: 14
    Accessible.role: Accessible.StatusBar
    Accessible.name: statusText.text

    Label {
        id: statusText
        objectName: "statusText"
        text: root.has
              ? qsTr("%1 tok/s · prompt %2 tok/s · first token %3 ms")
                    .arg(root.s.tokensPerSecond.toFixed(1))
                    .arg(root.s.promptTokensPerSecond.toFixed(0))
                    .arg(root.s.ttftMs.toFixed(0))
              : (root.controller.modelState === "ready" ? qsTr("Ready") : "")
        color: Theme.c.textMuted
        font.pixelSize: Theme.fontSmall
    }
    Label {
        objectName: "effectiveText"
        visible: root.has && root.s.kvType !== undefined && root.s.kvType.length > 0
        text: qsTr("%1 · KV %2").arg(root.s.backend || "").arg(root.s.kvType || "")
        color: Theme.c.textMuted
        font.pixelSize: Theme.fontSmall
    }
    Label {
        objectName: "speculativeText"
        visible: root.has && ((root.s.drafter || "").length > 0 || (root.s.speculativeNote || "").length > 0)
        text: (root.s.drafter || "").length > 0
              ? qsTr("%1: %2% of drafts accepted").arg(root.s.drafter === "lookup" ? qsTr("lookup") : qsTr("draft model"))
                    .arg(Math.round(100 * (root.s.acceptance || 0)))
              : qsTr("speculative decoding off: %1").arg(root.s.speculativeNote || "")
        color: Theme.c.textMuted
        font.pixelSize: Theme.fontSmall
        elide: Text.ElideRight
        width: Math.min(implicitWidth, 320)
    }
    Label {
        visible: root.has && root.s.memoryText.length > 0
        text: qsTr("memory %1").arg(root.s.memoryText || "")
        color: Theme.c.textMuted
        font.pixelSize: Theme.fontSmall
    }
    Label {
        objectName: "apiServerStatusText"
        visible: root.controller.apiServerRunning
        text: root.controller.apiActiveRequests === 1 ? qsTr("API server: 1 active request")
                                                      : qsTr("API server: %1 active requests")
                                                            .arg(root.controller.apiActiveRequests)
        color: Theme.c.textMuted
        font.pixelSize: Theme.fontSmall
    }
    Label {
        objectName: "contextText"
        visible: root.has
        text: qsTr("context %1 / %2").arg(root.s.contextUsed).arg(root.s.contextSize)
        color: Theme.c.textMuted
        font.pixelSize: Theme.fontSmall
    }
    ProgressBar {
        objectName: "contextMeter"
        visible: root.has
        width: 120
        from: 0
        to: root.has ? root.s.contextSize : 1
        value: root.has ? root.s.contextUsed : 0
        Accessible.name: qsTr("Context used")
    }
}
