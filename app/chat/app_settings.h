// The person's settings, kept in "<data dir>/settings.ini" (QSettings, INI format). A
// QQmlPropertyMap, so QML binds to settings.temperature and writes to it directly; every
// write is saved at once. Keys and defaults are listed in app_settings.cpp.
#pragma once

#include <QQmlPropertyMap>
#include <QSettings>
#include <QStringList>

#include "engine_types.h"

namespace hearth::app {

class AppSettings : public QQmlPropertyMap {
    Q_OBJECT

public:
    explicit AppSettings(const QString& dataDir, QObject* parent = nullptr);

    static QString filePath(const QString& dataDir);
    // Keys whose change only takes effect when the model is loaded again.
    static bool needsReload(const QString& key);
    // Keys the engine reads when it makes a chat's context (applied from the next message).
    static bool needsNewContext(const QString& key);

    // Empty, or why the settings file could not be read (then it was moved aside to
    // "settings.ini.bad" and the defaults are in use): for the person, shown once.
    QString loadProblem() const { return m_loadProblem; }

    EngineConfig engineConfig() const;
    SamplingConfig samplingConfig() const;

    // Puts path first in the recent models (at most 8).
    void addRecentModel(const QString& path);
    Q_INVOKABLE void removeRecentModel(const QString& path);
    // Changes a setting as a write from QML does (checked, saved, settingChanged). Returns
    // the value stored.
    Q_INVOKABLE QVariant set(const QString& key, const QVariant& value);
    // The model in use, for "reload the last model at start".
    void setLastModel(const QString& path);
    // The last model's path when reloadLastModel is on and the file still exists, else empty.
    QString modelToReload() const;
    // Back to the defaults (recent models, the last model and the model folders are kept).
    Q_INVOKABLE void resetToDefaults();

signals:
    void settingChanged(const QString& key);

protected:
    QVariant updateValue(const QString& key, const QVariant& input) override;

private:
    static QString setAsideIfUnreadable(const QString& file);
    void store(const QString& key, const QVariant& value);
    QString m_loadProblem;  // before m_settings: it is set before the file is opened
    QSettings m_settings;
};

}  // namespace hearth::app
