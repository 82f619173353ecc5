#include "remote_http.h"

#include <QCryptographicHash>
#include <QNetworkReply>
#include <QStringList>
#if QT_CONFIG(ssl)
#include <QSslCertificate>
#include <QSslError>
#endif

namespace hearth::app {

namespace {
constexpr const char* kTlsErrors = "hearthTlsErrors";
constexpr const char* kPeerSha = "hearthPeerSha256";
}  // namespace

QNetworkRequest remoteRequest(const RemoteTarget& target, const QString& path) {
    QNetworkRequest request(QUrl(target.baseUrl + path));
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    if (!target.apiKey.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + target.apiKey.toUtf8());
    // Aborts when nothing arrives for this long (connecting, the first byte, between deltas).
    request.setTransferTimeout(target.timeoutMs);
    // No redirects to other hosts: the key must not follow one.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::SameOriginRedirectPolicy);
    return request;
}

void applyTlsPolicy(QNetworkReply* reply, const RemoteTarget& target) {
#if QT_CONFIG(ssl)
    const QByteArray trusted = target.trustedCertSha256.toLower();
    QObject::connect(reply, &QNetworkReply::sslErrors, reply,
                     [reply, trusted](const QList<QSslError>& errors) {
                         const QSslCertificate cert = reply->sslConfiguration().peerCertificate();
                         const QByteArray sha = cert.digest(QCryptographicHash::Sha256).toHex();
                         reply->setProperty(kPeerSha, sha);
                         if (!trusted.isEmpty() && sha == trusted) {
                             reply->ignoreSslErrors(errors);
                             return;
                         }
                         QStringList words;
                         for (const QSslError& e : errors) words.append(e.errorString());
                         reply->setProperty(kTlsErrors, words.join(QStringLiteral("; ")));
                     });
    QObject::connect(reply, &QNetworkReply::encrypted, reply, [reply] {
        const QSslCertificate cert = reply->sslConfiguration().peerCertificate();
        reply->setProperty(kPeerSha, cert.digest(QCryptographicHash::Sha256).toHex());
    });
#else
    Q_UNUSED(reply);
    Q_UNUSED(target);
#endif
}

QByteArray peerCertificateSha256(const QNetworkReply* reply) {
    return reply->property(kPeerSha).toByteArray();
}

QString formatFingerprint(const QByteArray& hex) {
    QStringList pairs;
    for (qsizetype i = 0; i + 1 < hex.size(); i += 2)
        pairs.append(QString::fromLatin1(hex.mid(i, 2)).toUpper());
    return pairs.join(QLatin1Char(':'));
}

QString describeNetworkFailure(const QNetworkReply* reply, const QString& url) {
    const QString host = reply->url().host();
    const QString tls = reply->property(kTlsErrors).toString();
    if (!tls.isEmpty()) {
        const QByteArray sha = peerCertificateSha256(reply);
        QString text = QObject::tr("The secure connection to %1 was refused: %2.").arg(host, tls);
        if (!sha.isEmpty())
            text += QLatin1Char(' ') +
                    QObject::tr(
                        "If this is your own server with a self-signed certificate, "
                        "check that its SHA-256 fingerprint is %1 and trust it in the "
                        "connection's settings.")
                        .arg(formatFingerprint(sha));
        return text;
    }
    switch (reply->error()) {
        case QNetworkReply::NoError:
            return {};
        case QNetworkReply::ConnectionRefusedError:
            return QObject::tr(
                       "Nothing answers at %1 (connection refused). Is the server "
                       "running, and is the port right?")
                .arg(url);
        case QNetworkReply::HostNotFoundError:
            return QObject::tr(
                       "The server name “%1” could not be found (DNS). Check the URL "
                       "and your network.")
                .arg(host);
        case QNetworkReply::TimeoutError:
        case QNetworkReply::OperationCanceledError:
            return QObject::tr("%1 did not answer in time.").arg(url);
        case QNetworkReply::RemoteHostClosedError:
            return QObject::tr("%1 closed the connection.").arg(url);
        case QNetworkReply::SslHandshakeFailedError:
            return QObject::tr(
                       "The secure (TLS) connection to %1 failed: %2. Is it an https "
                       "server?")
                .arg(host, reply->errorString());
        case QNetworkReply::ProtocolUnknownError:
            return QObject::tr("“%1” is not an http:// or https:// URL.").arg(url);
        default:
            return QObject::tr("The connection to %1 failed: %2").arg(url, reply->errorString());
    }
}

}  // namespace hearth::app
