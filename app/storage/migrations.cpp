#include "migrations.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>

#include "sqlite_db.h"
#include "transaction.h"

namespace hearth::storage {
namespace {

constexpr const char* kResourceDir = ":/hearth/storage/migrations";

Result<std::vector<Migration>> loadMigrations() {
    static const QRegularExpression pattern(QStringLiteral("^(\\d{4})_[a-z0-9_]+\\.sql$"));
    QDir dir(QString::fromLatin1(kResourceDir));
    const QStringList files = dir.entryList(QDir::Files, QDir::Name);
    std::vector<Migration> steps;
    for (const QString& file : files) {
        const auto match = pattern.match(file);
        if (!match.hasMatch()) {
            return Result<std::vector<Migration>>::error("unexpected migration file name " +
                                                         file.toStdString());
        }
        QFile f(dir.filePath(file));
        if (!f.open(QIODevice::ReadOnly)) {
            return Result<std::vector<Migration>>::error("cannot read migration " +
                                                         file.toStdString());
        }
        const int version = match.captured(1).toInt();
        if (version != int(steps.size()) + 1) {
            return Result<std::vector<Migration>>::error(
                "migrations are not numbered 1..N without gaps at " + file.toStdString());
        }
        steps.push_back({version, file, QString::fromUtf8(f.readAll())});
    }
    if (steps.empty()) {
        return Result<std::vector<Migration>>::error(
            "no schema migrations found (resources not linked?)");
    }
    return steps;
}

Result<int> metaInt(Database& db, const char* key) {
    auto stmt = db.prepare("SELECT value FROM meta WHERE key = ?");
    if (!stmt) return stmt.status();
    stmt->bind(1, QString::fromLatin1(key));
    auto row = stmt->step();
    if (!row) return row.status();
    bool ok = false;
    const int value = *row ? stmt->text(0).toInt(&ok) : 0;
    if (!ok || value < 1) {
        return Result<int>::error(std::string("the database's schema ") + key +
                                  " is missing or invalid");
    }
    return value;
}

}  // namespace

Result<std::vector<Migration>> builtinMigrations() {
    return loadMigrations();
}

int latestSchemaVersion() {
    static const int latest = [] {
        auto steps = loadMigrations();
        return steps ? int(steps->size()) : 0;
    }();
    return latest;
}

std::string tooNewMessage(const SchemaVersion& found, int known) {
    return "This chat database was written by a newer version of Hearth (schema " +
           std::to_string(found.version) + ", needs at least " + std::to_string(found.compatible) +
           "; this version knows up to " + std::to_string(known) + "). Update Hearth to open it.";
}

Result<SchemaVersion> readSchemaVersion(Database& db) {
    auto tables = db.queryInt("SELECT count(*) FROM sqlite_master");
    if (!tables) return tables.status();
    if (*tables == 0) return SchemaVersion{};
    auto hasMeta =
        db.queryInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'");
    if (!hasMeta) return hasMeta.status();
    if (*hasMeta == 0) {
        return Result<SchemaVersion>::error(
            "The file is an SQLite database but not a Hearth chat database");
    }
    auto version = metaInt(db, "version");
    if (!version) return version.status();
    auto compatible = metaInt(db, "compatible_version");
    if (!compatible) return compatible.status();
    return SchemaVersion{*version, *compatible};
}

Result<int> migrate(Database& db, std::span<const Migration> steps, int target) {
    Transaction tx(db);
    if (!tx.begun()) return tx.begun();
    auto current = readSchemaVersion(db);
    if (!current) return current.status();
    if (current->compatible > target) {
        return Result<int>::error(tooNewMessage(*current, target));
    }
    int version = current->version;
    for (const Migration& step : steps) {
        if (step.version <= version) continue;
        if (step.version > target) break;
        if (step.version != version + 1) {
            return Result<int>::error("missing schema migration " + std::to_string(version + 1));
        }
        if (Status s = db.exec(step.sql); !s) {
            return Result<int>::error("Upgrading the chat database with " +
                                      step.name.toStdString() + " failed: " + s.message());
        }
        // Each file ends with its own version bump; check it did, so a step can't be re-run.
        auto reached = metaInt(db, "version");
        if (!reached) return reached.status();
        if (*reached != step.version) {
            return Result<int>::error(step.name.toStdString() +
                                      " did not set the schema version to " +
                                      std::to_string(step.version));
        }
        version = step.version;
    }
    if (version < target) {
        return Result<int>::error("no migration reaches schema " + std::to_string(target));
    }
    if (Status s = tx.commit(); !s) return s;
    return version;
}

}  // namespace hearth::storage
