// The schema ladder: a database written at every earlier version, with data, upgrades to the
// same schema as a fresh one and keeps its data; newer databases are refused; a failing step
// rolls the whole upgrade back.
#include <QTemporaryDir>
#include <QTest>

#include "chat_store.h"
#include "migrations.h"
#include "sqlite_db.h"

using namespace hearth::storage;

namespace {

// Tables, indexes, triggers and their SQL, plus each table's columns: enough to tell two
// schemas apart.
QStringList schemaOf(Database& db) {
    QStringList out;
    QStringList tables;
    {
        auto stmt = db.prepare(
            "SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master "
            "ORDER BY type, name");
        if (!stmt) qFatal("%s", stmt.error_message().c_str());
        while (*stmt->step()) {
            out.append(stmt->text(0) + " " + stmt->text(1) + " on " + stmt->text(2) + ": " +
                       stmt->text(3));
            if (stmt->text(0) == "table") tables.append(stmt->text(1));
        }
    }
    for (const QString& table : tables) {
        auto stmt = db.prepare(
            "SELECT name, type, \"notnull\", coalesce(dflt_value, ''), pk "
            "FROM pragma_table_info(?1) ORDER BY cid");
        stmt->bind(1, table);
        while (*stmt->step()) {
            out.append(table + "." + stmt->text(0) + " " + stmt->text(1) + " notnull=" +
                       stmt->text(2) + " default=" + stmt->text(3) + " pk=" + stmt->text(4));
        }
    }
    return out;
}

std::unique_ptr<Database> openRaw(const QString& path) {
    auto db = Database::open(path, true);
    if (!db) qFatal("%s", db.error_message().c_str());
    if (!(*db)->exec("PRAGMA foreign_keys = ON")) qFatal("pragma");
    return std::move(*db);
}

// Data as an app at schema 1 wrote it (only schema-1 columns): two chats, one with a branch.
const char* kSchema1Data = R"sql(
INSERT INTO chats (id, title, created_at, updated_at, model_path, model_name, system_prompt)
VALUES (1, 'Old chat', 1000, 5000, '/m/tiny.gguf', 'tiny', 'Be kind.'),
       (2, 'Empty chat', 2000, 2000, '', '', '');
INSERT INTO messages (id, chat_id, parent_id, role, content, created_at, stats, status) VALUES
  (1, 1, NULL, 'user', 'Where do penguins live?', 1000, '{}', 'complete'),
  (2, 1, 1, 'assistant', 'Mostly in Antarctica.', 2000,
   '{"tokens_per_second":12.5,"stop_reason":"eos","generated_tokens":4}', 'complete'),
  (3, 1, 1, 'assistant', 'In the southern hemisphere.', 3000, '{}', 'complete'),
  (4, 1, 3, 'user', 'Which species is largest?', 4000, '{}', 'complete'),
  (5, 1, 4, 'assistant', 'The emperor pen', 5000, '{}', 'streaming');
)sql";

}  // namespace

