// The main window as a screen reader sees it, through Qt's QAccessible interface: every
// interactive element (buttons, fields, list rows, menu items, sliders…) has a name, in the
// main views and in the menus, drawer and dialogs; messages read "You: …" / "Assistant: …";
// a streaming reply and a banner are alerts in the tree (issue 24).
//
// The offscreen platform has no accessibility bridge, so QAccessible::isActive() stays false
// and Qt delivers no accessibility events here: the test switches the controls' accessibility
// on itself (QAccessible::setActive notifies them) and checks the alerts' names and the
// sequence the live region was given, not the events a bridge would send.
#include <QAccessible>
#include <QFile>
#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QQmlExtensionPlugin>
#include <QQuickItem>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

#include "../chat/controller_fixture.h"
#include "app_info.h"
#include "main_window.h"

Q_IMPORT_QML_PLUGIN(HearthPlugin)

using hearth::app::ChatController;
using namespace hearth::test;

namespace {

// What a person operates. Containers (lists, dialogs, panes) are left out, and so are the
// scroll bars that Qt's ScrollView makes itself (scrolling is the content's own; the chat's
// message list names its scroll bar anyway).
bool isInteractiveRole(QAccessible::Role role) {
    switch (role) {
        case QAccessible::Button:
        case QAccessible::CheckBox:
        case QAccessible::RadioButton:
        case QAccessible::ComboBox:
        case QAccessible::EditableText:
        case QAccessible::Slider:
        case QAccessible::SpinBox:
        case QAccessible::MenuItem:
        case QAccessible::PageTab:
        case QAccessible::Link:
        case QAccessible::ListItem:
        case QAccessible::ButtonMenu:
        case QAccessible::ButtonDropDown:
        case QAccessible::ProgressBar:
        case QAccessible::Dial:
            return true;
        default:
            return false;
    }
}

QString describe(QAccessibleInterface* iface) {
    QString d = QStringLiteral("role 0x%1").arg(int(iface->role()), 0, 16);
    if (QObject* o = iface->object()) {
        d += QStringLiteral(" ") + QString::fromLatin1(o->metaObject()->className());
        if (!o->objectName().isEmpty()) d += QStringLiteral(" '") + o->objectName() + u'\'';
        const QVariant text = o->property("text");
        if (text.isValid() && !text.toString().isEmpty())
            d += QStringLiteral(" text \"") + text.toString().left(30) + u'"';
    }
    for (QAccessibleInterface* p = iface->parent(); p; p = p->parent()) {
        const QString n = p->text(QAccessible::Name);
        if (!n.isEmpty()) {
            d += QStringLiteral(" in \"") + n.left(30) + u'"';
            break;
        }
    }
    return d;
}

// Walks the tree below iface (visible parts only); collects unnamed interactive elements and
// the names of list items.
void walk(QAccessibleInterface* iface, QStringList& unnamed, QStringList& listItems,
          QStringList& alerts, int depth = 0) {
    if (!iface || !iface->isValid() || depth > 200) return;
    if (iface->state().invisible) return;
    const QString name = iface->text(QAccessible::Name).trimmed();
    if (isInteractiveRole(iface->role()) && name.isEmpty()) unnamed << describe(iface);
    if (iface->role() == QAccessible::ListItem) listItems << name;
    if (iface->role() == QAccessible::AlertMessage) alerts << name;
    for (int i = 0; i < iface->childCount(); ++i)
        walk(iface->child(i), unnamed, listItems, alerts, depth + 1);
}

}  // namespace

class AccessibilityTest : public QObject {
    Q_OBJECT

private:
    QStringList m_listItems;
    QStringList m_alerts;  // names of the visible alerts at the last walk
    QStringList m_said;    // what the live region was given, in order
    // Fails on any unnamed interactive element now visible in the window.
    void expectAllNamed(QQuickWindow* window, const QString& where) {
        QTest::qWait(30);
        // As when a screen reader starts: controls made since the last call fill in roles.
        QAccessible::setActive(true);
        QAccessibleInterface* root = QAccessible::queryAccessibleInterface(window);
        QVERIFY(root);
        QVERIFY2(root->childCount() > 0, "the accessibility tree is empty");
        QStringList unnamed;
        m_listItems.clear();
        m_alerts.clear();
        walk(root, unnamed, m_listItems, m_alerts);
        QVERIFY2(unnamed.isEmpty(), qPrintable(where + QStringLiteral(": no name: ") +
                                               unnamed.join(QStringLiteral("; "))));
    }

public slots:
    void recordLive(const QString& message) { m_said << message; }

private slots:
    void initTestCase() {
        QQuickStyle::setStyle(QStringLiteral("Basic"));
        QVERIFY(m_dataDir.isValid());
        m_appInfo = std::make_unique<AppInfo>(m_dataDir.path());
        hearth::app::registerQmlTypes(m_appInfo.get());
    }

    void welcomeViewIsNamed() {
        ChatController controller;
        controller.setDataDir(m_dataDir.filePath(QStringLiteral("welcome")));
        QQmlApplicationEngine engine;
        QQuickWindow* window = loadMainWindow(engine, controller);
        QVERIFY(window);
        QVERIFY(QTest::qWaitForWindowExposed(window));
        QTRY_VERIFY(controller.ready());
        expectAllNamed(window, QStringLiteral("welcome"));
    }

