// `hearth --demo-chat`: seeds the data directory with one finished chat (Markdown, a table and
// a code block) so screenshots and manual checks can reach a filled chat view headless.
#pragma once

#include <QString>

namespace hearth::app {

// Returns the new chat's id, or 0 (and an error text) on failure.
qint64 seedDemoChat(const QString& dataDir, QString* error);

}  // namespace hearth::app
