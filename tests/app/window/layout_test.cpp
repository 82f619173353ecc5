// The main window from 640 px to 4K, in both themes, in English and Chinese, with normal and
// the largest text: no button, field, progress bar or message bubble lies outside the window
// (or sideways outside the list that scrolls it). Every layout is saved as a PNG under
// <build>/tests/app/window/screenshots/layout for a look (issue 24, item 2).
#include <QDir>
#include <QGuiApplication>
#include <QImage>
#include <QQmlApplicationEngine>
#include <QQmlExtensionPlugin>
#include <QQuickItem>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QTemporaryDir>
#include <QTest>
#include <QTranslator>
#include <memory>

#include "../chat/controller_fixture.h"
#include "app_info.h"
#include "main_window.h"

Q_IMPORT_QML_PLUGIN(HearthPlugin)

using hearth::app::ChatController;
using namespace hearth::test;

namespace {

constexpr int kHeight = 800;

// The interactive items (and message bubbles) that stick out of the window, or sideways out
// of the clipping view that holds them. Items scrolled out of their view are fine.
QStringList itemsOutside(QQuickWindow* window) {
    const qreal w = window->width();
    const qreal h = window->height();
    constexpr qreal slack = 0.5;
    QStringList out;
    forEachItem(window->contentItem(), [&](QQuickItem* item) {
        if (!item->isVisible() || item->width() <= 0 || item->height() <= 0) return;
        if (!isInteractive(item) && item->objectName() != QLatin1String("messageBubble")) return;
        for (QQuickItem* p = item; p; p = p->parentItem())
            if (p->opacity() <= 0.0) return;  // fading out
        const QRectF r = item->mapRectToScene(QRectF(0, 0, item->width(), item->height()));
        QQuickItem* clipper = nullptr;
        for (QQuickItem* p = item->parentItem(); p && !clipper; p = p->parentItem())
            if (p->clip()) clipper = p;
        bool bad = r.left() < -slack || r.right() > w + slack;
        if (clipper) {
            const QRectF c =
                clipper->mapRectToScene(QRectF(0, 0, clipper->width(), clipper->height()));
            if (!c.intersects(r)) return;  // scrolled out of its view
            bad = bad || r.left() < c.left() - slack || r.right() > c.right() + slack;
        } else {
            bad = bad || r.top() < -slack || r.bottom() > h + slack;
        }
        if (bad)
            out << QStringLiteral("%1 at x %2..%3 y %4..%5 (window %6 x %7)")
                       .arg(describeItem(item))
                       .arg(r.left())
                       .arg(r.right())
                       .arg(r.top())
                       .arg(r.bottom())
                       .arg(w)
                       .arg(h);
    });
    return out;
}

}  // namespace

class LayoutTest : public QObject {
    Q_OBJECT

private:
    // Resizes, renders (which lays out), saves the picture, and checks the items.
    void check(QQuickWindow* window, int width, const QString& view) {
        window->resize(width, kHeight);
        QTRY_COMPARE(window->width(), width);
        QTest::qWait(30);  // layouts settle on the next frame
        const QImage shot = window->grabWindow();
        QVERIFY(!shot.isNull());
        const QString name =
            QStringLiteral("%1/%2-%3-%4-%5.png")
                .arg(m_shots, view, m_theme, m_lang.isEmpty() ? QStringLiteral("en") : m_lang)
                .arg(width);
        QVERIFY2(shot.save(name), qPrintable(name));
        const QStringList outside = itemsOutside(window);
        QVERIFY2(outside.isEmpty(),
                 qPrintable(QStringLiteral("%1 at %2 px: ").arg(view).arg(width) +
                            outside.join(QStringLiteral("; "))));
    }
    void setTheme(ChatController& c, const QString& theme) {
        m_theme = theme;
        c.settings()->insert(QStringLiteral("theme"), theme);
        QTest::qWait(300);  // colour transitions end (Theme.animationMs)
    }

private slots:
    void initTestCase() {
        QQuickStyle::setStyle(QStringLiteral("Basic"));
        QVERIFY(m_dataDir.isValid());
        m_appInfo = std::make_unique<AppInfo>(m_dataDir.path());
        hearth::app::registerQmlTypes(m_appInfo.get());
        m_shots = QCoreApplication::applicationDirPath() + QStringLiteral("/screenshots/layout");
        QVERIFY(QDir().mkpath(m_shots));
    }

    void mainViews_data() {
        QTest::addColumn<QString>("language");
        QTest::newRow("en") << QString();
        QTest::newRow("zh_CN") << QStringLiteral("zh_CN");
    }

