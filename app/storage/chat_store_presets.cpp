// ChatStore: named system prompts (schema 4).
#include "chat_store.h"
#include "sqlite_db.h"

namespace hearth::storage {

Result<QList<Preset>> ChatStore::listPresets() {
    auto stmt = m_db->prepare("SELECT name, prompt FROM system_prompt_presets ORDER BY name");
    if (!stmt) return stmt.status();
    QList<Preset> presets;
    for (;;) {
        auto row = stmt->step();
        if (!row) return row.status();
        if (!*row) break;
        presets.append({stmt->text(0), stmt->text(1)});
    }
    return presets;
}

Status ChatStore::savePreset(const QString& rawName, const QString& prompt) {
    const QString name = rawName.simplified();
    if (name.isEmpty()) return Status::error("A preset needs a name");
    auto stmt = m_db->prepare(
        "INSERT INTO system_prompt_presets (name, prompt, updated_at) VALUES (?1, ?2, ?3) "
        "ON CONFLICT (name) DO UPDATE SET prompt = excluded.prompt, "
        "updated_at = excluded.updated_at");
    if (!stmt) return stmt.status();
    return stmt->bind(1, name).bind(2, prompt).bind(3, nowMs()).run();
}

Status ChatStore::deletePreset(const QString& name) {
    auto stmt = m_db->prepare("DELETE FROM system_prompt_presets WHERE name = ?1");
    if (!stmt) return stmt.status();
    if (Status s = stmt->bind(1, name).run(); !s) return s;
    if (m_db->changes() == 0) return Status::error("No preset named " + name.toStdString());
    return Status::ok();
}

}  // namespace hearth::storage
