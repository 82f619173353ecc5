// StoreThread: the ChatStore on its own thread, so the GUI never waits for SQLite. Jobs run
// there in the order they were posted; each job's result comes back to `done` on the thread
// that owns this object (the GUI thread). Destroying it finishes every job already posted.
#pragma once

#include <QObject>
#include <QThread>

#include <memory>
#include <type_traits>

#include "chat_store.h"
#include "queued_call.h"

namespace hearth::app {

class StoreThread : public QObject {
    Q_OBJECT

public:
    explicit StoreThread(QObject* parent = nullptr);
    ~StoreThread() override;

    // Opens (or recovers) "<dataDir>/chats.db" on the DB thread. done(error, notice) runs on
    // this object's thread: error non-empty when nothing could be opened; notice non-empty
    // for something to tell (a damaged file moved aside, replies interrupted by a crash).
    void open(const QString& dataDir, std::function<void(QString, QString)> done);

    // Runs job(ChatStore&) on the DB thread, then done(result) here. Jobs posted before the
    // store is open (or when it failed to open) are dropped.
    template <class Job, class Done>
    void run(Job job, Done done) {
        using R = std::invoke_result_t<Job&, hearth::storage::ChatStore&>;
        postQueued(m_dbSide.get(), [this, job, done]() mutable {
            if (!m_store) return;
            R result = job(*m_store);
            postQueued(this, [done, result]() mutable { done(result); });
        });
    }
    // A job whose result nobody waits for (writes); failures are reported by writeFailed.
    void write(std::function<hearth::Status(hearth::storage::ChatStore&)> job);

signals:
    void writeFailed(const QString& message);

private:
    QThread m_thread;
    std::unique_ptr<QObject> m_dbSide;  // lives on m_thread; jobs are posted to it
    std::unique_ptr<hearth::storage::ChatStore> m_store;  // touched only on m_thread
};

}  // namespace hearth::app
