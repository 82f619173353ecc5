// ChatController: the open chat's own settings (system prompt, sampling overrides) and the
// system prompt presets.
#include <QJsonObject>

#include "chat_controller.h"
#include "store_thread.h"

namespace hearth::app {

using hearth::storage::ChatStore;

void ChatController::loadChatSettings() {
    if (!m_ready || m_chatId == 0) {
        m_chatSettings = {
            {QStringLiteral("systemPrompt"),
             m_settings ? m_settings->value(QStringLiteral("systemPrompt")) : QString()}};
        emit chatSettingsChanged();
        return;
    }
    const qint64 id = m_chatId;
    m_store->run([id](ChatStore& s) { return s.chat(id); },
                 [this, id](const Result<hearth::storage::Chat>& chat) {
                     if (!chat || id != m_chatId) return;
                     QVariantMap m = chat->samplingOverrides.toVariantMap();
                     m[QStringLiteral("systemPrompt")] = chat->systemPrompt;
                     m_chatSettings = m;
                     emit chatSettingsChanged();
                 });
}

void ChatController::setChatSystemPrompt(const QString& text) {
    if (!m_ready || m_chatId == 0) return;
    const qint64 id = m_chatId;
    m_store->write([id, text](ChatStore& s) { return s.setSystemPrompt(id, text); });
    m_chatSettings[QStringLiteral("systemPrompt")] = text;
    emit chatSettingsChanged();
}

void ChatController::setChatSampling(const QString& key, const QVariant& value) {
    static const QStringList keys = {QStringLiteral("temperature"),   QStringLiteral("topK"),
                                     QStringLiteral("topP"),          QStringLiteral("minP"),
                                     QStringLiteral("repeatPenalty"), QStringLiteral("maxTokens")};
    if (!m_ready || m_chatId == 0 || !keys.contains(key)) return;
    if (value.isValid() && !value.isNull())
        m_chatSettings[key] = value.toDouble();
    else
        m_chatSettings.remove(key);  // back to the global setting
    QJsonObject overrides;
    for (const QString& k : keys)
        if (m_chatSettings.contains(k)) overrides[k] = m_chatSettings.value(k).toDouble();
    const qint64 id = m_chatId;
    m_store->write([id, overrides](ChatStore& s) { return s.setSamplingOverrides(id, overrides); });
    emit chatSettingsChanged();
}

void ChatController::refreshPresets() {
    if (!m_store) return;
    m_store->run([](ChatStore& s) { return s.listPresets(); },
                 [this](const Result<QList<hearth::storage::Preset>>& presets) {
                     if (!presets) return;
                     m_presets.clear();
                     for (const auto& p : *presets)
                         m_presets.append(QVariantMap{{QStringLiteral("name"), p.name},
                                                      {QStringLiteral("prompt"), p.prompt}});
                     emit presetsChanged();
                 });
}

void ChatController::savePreset(const QString& name, const QString& prompt) {
    if (!m_ready || name.simplified().isEmpty()) return;
    m_store->write([name, prompt](ChatStore& s) { return s.savePreset(name, prompt); });
    refreshPresets();
}

void ChatController::deletePreset(const QString& name) {
    if (!m_ready) return;
    m_store->write([name](ChatStore& s) { return s.deletePreset(name); });
    refreshPresets();
}

}  // namespace hearth::app
