// libFuzzer target: chat files through the app's import, the path "Import chat…" takes:
// parseChatJson, then importChat into a real SQLite ChatStore. Nothing may crash; a file the
// parser accepts must import, and what was stored must export and parse back to the same
// messages (role, text, status, statistics and tree shape). Each imported chat is trashed and
// purged again, and the database passes PRAGMA integrity_check every 4096 imports.
#include <QByteArray>
#include <QCoreApplication>
#include <QDir>
#include <QHash>
#include <QTemporaryDir>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "chat_export.h"
#include "chat_store.h"

namespace {

using hearth::app::ImportedChat;
using hearth::storage::ChatStore;
using hearth::storage::Message;

struct State {
    QTemporaryDir dir;
    std::unique_ptr<ChatStore> store;
    uint64_t imports = 0;
};

State& state() {
    static State* s = [] {
        auto* st = new State();
        auto opened = ChatStore::open(ChatStore::databasePath(st->dir.path()));
        if (!opened) {
            std::fprintf(stderr, "fuzz setup: %s\n", opened.error.c_str());
            std::abort();
        }
        st->store = std::move(opened.store);
        return st;
    }();
    return *s;
}

// The tree as (role, text, status, index of the parent in the list or -1): ids differ between
// the file and the store, so parents are compared by position.
struct Shape {
    QList<int> roles, statuses, parents;
    QStringList texts;
    QList<hearth::storage::GenerationStats> stats;
    bool operator==(const Shape&) const = default;
};

Shape shape_of(const QList<Message>& messages) {
    Shape s;
    QHash<qint64, int> index;
    for (const Message& m : messages) {
        s.roles.append(int(m.role));
        s.statuses.append(int(m.status));
        s.texts.append(m.content);
        s.stats.append(m.stats);
        s.parents.append(m.parentId == 0 ? -1 : index.value(m.parentId, -2));
        index.insert(m.id, int(index.size()));
    }
    return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    State& s = state();
    const auto bytes =
        QByteArray::fromRawData(reinterpret_cast<const char*>(data), qsizetype(size));
    auto parsed = hearth::app::parseChatJson(bytes);
    if (!parsed) return 0;
    auto id = hearth::app::importChat(*s.store, *parsed);
    if (!id) {
        std::fprintf(stderr, "parsed but not imported: %s\n", id.error_message().c_str());
        __builtin_trap();
    }
    auto chat = s.store->chat(*id);
    auto all = s.store->allMessages(*id);
    if (!chat || !all || all->size() != parsed->messages.size()) __builtin_trap();
    auto again = hearth::app::parseChatJson(hearth::app::chatTreeToJson(*chat, *all));
    if (!again || shape_of(again->messages) != shape_of(*all)) __builtin_trap();
    if (!s.store->deleteChat(*id) || !s.store->purgeChat(*id)) __builtin_trap();
    if (++s.imports % 4096 == 0) {
        auto verdict = s.store->integrityCheck();
        if (!verdict || *verdict != QLatin1String("ok")) __builtin_trap();
    }
    return 0;
}
