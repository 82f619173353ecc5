// Connections: the remote endpoints the person added (name, base URL, API key, timeout, a
// trusted self-signed certificate), kept in "<data dir>/connections.ini" with the keys in the
// platform's credential store (KeyStore) or, where there is none, in that file with a warning.
// "Test connection" lists the served models (GET /v1/models); every connection's models join
// the model picker, marked as remote with their host. GUI thread; QML reads `list`.
#pragma once

#include <QHash>
#include <QObject>
#include <QSettings>
#include <QVariantList>

#include <map>
#include <memory>

#include "remote_types.h"

class QNetworkAccessManager;

namespace hearth::app {

class KeyStore;

class Connections : public QObject {
    Q_OBJECT
    // [{id, name, baseUrl, host, hasKey, keyStorage ("keychain", "file", "none"), timeoutSeconds,
    //   trustedCert (fingerprint text, empty: none), seenCert (the last untrusted certificate's
    //   fingerprint), state ("untested", "testing", "ok", "error"), error, models [ids]}]
    Q_PROPERTY(QVariantList list READ list NOTIFY changed)
    // Every tested connection's models: [{connectionId, connectionName, host, model}].
    Q_PROPERTY(QVariantList remoteModels READ remoteModels NOTIFY changed)
    // Set when a key had to go into the settings file (no credential store answered).
    Q_PROPERTY(QString keyWarning READ keyWarning NOTIFY changed)

public:
    explicit Connections(QObject* parent = nullptr);
    ~Connections() override;

    // Reads dataDir/connections.ini and the keys, then tests every connection.
    void open(const QString& dataDir);

    QVariantList list() const;
    QVariantList remoteModels() const;
    QString keyWarning() const { return m_keyWarning; }

    // Checks the URL ("" when usable, else why not) as add/edit do.
    Q_INVOKABLE QString checkUrl(const QString& baseUrl) const;
    // Adds a connection and tests it; returns its id ("" when the URL is refused: see error).
    Q_INVOKABLE QString add(const QString& name, const QString& baseUrl, const QString& apiKey,
                            int timeoutSeconds = 120);
    // Changes one; the key only when changeKey (an empty key then removes it).
    Q_INVOKABLE bool edit(const QString& id, const QString& name, const QString& baseUrl,
                          const QString& apiKey, bool changeKey, int timeoutSeconds);
    Q_INVOKABLE void remove(const QString& id);
    // GET baseUrl/models; `tested` follows, and `list` holds the models or the error.
    Q_INVOKABLE void test(const QString& id);
    // Trusts (or stops trusting) the certificate the last test saw on this endpoint.
    Q_INVOKABLE void trustSeenCertificate(const QString& id, bool trust);
    // The last add/edit refusal.
    Q_INVOKABLE QString lastError() const { return m_lastError; }

    // What the engine thread needs to use model `model` of connection `id` (invalid if none).
    RemoteTarget target(const QString& id, const QString& model) const;
    QString nameOf(const QString& id) const;
    // The models the last test of connection `id` listed.
    QStringList remoteModelsOf(const QString& id) const;

signals:
    void changed();
    void tested(const QString& id, bool ok, const QString& message);

private:
    struct Entry {
        QString id;
        QString name;
        QString baseUrl;
        QString apiKey;
        QString keyStorage = QStringLiteral("none");
        bool keyPending = false;  // being read from the credential store
        bool testWanted = false;  // test once the key is read
        int timeoutSeconds = 120;
        QByteArray trustedCert;
        QByteArray seenCert;
        QString state = QStringLiteral("untested");
        QString error;
        QStringList models;
    };
    Entry* find(const QString& id);
    const Entry* find(const QString& id) const;
    static QString normalizeUrl(const QString& url);
    void saveEntry(const Entry& e);
    void storeKey(const QString& id, const QString& key);
    void dropNetwork(const QString& id);

    std::unique_ptr<QSettings> m_file;
    // One per connection: an accepted certificate's TLS session or open channel must not
    // serve another connection to the same host and port.
    std::map<QString, std::unique_ptr<QNetworkAccessManager>> m_nams;
    KeyStore* m_keys;
    QList<Entry> m_entries;
    QString m_keyWarning;
    QString m_lastError;
    qint64 m_serial = 0;
};

}  // namespace hearth::app
