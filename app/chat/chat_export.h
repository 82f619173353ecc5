// A chat's selected branch as Markdown or JSON, for Export.
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include "chat_types.h"

namespace hearth::app {

QString chatToMarkdown(const hearth::storage::Chat& chat,
                       const QList<hearth::storage::Message>& messages);
// {"title", "model", "created", "systemPrompt", "messages": [{"role", "content", "created",
// "stats"?}]}
QByteArray chatToJson(const hearth::storage::Chat& chat,
                      const QList<hearth::storage::Message>& messages);
// Writes the export to path; format "markdown" or "json". Returns an error text, or empty.
QString writeChatExport(const hearth::storage::Chat& chat,
                        const QList<hearth::storage::Message>& messages, const QString& path,
                        const QString& format);

}  // namespace hearth::app
