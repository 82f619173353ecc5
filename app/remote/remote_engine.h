// RemoteEngine: answers the engine worker's generation requests with a model on a server of
// the OpenAI API. Lives on the engine thread (its QNetworkAccessManager is made there): sends
// the chat as `messages` (the server applies its own template), reads the SSE stream through
// the shared parser (server/client/openai_stream.h) and reports what the local engine reports:
// text deltas, progress (time to first token, tokens/s), and one end per request: finished
// (eos, length, stopped — or "interrupted" when the stream broke after text arrived, the text
// kept) or failed (nothing arrived; the message says why in words).
#pragma once

#include <QElapsedTimer>
#include <QNetworkReply>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>

#include "engine_types.h"
#include "openai_stream.h"
#include "remote_types.h"

class QNetworkAccessManager;

namespace hearth::app {

class RemoteEngine : public QObject {
    Q_OBJECT

public:
    // stopRequested: thread-safe, true once Stop was pressed for a request id (polled).
    explicit RemoteEngine(std::function<bool(qint64)> stopRequested, QObject* parent = nullptr);
    ~RemoteEngine() override;

    // Starts the request (a running one is abandoned first, answered as stopped).
    void start(const GenerationRequest& request, const RemoteTarget& target);
    // Ends the running request at once, as stopped (model unloaded or replaced).
    void abort();
    bool busy() const { return m_reply != nullptr; }

signals:
    void tokens(qint64 requestId, const QString& delta);
    void progress(qint64 requestId, const hearth::app::GenerationReport& report);
    void finished(qint64 requestId, const QString& text,
                  const hearth::app::GenerationReport& report);
    void failed(qint64 requestId, const QString& message);

private:
    void onReadyRead();
    void onFinished();
    void pollStop();
    void fillReport();
    void end();

    std::function<bool(qint64)> m_stopRequested;
    std::unique_ptr<QNetworkAccessManager> m_nam;  // made on first use, on this thread
    QPointer<QNetworkReply> m_reply;
    QTimer m_stopPoll;
    RemoteTarget m_target;
    qint64 m_id = 0;
    bool m_stopping = false;
    int m_status = 0;
    QByteArray m_errorBody;
    openai::SseParser m_sse;
    openai::ThinkJoiner m_joiner;
    QString m_text;
    QString m_streamError;
    QString m_finish;
    bool m_done = false;
    qint64 m_deltas = 0;
    std::optional<openai::Usage> m_usage;
    QElapsedTimer m_clock;
    qint64 m_firstNs = -1;
    GenerationReport m_report;
    QElapsedTimer m_sinceProgress;
};

}  // namespace hearth::app