class MigrationsTest : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::vector<Migration> m_steps;
    int m_n = 0;

    QString freshPath(const char* name) {
        const QString path = m_dir.filePath(QString::fromLatin1(name));
        for (const char* s : {"", "-wal", "-shm"}) QFile::remove(path + s);
        return path;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        auto steps = builtinMigrations();
        QVERIFY2(steps, (steps ? std::string() : steps.error_message()).c_str());
        m_steps = *steps;
        m_n = latestSchemaVersion();
    }

    void stepsAreNumberedAndEndWithTheirBump() {
        QVERIFY(m_n >= 3);
        QCOMPARE(int(m_steps.size()), m_n);
        for (int i = 0; i < m_n; ++i) {
            QCOMPARE(m_steps[i].version, i + 1);
            QVERIFY(m_steps[i].name.startsWith(QString::asprintf("%04d_", i + 1)));
            const QString tail = m_steps[i].sql.trimmed().split('\n').last();
            QVERIFY2(tail.contains(QString("'%1'").arg(i + 1)) && tail.contains("version"),
                     qPrintable(m_steps[i].name + ": " + tail));
        }
    }

    void upgradesFromEveryEarlierVersion_data() {
        QTest::addColumn<int>("from");
        for (int v = 0; v < m_n; ++v) QTest::addRow("from v%d", v) << v;
    }

    void upgradesFromEveryEarlierVersion() {
        QFETCH(int, from);
        const QString fresh = freshPath("fresh.db");
        {
            auto store = ChatStore::open(fresh);
            QVERIFY2(store, store.error.c_str());
            QCOMPARE(store.store->schemaVersion(), m_n);
        }
        const QString old = freshPath("old.db");
        {
            auto db = openRaw(old);
            auto reached = migrate(*db, m_steps, from);
            QVERIFY2(reached, (reached ? std::string() : reached.error_message()).c_str());
            QCOMPARE(*reached, from);
            QCOMPARE(readSchemaVersion(*db)->version, from);
            if (from >= 1) QVERIFY(db->exec(kSchema1Data));
            // A database already at v3 or later got its selection from the app, not the v3
            // backfill.
            if (from >= 3) QVERIFY(db->exec("UPDATE chats SET selected_leaf_id = 5 WHERE id = 1"));
        }

        auto opened = ChatStore::open(old);
        QVERIFY2(opened, opened.error.c_str());
        ChatStore& store = *opened.store;
        QCOMPARE(store.schemaVersion(), m_n);
        QCOMPARE(*store.integrityCheck(), QStringLiteral("ok"));

        {
            auto a = Database::open(fresh, false);
            auto b = Database::open(old, false);
            QVERIFY(a && b);
            QCOMPARE(schemaOf(**b), schemaOf(**a));
            QCOMPARE(readSchemaVersion(**b)->version, m_n);
            QCOMPARE(readSchemaVersion(**b)->compatible, readSchemaVersion(**a)->compatible);
        }
        if (from == 0) {
            QCOMPARE(store.listChats()->size(), 0);
            return;
        }

        // The data survived, and the later steps filled in what they added.
        auto chats = store.listChats();
        QVERIFY(chats);
        QCOMPARE(chats->size(), 2);
        const Chat& c = chats->at(0);
        QCOMPARE(c.title, QStringLiteral("Old chat"));
        QCOMPARE(c.modelName, QStringLiteral("tiny"));
        QCOMPARE(c.systemPrompt, QStringLiteral("Be kind."));
        QCOMPARE(c.createdAt.toMSecsSinceEpoch(), qint64(1000));
        QVERIFY(c.samplingOverrides.isEmpty());
        QCOMPARE(c.selectedLeafId, qint64(5));  // v3 backfill: the newest leaf
        auto path = store.selectedPath(1);
        QVERIFY(path);
        QCOMPARE(path->size(), 4);
        QCOMPARE(path->at(1).content, QStringLiteral("In the southern hemisphere."));
        QCOMPARE(path->at(1).siblingIndex, 1);
        QCOMPARE(path->at(1).siblingCount, 2);
        QCOMPARE(path->at(3).status, MessageStatus::Interrupted);  // left streaming
        QCOMPARE(store.interruptedOnOpen(), 1);
        auto first = store.message(2);
        QVERIFY(first);
        QCOMPARE(first->stats.tokensPerSecond, 12.5);
        QCOMPARE(first->stats.stopReason, QStringLiteral("eos"));
        QCOMPARE(store.chat(2)->selectedLeafId, qint64(0));

        // v2 indexed the messages written before the search table existed.
        auto hits = store.search("antarctica");
        QVERIFY(hits);
        QCOMPARE(hits->size(), 1);
        QCOMPARE(hits->at(0).messageId, qint64(2));

        // And the upgraded database takes new data.
        auto next = store.addMessage(1, 5, Role::User, "Thanks!");
        QVERIFY(next);
        QVERIFY(*next > 5);

        // v4: presets start empty and work after the upgrade.
        QVERIFY(store.listPresets()->isEmpty());
        QVERIFY(store.savePreset(QStringLiteral(" Terse "), QStringLiteral("Be brief.")));
        QVERIFY(store.savePreset(QStringLiteral("Terse"), QStringLiteral("Be very brief.")));
        QVERIFY(store.savePreset(QStringLiteral("Pirate"), QStringLiteral("Talk like a pirate.")));
        QVERIFY(!store.savePreset(QStringLiteral("  "), QStringLiteral("x")));
        auto presets = store.listPresets();
        QVERIFY(presets);
        QCOMPARE(presets->size(), 2);
        QCOMPARE(presets->at(1).name, QStringLiteral("Terse"));  // trimmed, replaced
        QCOMPARE(presets->at(1).prompt, QStringLiteral("Be very brief."));
        QVERIFY(store.deletePreset(QStringLiteral("Pirate")));
        QVERIFY(!store.deletePreset(QStringLiteral("Pirate")));
        QCOMPARE(store.listPresets()->size(), 1);
    }

    void refusesANewerDatabase() {
        const QString path = freshPath("newer.db");
        {
            auto store = ChatStore::open(path);
            QVERIFY(store);
            QVERIFY(store.store->createChat({"precious", {}, {}, {}, {}}));
        }
        {
            auto db = openRaw(path);
            const QString sql = QString(
                                    "UPDATE meta SET value = '%1' WHERE key IN ('version', "
                                    "'compatible_version')")
                                    .arg(m_n + 5);
            QVERIFY(db->exec(sql));
        }
        auto refused = ChatStore::open(path);
        QVERIFY(!refused);
        QCOMPARE(refused.failure, ChatStore::OpenFailure::TooNew);
        QVERIFY2(refused.error.find("newer version of Hearth") != std::string::npos,
                 refused.error.c_str());
        QVERIFY2(refused.error.find(std::to_string(m_n + 5)) != std::string::npos,
                 refused.error.c_str());

        // Recovery must not throw away a newer app's data.
        auto again = ChatStore::openOrRecover(path);
        QVERIFY(!again);
        QCOMPARE(again.failure, ChatStore::OpenFailure::TooNew);
        QVERIFY(again.movedAsidePath.isEmpty());
        auto db = Database::open(path, false);
        QVERIFY(db);
        QCOMPARE(*(*db)->queryInt("SELECT count(*) FROM chats WHERE title = 'precious'"), 1);

        // migrate() itself refuses too.
        QVERIFY(!migrate(**db, m_steps, m_n));
    }

    void opensANewerButCompatibleDatabase() {
        const QString path = freshPath("compatible.db");
        { QVERIFY(ChatStore::open(path)); }
        {
            auto db = openRaw(path);
            QVERIFY(db->exec(
                QString("UPDATE meta SET value = '%1' WHERE key = 'version'").arg(m_n + 1)));
        }
        auto store = ChatStore::open(path);
        QVERIFY2(store, store.error.c_str());
        QCOMPARE(store.store->schemaVersion(), m_n + 1);
        QVERIFY(store.store->createChat({"works", {}, {}, {}, {}}));
    }

    void aFailingStepRollsBackTheWholeUpgrade_data() {
        QTest::addColumn<int>("from");
        for (int v = 0; v < m_n; ++v) QTest::addRow("from v%d", v) << v;
    }

    void aFailingStepRollsBackTheWholeUpgrade() {
        QFETCH(int, from);
        const QString path = freshPath("broken.db");
        auto db = openRaw(path);
        QVERIFY(migrate(*db, m_steps, from));
        const QStringList before = schemaOf(*db);

        std::vector<Migration> steps = m_steps;
        steps.push_back({m_n + 1, "9999_broken.sql",
                         "ALTER TABLE chats ADD COLUMN doomed TEXT;\n"
                         "INSERT INTO no_such_table VALUES (1);\n"
                         "UPDATE meta SET value = '" +
                             QString::number(m_n + 1) + "' WHERE key = 'version';"});
        auto result = migrate(*db, steps, m_n + 1);
        QVERIFY(!result);
        QVERIFY2(result.error_message().find("9999_broken.sql") != std::string::npos,
                 result.error_message().c_str());
        QVERIFY2(result.error_message().find("no_such_table") != std::string::npos,
                 result.error_message().c_str());
        QVERIFY(!db->inTransaction());
        QCOMPARE(schemaOf(*db), before);  // not even the steps before the broken one stayed
        QCOMPARE(readSchemaVersion(*db)->version, from);
    }

    void aStepWithoutItsVersionBumpIsAnError() {
        const QString path = freshPath("nobump.db");
        auto db = openRaw(path);
        std::vector<Migration> steps(m_steps.begin(), m_steps.begin() + 1);
        steps.push_back({2, "0002_forgot.sql", "CREATE TABLE t (x);"});
        auto result = migrate(*db, steps, 2);
        QVERIFY(!result);
        QVERIFY2(result.error_message().find("did not set the schema version") != std::string::npos,
                 result.error_message().c_str());
        QCOMPARE(readSchemaVersion(*db)->version, 0);
    }

    void aForeignSqliteFileIsNotOursAndIsLeftAlone() {
        const QString path = freshPath("foreign.db");
        {
            auto db = openRaw(path);
            QVERIFY(db->exec("CREATE TABLE photos (id INTEGER PRIMARY KEY)"));
        }
        auto r = ChatStore::openOrRecover(path);
        QVERIFY(!r);
        QCOMPARE(r.failure, ChatStore::OpenFailure::Other);
        QVERIFY2(r.error.find("not a Hearth chat database") != std::string::npos, r.error.c_str());
        QVERIFY(r.movedAsidePath.isEmpty());
        QVERIFY(QFile::exists(path));
    }
};

QTEST_GUILESS_MAIN(MigrationsTest)
#include "migrations_test.moc"
