// What the remote engine and the connection test share on top of Qt Network: requests to an
// endpoint (bearer key, transfer timeout), the per-endpoint certificate exception, and network
// errors told in words a person can act on.
#pragma once

#include <QNetworkRequest>
#include <QString>

#include "remote_types.h"

class QNetworkReply;

namespace hearth::app {

// A request for baseUrl + path (path: "/models", "/chat/completions").
QNetworkRequest remoteRequest(const RemoteTarget& target, const QString& path);

// Watches the reply's TLS errors: they are ignored only when the server's certificate is the
// one the endpoint trusts (target.trustedCertSha256). The certificate seen and the errors are
// kept on the reply (see tlsProblem / peerCertificateSha256).
void applyTlsPolicy(QNetworkReply* reply, const RemoteTarget& target);
// The server certificate's SHA-256 (hex) as the reply saw it; empty for plain HTTP.
QByteArray peerCertificateSha256(const QNetworkReply* reply);

// Why the reply failed without an HTTP answer (refused, DNS, TLS, timeout, cut), or empty when
// it did not. url: the endpoint as the person typed it.
QString describeNetworkFailure(const QNetworkReply* reply, const QString& url);

// "AB:CD:…" for showing a fingerprint.
QString formatFingerprint(const QByteArray& hexSha256);

}  // namespace hearth::app
