// A model on a server of the OpenAI API, as the engine thread needs it to talk to it: copied
// by value across threads (it holds the API key, so it is never logged or stored by itself).
#pragma once

#include <QByteArray>
#include <QMetaType>
#include <QString>
#include <QUrl>

namespace hearth::app {

struct RemoteTarget {
    QString connectionId;
    QString connectionName;
    QString baseUrl;         // "http://host:8000/v1", no trailing slash
    QString apiKey;          // empty: none sent
    QString model;           // as GET /v1/models lists it
    int timeoutMs = 120000;  // connect, and between bytes of an answer
    // A self-signed or otherwise untrusted certificate the person accepted for this endpoint
    // (SHA-256 of the DER certificate, hex); only that certificate is accepted despite errors.
    QByteArray trustedCertSha256;

    bool valid() const { return !baseUrl.isEmpty() && !model.isEmpty(); }
    QString host() const { return QUrl(baseUrl).host(); }
};

}  // namespace hearth::app

Q_DECLARE_METATYPE(hearth::app::RemoteTarget)
