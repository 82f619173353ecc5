-- Schema 3: per-chat sampling overrides, the selected branch (its leaf message), and a trash
-- (deleted_at) so deleting a chat can be undone until the trash is purged.
ALTER TABLE chats ADD COLUMN sampling_overrides TEXT NOT NULL DEFAULT '{}';
ALTER TABLE chats ADD COLUMN selected_leaf_id INTEGER
    REFERENCES messages (id) ON DELETE SET NULL;
ALTER TABLE chats ADD COLUMN deleted_at INTEGER;

-- Schema 1 chats had no selection: select the newest leaf of each.
UPDATE chats SET selected_leaf_id = (
    SELECT m.id FROM messages AS m
    WHERE m.chat_id = chats.id
      AND NOT EXISTS (SELECT 1 FROM messages AS c WHERE c.parent_id = m.id)
    ORDER BY m.id DESC LIMIT 1
);

CREATE INDEX chats_by_deleted ON chats (deleted_at) WHERE deleted_at IS NOT NULL;

UPDATE meta SET value = '3' WHERE key = 'version';