    void mainViews() {
        QFETCH(QString, language);
        m_lang = language;
        QTranslator translator;
        if (!language.isEmpty()) {
            QVERIFY(translator.load(QStringLiteral(":/i18n/hearth_") + language));
            QVERIFY(QCoreApplication::installTranslator(&translator));
        }
        const QList<int> widths{640, 800, 1000, 1600};

        // Before any model: the welcome view.
        {
            ChatController controller;
            controller.setDataDir(m_dataDir.filePath(QStringLiteral("welcome-") + language));
            QQmlApplicationEngine engine;
            QQuickWindow* window = loadMainWindow(engine, controller);
            QVERIFY(window);
            QVERIFY(QTest::qWaitForWindowExposed(window));
            QTRY_VERIFY(controller.ready());
            if (!language.isEmpty())
                QCOMPARE(findNamed(window, QStringLiteral("sendButton"))->property("text"),
                         QVariant(QStringLiteral("发送")));
            for (const QString& theme : {QStringLiteral("light"), QStringLiteral("dark")}) {
                setTheme(controller, theme);
                for (int w : widths) check(window, w, QStringLiteral("welcome"));
            }
        }

        // A chat with a reply and its statistics, the widest line under a message.
        const QString model = tinyModelPath();
        if (model.isEmpty()) QSKIP("stories260K.gguf not found (HEARTH_SHARED_DIR)");
        auto controller = openController(m_dataDir.filePath(QStringLiteral("chat-") + language));
        QVERIFY(controller);
        QQmlApplicationEngine engine;
        QQuickWindow* window = loadMainWindow(engine, *controller);
        QVERIFY(window);
        QVERIFY(QTest::qWaitForWindowExposed(window));
        QVERIFY(loadTinyModel(*controller));
        QVERIFY(controller->send(QStringLiteral("Once upon a time")));
        QVERIFY(!waitForReply(*controller).isEmpty());
        QVERIFY(controller->send(QStringLiteral("Tell me more about the little dog")));
        QVERIFY(!waitForReply(*controller).isEmpty());
        for (const QString& theme : {QStringLiteral("light"), QStringLiteral("dark")}) {
            setTheme(*controller, theme);
            for (int w : widths) check(window, w, QStringLiteral("chat"));
        }
        setTheme(*controller, QStringLiteral("light"));
        if (language.isEmpty()) check(window, 3840, QStringLiteral("chat"));

        // The largest text size.
        controller->settings()->insert(QStringLiteral("fontScale"), 1.3);
        for (int w : widths) check(window, w, QStringLiteral("chat-larger-text"));
        controller->settings()->insert(QStringLiteral("fontScale"), 1.0);

        // Narrow: the chat list is a drawer; the header's secondary buttons are in a menu.
        for (int w : {640, 800}) {
            window->resize(w, kHeight);
            QTRY_COMPARE(window->width(), w);
            auto* inRow = findNamed(window, QStringLiteral("newChatButton"));
            QVERIFY(inRow);
            QTRY_VERIFY(!inRow->isVisible());  // the sidebar is in the closed drawer
            QVERIFY(openPopup(window, QStringLiteral("sidebarDrawer")));
            QVERIFY(inRow->isVisible());
            check(window, w, QStringLiteral("chat-drawer"));
            QVERIFY(closePopup(window, QStringLiteral("sidebarDrawer")));
            auto* more = findNamed(window, QStringLiteral("moreButton"));
            QVERIFY(more && more->isVisible());
            QVERIFY(!findNamed(window, QStringLiteral("aboutButton"))->isVisible());
            QVERIFY(openPopup(window, QStringLiteral("moreMenu")));
            check(window, w, QStringLiteral("chat-more-menu"));
            QVERIFY(closePopup(window, QStringLiteral("moreMenu")));
            QVERIFY(openPopup(window, QStringLiteral("shortcutsDialog")));
            if (!language.isEmpty())  // the sheet is translated
                QCOMPARE(findObject(window, QStringLiteral("shortcutsDialog"))->property("title"),
                         QVariant(QStringLiteral("键盘快捷键")));
            check(window, w, QStringLiteral("shortcuts"));
            QVERIFY(closePopup(window, QStringLiteral("shortcutsDialog")));
            QVERIFY(openPopup(window, QStringLiteral("settingsPanel")));
            check(window, w, QStringLiteral("settings"));
            QVERIFY(closePopup(window, QStringLiteral("settingsPanel")));
        }
        // Wide: the sidebar is beside the chat and every header button is there.
        window->resize(1600, kHeight);
        QTRY_VERIFY(findNamed(window, QStringLiteral("newChatButton"))->isVisible());
        QTRY_VERIFY(findNamed(window, QStringLiteral("aboutButton"))->isVisible());
        QVERIFY(!findNamed(window, QStringLiteral("chatsButton"))->isVisible());
    }

private:
    QTemporaryDir m_dataDir;
    std::unique_ptr<AppInfo> m_appInfo;
    QString m_shots;
    QString m_theme = QStringLiteral("light");
    QString m_lang;
};

int main(int argc, char** argv) {
    QGuiApplication app(argc, argv);
    LayoutTest test;
    return QTest::qExec(&test, argc, argv);
}
#include "layout_test.moc"
