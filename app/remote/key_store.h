// KeyStore: API keys of remote connections in the platform's credential store (QtKeychain:
// the Secret Service through libsecret on Linux, the Keychain on macOS, the Credential Manager
// on Windows). Where there is none (not built with QtKeychain, no keychain service running,
// HEARTH_KEYCHAIN=off) the caller keeps the key in its settings file and tells the person so.
// Asynchronous; GUI thread.
#pragma once

#include <QObject>
#include <QString>

#include <functional>

namespace hearth::app {

class KeyStore : public QObject {
    Q_OBJECT

public:
    explicit KeyStore(QObject* parent = nullptr);

    // Built with QtKeychain and not switched off by HEARTH_KEYCHAIN=off.
    static bool compiledIn();

    // done(ok, error): ok false when no credential store took it (error says why).
    void write(const QString& id, const QString& key,
               std::function<void(bool ok, const QString& error)> done);
    // done(ok, key, error).
    void read(const QString& id,
              std::function<void(bool ok, const QString& key, const QString& error)> done);
    void remove(const QString& id);
};

}  // namespace hearth::app
