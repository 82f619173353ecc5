-- Schema 1: chats and their messages as a tree (parent_id), so edits and regenerations keep
-- every branch. Timestamps are milliseconds since the Unix epoch, UTC.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE chats (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    title         TEXT    NOT NULL DEFAULT '',
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    model_path    TEXT    NOT NULL DEFAULT '',
    model_name    TEXT    NOT NULL DEFAULT '',
    system_prompt TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX chats_by_updated ON chats (updated_at);

CREATE TABLE messages (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id    INTEGER NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    parent_id  INTEGER REFERENCES messages (id) ON DELETE CASCADE,
    role       TEXT    NOT NULL CHECK (role IN ('system', 'user', 'assistant')),
    content    TEXT    NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    stats      TEXT    NOT NULL DEFAULT '{}',
    status     TEXT    NOT NULL DEFAULT 'complete'
               CHECK (status IN ('complete', 'streaming', 'interrupted'))
);
CREATE INDEX messages_by_chat ON messages (chat_id, parent_id);
CREATE INDEX messages_by_parent ON messages (parent_id);
CREATE INDEX messages_by_status ON messages (status) WHERE status <> 'complete';

-- compatible_version: the oldest schema an app must understand to use this file.
INSERT INTO meta (key, value) VALUES ('compatible_version', '1');
INSERT INTO meta (key, value) VALUES ('version', '1');
