// The schema version ladder. Each step is one SQL file (migrations/NNNN_name.sql, embedded as
// a Qt resource) that ends by bumping meta.version to NNNN. A database records two numbers:
// `version` (the schema it has) and `compatible_version` (the oldest schema an app must know to
// use it). An app refuses a database whose compatible_version is newer than it knows.
#pragma once

#include <QString>

#include <span>
#include <vector>

#include "hearth/result.h"

namespace hearth::storage {

class Database;

struct Migration {
    int version = 0;  // the schema this step produces
    QString name;     // file name, for error messages
    QString sql;
};

// The steps built into the app, ordered 1..N. Loading checks the numbering is contiguous.
Result<std::vector<Migration>> builtinMigrations();
// N: the newest schema this app knows.
int latestSchemaVersion();

struct SchemaVersion {
    int version = 0;  // 0: an empty file
    int compatible = 0;
};

// Reads meta; an empty database is version 0; tables without meta is not ours (an error).
Result<SchemaVersion> readSchemaVersion(Database& db);

// The message shown when a database is refused for being too new.
std::string tooNewMessage(const SchemaVersion& found, int known);

// Brings the database up to `target` with `steps` in one transaction: all steps or none.
// Refuses a database that is too new for `target`. Returns the version reached.
Result<int> migrate(Database& db, std::span<const Migration> steps, int target);

}  // namespace hearth::storage
