// Version, build and location facts shown in the About dialog and used by the app.
#pragma once

#include <QObject>
#include <QString>

class AppInfo : public QObject {
    Q_OBJECT
    Q_PROPERTY(QString name READ name CONSTANT)
    Q_PROPERTY(QString version READ version CONSTANT)
    Q_PROPERTY(QString gitCommit READ gitCommit CONSTANT)
    Q_PROPERTY(QString buildType READ buildType CONSTANT)
    Q_PROPERTY(QString compiler READ compiler CONSTANT)
    Q_PROPERTY(QString qtVersion READ qtVersion CONSTANT)
    Q_PROPERTY(QString backendsBuilt READ backendsBuilt CONSTANT)
    Q_PROPERTY(QString backendsFound READ backendsFound CONSTANT)
    Q_PROPERTY(QString dataDir READ dataDir CONSTANT)

public:
    explicit AppInfo(QString dataDir, QObject* parent = nullptr);

    QString name() const { return QStringLiteral("Hearth"); }
    QString version() const;
    QString gitCommit() const;
    QString buildType() const;
    QString compiler() const;
    QString qtVersion() const;
    QString backendsBuilt() const;  // e.g. "CPU, Vulkan, CUDA"
    // What the engine's registry finds at run time (backend plugins are loaded then), one line
    // per device or backend: "cpu: the automatic choice", "cuda: plugin … not found …".
    QString backendsFound() const;
    QString dataDir() const { return m_dataDir; }

    // One line for --version.
    QString versionLine() const;

private:
    QString m_dataDir;
};
