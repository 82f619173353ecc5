// The keyboard model of the main window (issue 24, item 10): Tab reaches every control,
// message actions included, each with a visible focus ring and never trapped in a text field;
// the chat list takes arrows, Enter, F2 and Delete (with undo); context menus on chats and
// messages; Ctrl+Enter saves an edit; F1 and Ctrl+/ open the shortcuts sheet.
#include <QColor>
#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QQmlExtensionPlugin>
#include <QQuickItem>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

#include "../chat/controller_fixture.h"
#include "app_info.h"
#include "chat_list_model.h"
#include "demo_chat.h"
#include "main_window.h"

Q_IMPORT_QML_PLUGIN(HearthPlugin)

using hearth::app::ChatController;
using namespace hearth::test;

namespace {

// Whether the item shows that it has the keyboard focus: a ring (the background's border) on
// our buttons and rows, the field's own highlight on text fields.
bool showsFocus(QQuickItem* item) {
    if (inheritsClass(item, "QQuickTextField") || inheritsClass(item, "QQuickTextArea"))
        return true;  // the Basic style's fields draw their focus frame; the composer its border
    if (inheritsClass(item, "QQuickListView")) {
        auto* current = item->property("currentItem").value<QQuickItem*>();
        return current && showsFocus(current);
    }
    auto* background = item->property("background").value<QQuickItem*>();
    if (!background) return false;
    const QVariant border = background->property("border");
    if (!border.isValid()) return false;
    QObject* group = border.value<QObject*>();
    return group && group->property("width").toReal() >= 1.0 &&
           group->property("color").value<QColor>().alpha() > 0;
}

void typeText(QQuickWindow* window, const QString& text) {
    for (const QChar c : text) QTest::keyClick(window, c.toLatin1());
}

}  // namespace

class KeyboardTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QQuickStyle::setStyle(QStringLiteral("Basic"));
        QVERIFY(m_dataDir.isValid());
        m_appInfo = std::make_unique<AppInfo>(m_dataDir.path());
        hearth::app::registerQmlTypes(m_appInfo.get());
    }

    // Tab from the composer goes round every control with a visible ring, and Shift+Tab
    // leaves the composer (Tab in a text field must not type a tab character).
    void tabReachesEveryControlWithAVisibleRing() {
        if (tinyModelPath().isEmpty()) QSKIP("stories260K.gguf not found (HEARTH_SHARED_DIR)");
        auto controller = openController(m_dataDir.filePath(QStringLiteral("tab")));
        QVERIFY(controller);
        QQmlApplicationEngine engine;
        QQuickWindow* window = loadMainWindow(engine, *controller);
        QVERIFY(window);
        window->resize(1200, 800);
        QVERIFY(QTest::qWaitForWindowExposed(window));
        QVERIFY(loadTinyModel(*controller));
        QVERIFY(controller->send(QStringLiteral("Once upon a time")));
        QVERIFY(!waitForReply(*controller).isEmpty());
        auto* input = findNamed(window, QStringLiteral("composerInput"));
        QVERIFY(input);
        QTRY_VERIFY(input->hasActiveFocus());
        typeText(window, QStringLiteral("Hi"));  // so Send is enabled

        QSet<QString> reached;
        QStringList noRing;
        for (int i = 0; i < 80; ++i) {
            QTest::keyClick(window, Qt::Key_Tab);
            QQuickItem* focus = window->activeFocusItem();
            QVERIFY(focus);
            if (focus == input) break;
            // In the chat list the focus sits on the chosen row; the list is the Tab stop.
            for (QQuickItem* p = focus; p; p = p->parentItem())
                if (p->objectName() == QLatin1String("chatList")) focus = p;
            const QString name = focus->objectName().isEmpty() ? focus->property("text").toString()
                                                               : focus->objectName();
            reached.insert(name);
            if (!showsFocus(focus)) noRing << describeItem(focus);
        }
        QCOMPARE(input->property("text").toString(), QStringLiteral("Hi"));  // no tab typed
        QVERIFY2(noRing.isEmpty(), qPrintable(QStringLiteral("no visible focus: ") +
                                              noRing.join(QStringLiteral("; "))));
        const QStringList expected{
            QStringLiteral("sendButton"),     QStringLiteral("newChatButton"),
            QStringLiteral("searchField"),    QStringLiteral("chatList"),
            QStringLiteral("loadButton"),     QStringLiteral("themeButton"),
            QStringLiteral("settingsButton"), QStringLiteral("shortcutsButton"),
            QStringLiteral("aboutButton"),    QStringLiteral("chatSettingsButton"),
            QStringLiteral("exportButton"),   QStringLiteral("Copy"),
            QStringLiteral("Regenerate"),     QStringLiteral("Edit")};
        QStringList missing;
        for (const QString& e : expected)
            if (!reached.contains(e)) missing << e;
        QVERIFY2(missing.isEmpty(), qPrintable(QStringLiteral("not reached by Tab: ") +
                                               missing.join(u',') + QStringLiteral(" (reached: ") +
                                               QStringList(reached.values()).join(u',') + u')'));

        // Shift+Tab leaves the composer too.
        QVERIFY(input->hasActiveFocus());
        QTest::keyClick(window, Qt::Key_Backtab, Qt::ShiftModifier);
        QVERIFY(!input->hasActiveFocus());
        QCOMPARE(input->property("text").toString(), QStringLiteral("Hi"));
    }

    // Ctrl+B to the list; arrows move; Enter opens; F2 renames; Delete deletes with undo; the
    // Menu key and a right click open the chat's context menu.
    void chatListByKeyboard() {
        const QString dir = m_dataDir.filePath(QStringLiteral("list"));
        QString error;
        QList<qint64> ids;
        for (int i = 0; i < 3; ++i) {
            const qint64 id = hearth::app::seedDemoChat(dir, &error);
            QVERIFY2(id > 0, qPrintable(error));
            ids << id;
        }
        ChatController controller;
        controller.setDataDir(dir);
        QQmlApplicationEngine engine;
        QQuickWindow* window = loadMainWindow(engine, controller);
        QVERIFY(window);
        window->resize(1200, 800);
        QVERIFY(QTest::qWaitForWindowExposed(window));
        QTRY_VERIFY(controller.ready());
        auto* chats = controller.chats();
        QTRY_COMPARE(chats->rowCount(), 3);
        auto* list = findNamed(window, QStringLiteral("chatList"));
        QVERIFY(list);

        QTest::keyClick(window, Qt::Key_B, Qt::ControlModifier);
        QTRY_VERIFY(list->hasActiveFocus());
        QVERIFY(showsFocus(list));
        QCOMPARE(list->property("currentIndex").toInt(), 0);
        QTest::keyClick(window, Qt::Key_Down);
        QCOMPARE(list->property("currentIndex").toInt(), 1);
        QTest::keyClick(window, Qt::Key_Up);
        QTest::keyClick(window, Qt::Key_Down);
        auto* row = list->property("currentItem").value<QQuickItem*>();
        QVERIFY(row);
        const qint64 chosen = row->property("chatId").toLongLong();
        QTest::keyClick(window, Qt::Key_Return);
        QTRY_COMPARE(controller.currentChatId(), chosen);

        // F2: rename in place; Enter saves and gives the list its focus back.
        QTest::keyClick(window, Qt::Key_B, Qt::ControlModifier);
        QTRY_VERIFY(list->hasActiveFocus());
        QTest::keyClick(window, Qt::Key_F2);
        QTRY_VERIFY(window->activeFocusItem() &&
                    window->activeFocusItem()->objectName() == QLatin1String("renameField"));
        QTest::keyClick(window, Qt::Key_A, Qt::ControlModifier);
        typeText(window, QStringLiteral("Renamed"));
        QTest::keyClick(window, Qt::Key_Return);
        QTRY_COMPARE(controller.currentChatTitle(), QStringLiteral("Renamed"));
        QTRY_VERIFY(list->hasActiveFocus());
        // The list is rebuilt (the renamed chat moves up); the chosen row stays on it.
        const auto chosenRow = [&]() -> QQuickItem* {
            return list->property("currentItem").value<QQuickItem*>();
        };
        QTRY_VERIFY(chosenRow() &&
                    chosenRow()->property("title").toString() == QLatin1String("Renamed"));

        // The Menu key opens the chosen chat's context menu; Escape closes it.
        QTest::keyClick(window, Qt::Key_Menu);
        QObject* menu = nullptr;
        QTRY_VERIFY((menu = [&]() -> QObject* {
                        QObject* open = nullptr;
                        forEachItem(window->contentItem(), [&](QQuickItem* item) {
                            QObject* m = item->findChild<QObject*>(
                                QStringLiteral("chatContextMenu"), Qt::FindDirectChildrenOnly);
                            if (m && m->property("opened").toBool()) open = m;
                        });
                        return open;
                    }()) != nullptr);
        QTest::keyClick(window, Qt::Key_Escape);
        QTRY_VERIFY(!menu->property("visible").toBool());

        // A right click on a row opens it too.
        QTRY_VERIFY(list->hasActiveFocus());
        row = chosenRow();
        QVERIFY(row);
        const QPointF centre = row->mapToScene(QPointF(row->width() / 2, row->height() / 2));
        QObject* rowMenu =
            row->findChild<QObject*>(QStringLiteral("chatContextMenu"), Qt::FindDirectChildrenOnly);
        QVERIFY(rowMenu);
        QTest::mouseClick(window, Qt::RightButton, {}, centre.toPoint());
        QTRY_VERIFY(rowMenu->property("opened").toBool());
        QTest::keyClick(window, Qt::Key_Escape);
        QTRY_VERIFY(!rowMenu->property("visible").toBool());

        // Delete removes the chosen chat; Undo brings it back.
        QTest::keyClick(window, Qt::Key_B, Qt::ControlModifier);
        QTRY_VERIFY(list->hasActiveFocus());
        QTRY_VERIFY(chosenRow());
        QTest::keyClick(window, Qt::Key_Delete);
        QTRY_COMPARE(chats->rowCount(), 2);
        QTRY_VERIFY(!controller.undoTitle().isEmpty());
        controller.undoDelete();
        QTRY_COMPARE(chats->rowCount(), 3);
    }

    // In a narrow window the chat list is a drawer: Ctrl+F and Ctrl+B open it with the focus
    // in the search field or the list; opening a chat closes it.
    void narrowWindowDrawerByKeyboard() {
        const QString dir = m_dataDir.filePath(QStringLiteral("drawer"));
        QString error;
        for (int i = 0; i < 2; ++i)
            QVERIFY2(hearth::app::seedDemoChat(dir, &error) > 0, qPrintable(error));
        ChatController controller;
        controller.setDataDir(dir);
        QQmlApplicationEngine engine;
        QQuickWindow* window = loadMainWindow(engine, controller);
        QVERIFY(window);
        window->resize(640, 800);
        QVERIFY(QTest::qWaitForWindowExposed(window));
        QTRY_VERIFY(controller.ready());
        QTRY_COMPARE(controller.chats()->rowCount(), 2);
        QObject* drawer = findObject(window, QStringLiteral("sidebarDrawer"));
        QVERIFY(drawer);
        QVERIFY(!drawer->property("visible").toBool());

        QTest::keyClick(window, Qt::Key_F, Qt::ControlModifier);
        QTRY_VERIFY(drawer->property("opened").toBool());
        auto* search = findNamed(window, QStringLiteral("searchField"));
        QTRY_VERIFY(search->hasActiveFocus());
        typeText(window, QStringLiteral("zz"));
        QTest::keyClick(window, Qt::Key_Escape);  // clears the search field first
        QCOMPARE(search->property("text").toString(), QString());
        QVERIFY(drawer->property("opened").toBool());
        QTest::keyClick(window, Qt::Key_Escape);
        QTRY_VERIFY(!drawer->property("visible").toBool());

        QTest::keyClick(window, Qt::Key_B, Qt::ControlModifier);
        QTRY_VERIFY(drawer->property("opened").toBool());
        auto* list = findNamed(window, QStringLiteral("chatList"));
        QTRY_VERIFY(list->hasActiveFocus());
        QTRY_VERIFY(list->property("currentItem").value<QQuickItem*>());
        const qint64 chosen =
            list->property("currentItem").value<QQuickItem*>()->property("chatId").toLongLong();
        QTest::keyClick(window, Qt::Key_Return);
        QTRY_COMPARE(controller.currentChatId(), chosen);
        QTRY_VERIFY(!drawer->property("visible").toBool());
    }

    // A right click on a message opens its actions; Ctrl+Enter saves an edit (a new version
    // and a new reply).
    void messageMenuAndCtrlEnterSavesAnEdit() {
        if (tinyModelPath().isEmpty()) QSKIP("stories260K.gguf not found (HEARTH_SHARED_DIR)");
        auto controller = openController(m_dataDir.filePath(QStringLiteral("edit")));
        QVERIFY(controller);
        QQmlApplicationEngine engine;
        QQuickWindow* window = loadMainWindow(engine, *controller);
        QVERIFY(window);
        window->resize(1200, 800);
        QVERIFY(QTest::qWaitForWindowExposed(window));
        QVERIFY(loadTinyModel(*controller));
        QVERIFY(controller->send(QStringLiteral("Once upon a time")));
        QVERIFY(!waitForReply(*controller).isEmpty());

        auto* chatView = findNamed(window, QStringLiteral("chatView"));
        QVERIFY(chatView);
        QQuickItem* userMessage = nullptr;
        QTRY_VERIFY((userMessage = [&]() -> QQuickItem* {
                        QQuickItem* found = nullptr;
                        forEachItem(chatView, [&](QQuickItem* item) {
                            if (!found &&
                                item->property("role").toString() == QLatin1String("user") &&
                                item->property("messageId").isValid())
                                found = item;
                        });
                        return found;
                    }()) != nullptr);
        QQuickItem* bubble = nullptr;
        forEachItem(userMessage, [&](QQuickItem* item) {
            if (!bubble && item->objectName() == QLatin1String("messageBubble")) bubble = item;
        });
        QVERIFY(bubble);
        QObject* menu = userMessage->findChild<QObject*>(QStringLiteral("messageContextMenu"),
                                                         Qt::FindDirectChildrenOnly);
        QVERIFY(menu);
        const QPointF at = bubble->mapToScene(QPointF(bubble->width() / 2, bubble->height() / 2));
        QTest::mouseClick(window, Qt::RightButton, {}, at.toPoint());
        QTRY_VERIFY(menu->property("opened").toBool());
        QTest::keyClick(window, Qt::Key_Escape);
        QTRY_VERIFY(!menu->property("visible").toBool());

        QVERIFY(QMetaObject::invokeMethod(userMessage, "startEdit"));
        QTRY_VERIFY(window->activeFocusItem() &&
                    window->activeFocusItem()->objectName() == QLatin1String("editArea"));
        QTest::keyClick(window, Qt::Key_A, Qt::ControlModifier);
        typeText(window, QStringLiteral("Once there was a cat"));
        QTest::keyClick(window, Qt::Key_Return);  // a new line, not saved
        QVERIFY(!controller->generating());
        QCOMPARE(window->activeFocusItem()->objectName(), QStringLiteral("editArea"));
        QSignalSpy replied(controller.get(), &ChatController::replyFinished);
        QTest::keyClick(window, Qt::Key_Return, Qt::ControlModifier);
        QVERIFY(replied.wait(60000) || !replied.isEmpty());
        QTRY_VERIFY(
            controller->messages()
                ->data(controller->messages()->index(0), hearth::app::MessageModel::ContentRole)
                .toString()
                .startsWith(QStringLiteral("Once there was a cat")));
        QTRY_COMPARE(controller->messages()
                         ->data(controller->messages()->index(0),
                                hearth::app::MessageModel::SiblingCountRole)
                         .toInt(),
                     2);
    }

    // F1 and Ctrl+/ open the list of shortcuts; Escape closes it.
    void shortcutsSheet() {
        ChatController controller;
        controller.setDataDir(m_dataDir.filePath(QStringLiteral("sheet")));
        QQmlApplicationEngine engine;
        QQuickWindow* window = loadMainWindow(engine, controller);
        QVERIFY(window);
        QVERIFY(QTest::qWaitForWindowExposed(window));
        QTRY_VERIFY(controller.ready());
        QObject* sheet = findObject(window, QStringLiteral("shortcutsDialog"));
        QVERIFY(sheet);
        QTest::keyClick(window, Qt::Key_F1);
        QTRY_VERIFY(sheet->property("opened").toBool());
        QVERIFY(sheet->property("shortcuts").toList().size() >= 10);
        QTest::keyClick(window, Qt::Key_Escape);
        QTRY_VERIFY(!sheet->property("visible").toBool());
        QTest::keyClick(window, Qt::Key_Slash, Qt::ControlModifier);
        QTRY_VERIFY(sheet->property("opened").toBool());
    }

private:
    QTemporaryDir m_dataDir;
    std::unique_ptr<AppInfo> m_appInfo;
};

int main(int argc, char** argv) {
    QGuiApplication app(argc, argv);
    KeyboardTest test;
    return QTest::qExec(&test, argc, argv);
}
#include "keyboard_test.moc"
