-- Schema 4: named system prompts ("presets") a chat's system prompt can be picked from.
CREATE TABLE system_prompt_presets (
    name TEXT PRIMARY KEY NOT NULL CHECK (length(trim(name)) > 0),
    prompt TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);

UPDATE meta SET value = '4' WHERE key = 'version';
