// Main.qml loaded as main() loads it, and helpers that walk its items: the layout, keyboard
// and accessibility tests share them.
#pragma once

#include <QMetaObject>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QString>
#include <QTest>
#include <QUrl>
#include <functional>

#include "chat_controller.h"
#include "qml_types.h"

namespace hearth::test {

// The real Main.qml on `controller`; null when it did not load.
inline QQuickWindow* loadMainWindow(QQmlApplicationEngine& engine,
                                    hearth::app::ChatController& controller) {
    hearth::app::prepareEngine(&engine);
    engine.setInitialProperties({{QStringLiteral("controller"), QVariant::fromValue(&controller)}});
    engine.load(QUrl(QStringLiteral("qrc:/Hearth/Main.qml")));
    if (engine.rootObjects().size() != 1) return nullptr;
    return qobject_cast<QQuickWindow*>(engine.rootObjects().first());
}

// Whether obj is (or derives from) the C++ class named className (e.g. "QQuickAbstractButton";
// the Qt Quick Controls classes are private, their names are not).
inline bool inheritsClass(const QObject* obj, const char* className) {
    for (const QMetaObject* m = obj->metaObject(); m; m = m->superClass())
        if (qstrcmp(m->className(), className) == 0) return true;
    return false;
}

// Something a person clicks, types into or reads a value from: buttons (and everything built
// on them: tool buttons, delegates, menu items, check boxes), text fields, combo boxes, spin
// boxes, sliders and progress bars.
inline bool isInteractive(const QQuickItem* item) {
    for (const char* name :
         {"QQuickAbstractButton", "QQuickTextField", "QQuickTextArea", "QQuickComboBox",
          "QQuickSpinBox", "QQuickSlider", "QQuickProgressBar", "QQuickRangeSlider"})
        if (inheritsClass(item, name)) return true;
    return false;
}

inline void forEachItem(QQuickItem* root, const std::function<void(QQuickItem*)>& visit) {
    if (!root) return;
    visit(root);
    for (QQuickItem* child : root->childItems()) forEachItem(child, visit);
}

// The class, object name and text of an item, for failure messages.
inline QString describeItem(const QQuickItem* item) {
    QString d = QString::fromLatin1(item->metaObject()->className());
    if (!item->objectName().isEmpty()) d += QStringLiteral(" '") + item->objectName() + u'\'';
    const QVariant text = item->property("text");
    if (text.isValid() && !text.toString().isEmpty())
        d += QStringLiteral(" \"") + text.toString().left(40) + u'"';
    return d;
}

template <typename T = QQuickItem>
T* findNamed(QQuickWindow* window, const QString& name) {
    T* found = nullptr;
    forEachItem(window->contentItem(), [&](QQuickItem* item) {
        if (!found && item->objectName() == name) found = qobject_cast<T*>(item);
    });
    if (!found) found = window->findChild<T*>(name);
    return found;
}

// A QObject (a popup, a dialog) by object name: declared in Main.qml, or inside an item (a
// list delegate's menu); the first one found.
inline QObject* findObject(QQuickWindow* window, const QString& name) {
    if (QObject* o = window->findChild<QObject*>(name)) return o;
    QObject* found = nullptr;
    forEachItem(window->contentItem(), [&](QQuickItem* item) {
        if (!found) found = item->findChild<QObject*>(name, Qt::FindDirectChildrenOnly);
    });
    return found;
}

// Opens a popup found by object name and waits until it is open.
inline bool openPopup(QQuickWindow* window, const QString& name) {
    QObject* popup = findObject(window, name);
    if (!popup || !QMetaObject::invokeMethod(popup, "open")) return false;
    return QTest::qWaitFor([&] { return popup->property("opened").toBool(); }, 5000);
}
inline bool closePopup(QQuickWindow* window, const QString& name) {
    QObject* popup = findObject(window, name);
    if (!popup || !QMetaObject::invokeMethod(popup, "close")) return false;
    return QTest::qWaitFor([&] { return !popup->property("visible").toBool(); }, 5000);
}

}  // namespace hearth::test
