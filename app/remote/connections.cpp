#include "connections.h"

#include <QDir>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QUrl>
#include <QUuid>

#include "key_store.h"
#include "openai_chat.h"
#include "remote_http.h"

namespace hearth::app {

Connections::Connections(QObject* parent) : QObject(parent), m_keys(new KeyStore(this)) {}

Connections::~Connections() = default;

Connections::Entry* Connections::find(const QString& id) {
    for (Entry& e : m_entries)
        if (e.id == id) return &e;
    return nullptr;
}

const Connections::Entry* Connections::find(const QString& id) const {
    for (const Entry& e : m_entries)
        if (e.id == id) return &e;
    return nullptr;
}

void Connections::open(const QString& dataDir) {
    if (m_file) return;
    m_file = std::make_unique<QSettings>(QDir(dataDir).filePath(QStringLiteral("connections.ini")),
                                         QSettings::IniFormat);
    const QStringList ids = m_file->childGroups();
    for (const QString& id : ids) {
        m_file->beginGroup(id);
        Entry e;
        e.id = id;
        e.name = m_file->value(QStringLiteral("name")).toString();
        e.baseUrl = m_file->value(QStringLiteral("baseUrl")).toString();
        e.timeoutSeconds = m_file->value(QStringLiteral("timeoutSeconds"), 120).toInt();
        e.trustedCert = m_file->value(QStringLiteral("trustedCertSha256")).toByteArray();
        e.keyStorage =
            m_file->value(QStringLiteral("keyStorage"), QStringLiteral("none")).toString();
        if (e.keyStorage == QLatin1String("file"))
            e.apiKey = m_file->value(QStringLiteral("apiKey")).toString();
        e.keyPending = e.keyStorage == QLatin1String("keychain");
        e.testWanted = true;
        m_file->endGroup();
        if (!e.baseUrl.isEmpty()) m_entries.append(e);
    }
    for (const Entry& e : m_entries) {
        if (e.keyStorage == QLatin1String("file"))
            m_keyWarning = tr("No credential store is available, so API keys are kept in %1 "
                              "(readable by anyone who can read your files).")
                               .arg(QDir::toNativeSeparators(m_file->fileName()));
    }
    for (const Entry& e : m_entries) {
        const QString id = e.id;
        if (!e.keyPending) {
            test(id);
            continue;
        }
        m_keys->read(id, [this, id](bool ok, const QString& key, const QString& error) {
            Entry* x = find(id);
            if (!x) return;
            x->keyPending = false;
            if (ok) {
                x->apiKey = key;
            } else {
                x->state = QStringLiteral("error");
                x->error = tr("The API key could not be read from the credential store: %1. "
                              "Enter it again in the connection's settings.")
                               .arg(error);
            }
            if (std::exchange(x->testWanted, false) && ok) test(id);
            emit changed();
        });
    }
    emit changed();
}

QVariantList Connections::list() const {
    QVariantList out;
    for (const Entry& e : m_entries) {
        out.append(QVariantMap{{QStringLiteral("id"), e.id},
                               {QStringLiteral("name"), e.name},
                               {QStringLiteral("baseUrl"), e.baseUrl},
                               {QStringLiteral("host"), QUrl(e.baseUrl).host()},
                               {QStringLiteral("hasKey"), !e.apiKey.isEmpty()},
                               {QStringLiteral("keyStorage"), e.keyStorage},
                               {QStringLiteral("timeoutSeconds"), e.timeoutSeconds},
                               {QStringLiteral("trustedCert"), formatFingerprint(e.trustedCert)},
                               {QStringLiteral("seenCert"), formatFingerprint(e.seenCert)},
                               {QStringLiteral("state"), e.state},
                               {QStringLiteral("error"), e.error},
                               {QStringLiteral("models"), e.models}});
    }
    return out;
}

QVariantList Connections::remoteModels() const {
    QVariantList out;
    for (const Entry& e : m_entries)
        for (const QString& m : e.models)
            out.append(QVariantMap{{QStringLiteral("connectionId"), e.id},
                                   {QStringLiteral("connectionName"), e.name},
                                   {QStringLiteral("host"), QUrl(e.baseUrl).host()},
                                   {QStringLiteral("model"), m}});
    return out;
}

QString Connections::normalizeUrl(const QString& raw) {
    QString url = raw.trimmed();
    while (url.endsWith(QLatin1Char('/'))) url.chop(1);
    for (const char* tail : {"/chat/completions", "/models"})
        if (url.endsWith(QLatin1String(tail))) url.chop(static_cast<int>(qstrlen(tail)));
    // "http://host:8000" means the usual API root.
    if (QUrl(url).path().isEmpty()) url += QStringLiteral("/v1");
    return url;
}

QString Connections::checkUrl(const QString& baseUrl) const {
    const QUrl url(normalizeUrl(baseUrl), QUrl::StrictMode);
    if (baseUrl.trimmed().isEmpty()) return tr("Enter the server's base URL.");
    if (!url.isValid() || url.host().isEmpty())
        return tr("“%1” is not a URL such as http://192.168.1.20:8000/v1.").arg(baseUrl.trimmed());
    if (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https"))
        return tr("The URL must start with http:// or https://.");
    return {};
}

QString Connections::add(const QString& name, const QString& baseUrl, const QString& apiKey,
                         int timeoutSeconds) {
    m_lastError = checkUrl(baseUrl);
    if (!m_lastError.isEmpty() || !m_file) return {};
    Entry e;
    e.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    e.baseUrl = normalizeUrl(baseUrl);
    e.name = name.simplified().isEmpty() ? QUrl(e.baseUrl).host() : name.simplified();
    e.timeoutSeconds = std::clamp(timeoutSeconds, 1, 3600);
    e.apiKey = apiKey.trimmed();
    m_entries.append(e);
    saveEntry(e);
    storeKey(e.id, e.apiKey);
    test(e.id);
    return e.id;
}

bool Connections::edit(const QString& id, const QString& name, const QString& baseUrl,
                       const QString& apiKey, bool changeKey, int timeoutSeconds) {
    m_lastError = checkUrl(baseUrl);
    Entry* e = find(id);
    if (!m_lastError.isEmpty() || !e) return false;
    const QString url = normalizeUrl(baseUrl);
    if (QUrl(url).host() != QUrl(e->baseUrl).host()) {  // another server: another certificate
        e->trustedCert.clear();
        e->seenCert.clear();
    }
    e->baseUrl = url;
    e->name = name.simplified().isEmpty() ? QUrl(url).host() : name.simplified();
    e->timeoutSeconds = std::clamp(timeoutSeconds, 1, 3600);
    if (changeKey) {
        e->apiKey = apiKey.trimmed();
        e->keyPending = false;
    }
    saveEntry(*e);
    if (changeKey) storeKey(id, e->apiKey);
    test(id);
    return true;
}

void Connections::remove(const QString& id) {
    const Entry* e = find(id);
    if (!e) return;
    if (e->keyStorage == QLatin1String("keychain")) m_keys->remove(id);
    m_entries.removeIf([&](const Entry& x) { return x.id == id; });
    dropNetwork(id);
    m_file->remove(id);
    m_file->sync();
    emit changed();
}

void Connections::dropNetwork(const QString& id) {
    if (auto it = m_nams.find(id); it != m_nams.end()) {
        it->second.release()->deleteLater();  // a reply of it may be finishing now
        m_nams.erase(it);
    }
}

void Connections::saveEntry(const Entry& e) {
    m_file->beginGroup(e.id);
    m_file->setValue(QStringLiteral("name"), e.name);
    m_file->setValue(QStringLiteral("baseUrl"), e.baseUrl);
    m_file->setValue(QStringLiteral("timeoutSeconds"), e.timeoutSeconds);
    m_file->setValue(QStringLiteral("trustedCertSha256"), e.trustedCert);
    m_file->setValue(QStringLiteral("keyStorage"), e.keyStorage);
    if (e.keyStorage == QLatin1String("file"))
        m_file->setValue(QStringLiteral("apiKey"), e.apiKey);
    else
        m_file->remove(QStringLiteral("apiKey"));
    m_file->endGroup();
    m_file->sync();
    emit changed();
}

void Connections::storeKey(const QString& id, const QString& key) {
    Entry* e = find(id);
    if (!e) return;
    if (key.isEmpty()) {
        if (e->keyStorage == QLatin1String("keychain")) m_keys->remove(id);
        e->keyStorage = QStringLiteral("none");
        saveEntry(*e);
        return;
    }
    m_keys->write(id, key, [this, id](bool ok, const QString& error) {
        Entry* x = find(id);
        if (!x) return;
        if (ok) {
            x->keyStorage = QStringLiteral("keychain");
        } else {
            // No keychain service answered: the key goes into the settings file, and the
            // person is told where it is.
            x->keyStorage = QStringLiteral("file");
            m_keyWarning = tr("No credential store is available (%1), so API keys are kept in "
                              "%2 (readable by anyone who can read your files).")
                               .arg(error, QDir::toNativeSeparators(m_file->fileName()));
        }
        saveEntry(*x);
    });
}

void Connections::test(const QString& id) {
    Entry* e = find(id);
    if (!e) return;
    if (e->keyPending) {
        e->testWanted = true;
        return;
    }
    e->state = QStringLiteral("testing");
    e->error.clear();
    emit changed();
    const RemoteTarget t = target(id, QStringLiteral("-"));
    auto& nam = m_nams[id];
    if (!nam) nam = std::make_unique<QNetworkAccessManager>();
    QNetworkReply* reply = nam->get(remoteRequest(t, QStringLiteral("/models")));
    applyTlsPolicy(reply, t);
    const qint64 serial = ++m_serial;
    reply->setProperty("hearthSerial", serial);
    connect(reply, &QNetworkReply::finished, this, [this, reply, id, url = t.baseUrl] {
        reply->deleteLater();
        Entry* x = find(id);
        if (!x) return;
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QByteArray body = reply->isOpen() ? reply->readAll() : QByteArray();
        const QByteArray seen = peerCertificateSha256(reply);
        if (!seen.isEmpty() && seen != x->trustedCert.toLower()) x->seenCert = seen;
        QString error;
        QStringList models;
        if (status == 0) {
            error = describeNetworkFailure(reply, url);
        } else if (status != 200) {
            error = QString::fromStdString(openai::describe_http_error(
                status, std::string_view(body.constData(), static_cast<size_t>(body.size()))));
        } else {
            std::string why;
            const auto ids = openai::parse_model_list(
                std::string_view(body.constData(), static_cast<size_t>(body.size())), why);
            if (!ids)
                error = QString::fromStdString(why);
            else
                for (const std::string& m : *ids) models.append(QString::fromStdString(m));
            if (ids && models.isEmpty()) error = tr("The server serves no models.");
        }
        x->models = models;
        x->error = error;
        x->state = error.isEmpty() ? QStringLiteral("ok") : QStringLiteral("error");
        emit changed();
        emit tested(id, error.isEmpty(),
                    error.isEmpty()
                        ? tr("%n model(s) served", nullptr, static_cast<int>(models.size()))
                        : error);
    });
}

void Connections::trustSeenCertificate(const QString& id, bool trust) {
    Entry* e = find(id);
    if (!e) return;
    e->trustedCert = trust ? e->seenCert : QByteArray();
    if (!trust) dropNetwork(id);  // no channel that trusted it stays open
    if (trust) e->seenCert.clear();
    saveEntry(*e);
    test(id);
}

RemoteTarget Connections::target(const QString& id, const QString& model) const {
    RemoteTarget t;
    const Entry* e = find(id);
    if (!e) return t;
    t.connectionId = e->id;
    t.connectionName = e->name;
    t.baseUrl = e->baseUrl;
    t.apiKey = e->apiKey;
    t.model = model;
    t.timeoutMs = e->timeoutSeconds * 1000;
    t.trustedCertSha256 = e->trustedCert;
    return t;
}

QStringList Connections::remoteModelsOf(const QString& id) const {
    const Entry* e = find(id);
    return e ? e->models : QStringList();
}

QString Connections::nameOf(const QString& id) const {
    const Entry* e = find(id);
    return e ? e->name : QString();
}

}  // namespace hearth::app
