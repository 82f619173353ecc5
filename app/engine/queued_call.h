// Calls and signals between the app's threads (GUI, engine, database), made visible to
// ThreadSanitizer. Qt hands a queued call or a queued signal's arguments to the other thread
// through its event queue, whose lock lives in libQt6Core; Debian's Qt is not built with
// -fsanitize=thread, so TSan cannot see that what the sender built happens before the
// receiver reads and frees it, and reports a race on every queued call. In a TSan build a
// fence of our own (an instrumented mutex) is held while posting and taken once by the
// receiver before it runs, a real edge TSan can see. In other builds QueuedFence is empty and
// postQueued is exactly QMetaObject::invokeMethod(target, fn, Qt::QueuedConnection).
//
//   postQueued(target, fn)   runs fn on target's thread from its event loop
//   callAndWait(target, fn)  the same, and waits for it (shutdown); unlike
//                            Qt::BlockingQueuedConnection its wait is visible to TSan
//   QueuedFence              held around an emit of a cross-thread signal (sender side) and
//                            taken in the receiver's event() for QEvent::MetaCall
#pragma once

#include <QMetaObject>
#include <QObject>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <utility>

namespace hearth::app {

class QueuedFence {
public:
#if defined(__SANITIZE_THREAD__)
    QueuedFence() {
        mutex().lock();
    }
    ~QueuedFence() {
        mutex().unlock();
    }
#else
    QueuedFence() {}  // user-provided, so a fence that does nothing is not "unused"
    ~QueuedFence() {}
#endif
    QueuedFence(const QueuedFence&) = delete;
    QueuedFence& operator=(const QueuedFence&) = delete;

private:
#if defined(__SANITIZE_THREAD__)
    // Recursive: a direct (same-thread) slot run inside a fenced emit may post in turn.
    static std::recursive_mutex& mutex() {
        static std::recursive_mutex m;
        return m;
    }
#endif
};

template <class F>
void postQueued(QObject* target, F&& fn) {
    const QueuedFence posting;
    QMetaObject::invokeMethod(
        target,
        [fn = std::forward<F>(fn)]() mutable {
            { const QueuedFence seen; }
            fn();
        },
        Qt::QueuedConnection);
}

template <class F>
void callAndWait(QObject* target, F&& fn) {
    struct Done {
        std::mutex m;
        std::condition_variable cv;
        bool done = false;
    };
    auto state = std::make_shared<Done>();
    postQueued(target, [state, &fn] {
        fn();
        std::lock_guard lock(state->m);
        state->done = true;
        state->cv.notify_one();
    });
    std::unique_lock lock(state->m);
    state->cv.wait(lock, [&] { return state->done; });
}

}  // namespace hearth::app