    void chatViewMenusAndDialogsAreNamedAndRepliesAnnounced() {
        const QString model = tinyModelPath();
        if (model.isEmpty()) QSKIP("stories260K.gguf not found (HEARTH_SHARED_DIR)");
        auto controller = openController(m_dataDir.filePath(QStringLiteral("chat")));
        QVERIFY(controller);
        QQmlApplicationEngine engine;
        QQuickWindow* window = loadMainWindow(engine, *controller);
        QVERIFY(window);
        QVERIFY(QTest::qWaitForWindowExposed(window));
        QVERIFY(loadTinyModel(*controller));
        QObject* live = findObject(window, QStringLiteral("liveRegion"));
        QVERIFY(live);
        connect(live, SIGNAL(announced(QString)), this, SLOT(recordLive(QString)));
        m_said.clear();
        // A longer reply, announced sentence by sentence (no pause between announcements
        // here, so the test sees the chunks however fast the tiny model writes).
        live->setProperty("minInterval", 0);
        controller->settings()->insert(QStringLiteral("maxTokens"), 200);
        QVERIFY(controller->send(QStringLiteral("Once upon a time")));
        QVERIFY(!waitForReply(*controller).isEmpty());
        const QString answer = controller->messages()->lastAssistantText();
        QVERIFY(!answer.isEmpty());

        // First that a reply is being written, then the reply in order, each part once, the
        // first introduced by "Assistant: ".
        QVERIFY2(m_said.size() >= 3, qPrintable(m_said.join(u'|')));
        QCOMPARE(m_said.first(), QStringLiteral("Assistant is writing a reply…"));
        QVERIFY2(m_said.at(1).startsWith(QStringLiteral("Assistant: ")), qPrintable(m_said.at(1)));
        QString spoken = m_said.mid(1).join(QString());
        spoken.remove(0, QStringLiteral("Assistant: ").size());
        const auto squeeze = [](QString s) {
            return s.remove(QRegularExpression(QStringLiteral("\\s")));
        };
        QCOMPARE(squeeze(spoken), squeeze(answer));

        window->resize(1100, 800);
        expectAllNamed(window, QStringLiteral("chat"));
        // Messages read as who said what.
        QVERIFY2(m_listItems.contains(QStringLiteral("You: Once upon a time")),
                 qPrintable(m_listItems.join(u'|')));
        QVERIFY2(m_listItems.contains(QStringLiteral("Assistant: ") + answer),
                 qPrintable(m_listItems.join(u'|')));

        QVERIFY(openPopup(window, QStringLiteral("shortcutsDialog")));
        expectAllNamed(window, QStringLiteral("shortcuts"));
        QVERIFY(closePopup(window, QStringLiteral("shortcutsDialog")));
        QVERIFY(openPopup(window, QStringLiteral("aboutDialog")));
        expectAllNamed(window, QStringLiteral("about"));
        QVERIFY(closePopup(window, QStringLiteral("aboutDialog")));
        QVERIFY(openPopup(window, QStringLiteral("replaceModelDialog")));
        expectAllNamed(window, QStringLiteral("replace model"));
        QVERIFY(closePopup(window, QStringLiteral("replaceModelDialog")));
        QVERIFY(openPopup(window, QStringLiteral("settingsPanel")));
        expectAllNamed(window, QStringLiteral("settings"));
        QVERIFY(closePopup(window, QStringLiteral("settingsPanel")));
        QVERIFY(openPopup(window, QStringLiteral("chatContextMenu")));
        expectAllNamed(window, QStringLiteral("chat context menu"));
        QVERIFY(closePopup(window, QStringLiteral("chatContextMenu")));
        QVERIFY(openPopup(window, QStringLiteral("messageContextMenu")));
        expectAllNamed(window, QStringLiteral("message context menu"));
        QVERIFY(closePopup(window, QStringLiteral("messageContextMenu")));

        // Narrow: the drawer and the "More" menu.
        window->resize(640, 800);
        QTRY_COMPARE(window->width(), 640);
        QVERIFY(openPopup(window, QStringLiteral("sidebarDrawer")));
        expectAllNamed(window, QStringLiteral("drawer"));
        QVERIFY(closePopup(window, QStringLiteral("sidebarDrawer")));
        QVERIFY(openPopup(window, QStringLiteral("moreMenu")));
        expectAllNamed(window, QStringLiteral("more menu"));
        QVERIFY(closePopup(window, QStringLiteral("moreMenu")));

        // The last announcement is an alert in the tree.
        QVERIFY2(m_alerts.contains(m_said.last()), qPrintable(m_alerts.join(u'|')));

        // A banner is an alert named with its message: a damaged model's.
        const QString bad = m_dataDir.filePath(QStringLiteral("broken.gguf"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray("GGUF\x03\x00\x00\x00", 8) + QByteArray(64, '\xff'));
        f.close();
        QVERIFY(controller->loadModel(QUrl::fromLocalFile(bad)));
        QTRY_VERIFY_WITH_TIMEOUT(!controller->modelError().isEmpty(), 30000);
        window->resize(1100, 800);
        expectAllNamed(window, QStringLiteral("banner"));
        QVERIFY2(m_alerts.contains(controller->modelError()), qPrintable(m_alerts.join(u'|')));
    }

private:
    QTemporaryDir m_dataDir;
    std::unique_ptr<AppInfo> m_appInfo;
};

int main(int argc, char** argv) {
    QGuiApplication app(argc, argv);
    AccessibilityTest test;
    return QTest::qExec(&test, argc, argv);
}
#include "accessibility_test.moc"
