#include "store_thread.h"

#include <QDir>

namespace hearth::app {

using hearth::storage::ChatStore;

StoreThread::StoreThread(QObject* parent) : QObject(parent), m_dbSide(std::make_unique<QObject>()) {
    m_thread.setObjectName(QStringLiteral("hearth-db"));
    m_dbSide->moveToThread(&m_thread);
    m_thread.start();
}

StoreThread::~StoreThread() {
    // Runs after every job posted before; the store closes on its own thread.
    callAndWait(m_dbSide.get(), [this] { m_store.reset(); });
    m_thread.quit();
    m_thread.wait();
}

void StoreThread::open(const QString& dataDir, std::function<void(QString, QString)> done) {
    postQueued(m_dbSide.get(), [this, dataDir, done] {
        QDir().mkpath(dataDir);
        auto opened = ChatStore::openOrRecover(ChatStore::databasePath(dataDir));
        QString error, notice;
        if (!opened) {
            error = tr("The chat history could not be opened: %1")
                        .arg(QString::fromStdString(opened.error));
        } else {
            if (!opened.movedAsidePath.isEmpty())
                notice = tr("The chat history was damaged and has been moved to %1; a new one "
                            "was started.")
                             .arg(opened.movedAsidePath);
            else if (opened.store->interruptedOnOpen() > 0)
                notice =
                    tr("%n reply(s) were interrupted when Hearth last closed; their text "
                       "up to then was kept.",
                       nullptr, opened.store->interruptedOnOpen());
            opened.store->purgeExpiredTrash();  // chats in the trash over 30 days
            m_store = std::move(opened.store);
        }
        postQueued(this, [done, error, notice] { done(error, notice); });
    });
}

void StoreThread::write(std::function<hearth::Status(ChatStore&)> job) {
    run(std::move(job), [this](const hearth::Status& s) {
        if (!s) emit writeFailed(QString::fromStdString(s.message()));
    });
}

}  // namespace hearth::app
