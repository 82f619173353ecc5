#include "remote_engine.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>

#include "openai_chat.h"
#include "remote_http.h"

namespace hearth::app {

namespace {

constexpr int kStopPollMs = 30;
constexpr int kProgressMs = 250;

// OpenAI's finish_reason as the app's stop reasons (those of the local engine).
QString stopReasonOf(const QString& finish) {
    if (finish == QLatin1String("stop") || finish.isEmpty()) return QStringLiteral("eos");
    if (finish == QLatin1String("length")) return QStringLiteral("length");
    return finish;  // e.g. "content_filter", "tool_calls": shown as given
}

}  // namespace

RemoteEngine::RemoteEngine(std::function<bool(qint64)> stopRequested, QObject* parent)
    : QObject(parent), m_stopRequested(std::move(stopRequested)) {
    m_stopPoll.setInterval(kStopPollMs);
    connect(&m_stopPoll, &QTimer::timeout, this, &RemoteEngine::pollStop);
}

RemoteEngine::~RemoteEngine() {
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
    }
}

void RemoteEngine::start(const GenerationRequest& request, const RemoteTarget& target) {
    abort();
    // Another endpoint or another trusted certificate: fresh channels and TLS sessions.
    if (!m_nam || target.connectionId != m_target.connectionId ||
        target.trustedCertSha256 != m_target.trustedCertSha256)
        m_nam = std::make_unique<QNetworkAccessManager>();
    m_target = target;
    m_id = request.requestId;
    m_stopping = false;
    m_status = 0;
    m_errorBody.clear();
    m_sse = {};
    m_joiner = {};
    m_text.clear();
    m_streamError.clear();
    m_finish.clear();
    m_done = false;
    m_deltas = 0;
    m_usage.reset();
    m_firstNs = -1;
    m_report = {};
    m_report.sampling = request.sampling;
    m_report.backend = QStringLiteral("remote");

    openai::ChatRequest body;
    body.model = target.model.toStdString();
    for (const PromptEntry& m : request.messages)
        body.messages.push_back({m.role.toStdString(), m.content.toStdString()});
    if (!request.continueText.isEmpty()) {
        body.messages.push_back({"assistant", request.continueText.toStdString()});
        body.continue_final = true;
    }
    const SamplingConfig& s = request.sampling;
    body.sampling.temperature = s.temperature;
    body.sampling.top_p = s.topP;
    body.sampling.top_k = s.topK;
    body.sampling.min_p = s.minP;
    body.sampling.repeat_penalty = s.repeatPenalty;
    body.sampling.max_tokens = s.maxTokens;
    body.sampling.seed = s.seed;

    QNetworkRequest req = remoteRequest(target, QStringLiteral("/chat/completions"));
    req.setRawHeader("Accept", "text/event-stream");
    m_clock.start();
    m_sinceProgress.start();
    m_reply = m_nam->post(req, QByteArray::fromStdString(openai::chat_request_json(body)));
    applyTlsPolicy(m_reply, target);
    connect(m_reply, &QNetworkReply::readyRead, this, &RemoteEngine::onReadyRead);
    connect(m_reply, &QNetworkReply::finished, this, &RemoteEngine::onFinished);
    m_stopPoll.start();
    if (m_stopRequested(m_id)) pollStop();
}

void RemoteEngine::abort() {
    if (!m_reply) return;
    m_stopping = true;
    m_reply->abort();  // finished() runs now and answers the request as stopped
}

void RemoteEngine::pollStop() {
    if (m_reply && !m_stopping && m_stopRequested(m_id)) {
        m_stopping = true;  // closes the stream; the server cancels the request
        m_reply->abort();
    }
}

void RemoteEngine::onReadyRead() {
    if (!m_reply || !m_reply->isOpen()) return;
    if (m_status == 0)
        m_status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QByteArray bytes = m_reply->readAll();
    if (m_status != 200) {
        if (m_errorBody.size() < (1 << 16)) m_errorBody += bytes;
        return;
    }
    QString delta;
    for (const std::string& event : m_sse.feed(std::string_view(bytes.data(), bytes.size()))) {
        const openai::StreamDelta d = openai::decode_chunk(event);
        if (d.done) m_done = true;
        if (!d.error.empty()) m_streamError = QString::fromStdString(d.error);
        if (d.usage) m_usage = d.usage;
        if (!d.finish_reason.empty()) m_finish = QString::fromStdString(d.finish_reason);
        const std::string text = m_joiner.append(d);
        if (text.empty()) continue;
        if (m_deltas++ == 0) m_firstNs = m_clock.nsecsElapsed();
        delta += QString::fromStdString(text);
    }
    if (delta.isEmpty()) return;
    m_text += delta;
    emit tokens(m_id, delta);
    if (m_sinceProgress.elapsed() >= kProgressMs) {
        m_sinceProgress.restart();
        fillReport();
        emit progress(m_id, m_report);
    }
}

void RemoteEngine::fillReport() {
    m_report.generatedTokens = m_usage ? m_usage->completion_tokens : m_deltas;
    // The server's prompt size goes into the context use only: how much of it the server had
    // cached, and how fast it read it, is not in the stream (no "reused/computed" line).
    if (m_usage) m_report.contextUsed = m_usage->prompt_tokens + m_usage->completion_tokens;
    if (m_firstNs >= 0) {
        m_report.timeToFirstTokenMs = static_cast<double>(m_firstNs) / 1e6;
        const double seconds = static_cast<double>(m_clock.nsecsElapsed() - m_firstNs) / 1e9;
        if (seconds > 0 && m_report.generatedTokens > 1)
            m_report.tokensPerSecond = static_cast<double>(m_report.generatedTokens) / seconds;
    }
}

void RemoteEngine::onFinished() {
    QNetworkReply* reply = m_reply;
    if (!reply) return;
    onReadyRead();  // anything still buffered
    if (m_status == 0)
        m_status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QString tail = QString::fromStdString(m_joiner.finish());
    if (!tail.isEmpty()) {
        m_text += tail;
        emit tokens(m_id, tail);
    }
    fillReport();
    const qint64 id = m_id;
    const QString text = m_text;
    GenerationReport report = m_report;
    const QString url = m_target.baseUrl;
    const QString networkError = describeNetworkFailure(reply, url);
    const bool stopping = m_stopping;
    end();

    if (stopping) {
        report.stopReason = QStringLiteral("stopped");
        emit finished(id, text, report);
        return;
    }
    if (m_status != 0 && m_status != 200) {
        emit failed(id, QString::fromStdString(openai::describe_http_error(
                            m_status, std::string_view(m_errorBody.data(), m_errorBody.size()))));
        return;
    }
    QString problem;
    if (!m_streamError.isEmpty())
        problem = tr("The server reported an error: %1").arg(m_streamError);
    else if (!networkError.isEmpty() && !m_done)
        problem = networkError;
    else if (!m_done && m_finish.isEmpty())
        problem = tr("The stream from %1 ended before the reply was complete.").arg(url);
    if (problem.isEmpty()) {
        report.stopReason = stopReasonOf(m_finish);
        emit finished(id, text, report);
    } else if (!text.trimmed().isEmpty()) {
        // The reply so far is kept, marked interrupted; Continue writes on from its end.
        report.stopReason = QStringLiteral("interrupted");
        report.interruption = problem;
        emit finished(id, text, report);
    } else {
        emit failed(id, problem);
    }
}

void RemoteEngine::end() {
    m_stopPoll.stop();
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->deleteLater();
    }
    m_reply = nullptr;
    m_stopping = false;
}

}  // namespace hearth::app
