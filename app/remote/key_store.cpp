#include "key_store.h"

#include <QtGlobal>

#if defined(HEARTH_HAVE_QTKEYCHAIN)
#include <qt6keychain/keychain.h>
#endif

namespace hearth::app {

namespace {
#if defined(HEARTH_HAVE_QTKEYCHAIN)
const QString kService = QStringLiteral("Hearth remote connections");
#endif
}  // namespace

KeyStore::KeyStore(QObject* parent) : QObject(parent) {}

bool KeyStore::compiledIn() {
#if defined(HEARTH_HAVE_QTKEYCHAIN)
    return qEnvironmentVariable("HEARTH_KEYCHAIN") != QLatin1String("off");
#else
    return false;
#endif
}

void KeyStore::write(const QString& id, const QString& key,
                     std::function<void(bool, const QString&)> done) {
#if defined(HEARTH_HAVE_QTKEYCHAIN)
    if (compiledIn()) {
        auto* job = new QKeychain::WritePasswordJob(kService, this);
        job->setAutoDelete(true);
        job->setKey(id);
        job->setTextData(key);
        connect(job, &QKeychain::Job::finished, this, [done](QKeychain::Job* j) {
            done(j->error() == QKeychain::NoError, j->errorString());
        });
        job->start();
        return;
    }
#else
    Q_UNUSED(id);
    Q_UNUSED(key);
#endif
    done(false, tr("Hearth was built without a credential store"));
}

void KeyStore::read(const QString& id,
                    std::function<void(bool, const QString&, const QString&)> done) {
#if defined(HEARTH_HAVE_QTKEYCHAIN)
    if (compiledIn()) {
        auto* job = new QKeychain::ReadPasswordJob(kService, this);
        job->setAutoDelete(true);
        job->setKey(id);
        connect(job, &QKeychain::Job::finished, this, [done](QKeychain::Job* j) {
            auto* r = static_cast<QKeychain::ReadPasswordJob*>(j);
            done(j->error() == QKeychain::NoError, r->textData(), j->errorString());
        });
        job->start();
        return;
    }
#else
    Q_UNUSED(id);
#endif
    done(false, {}, tr("Hearth was built without a credential store"));
}

void KeyStore::remove(const QString& id) {
#if defined(HEARTH_HAVE_QTKEYCHAIN)
    if (!compiledIn()) return;
    auto* job = new QKeychain::DeletePasswordJob(kService, this);
    job->setAutoDelete(true);
    job->setKey(id);
    job->start();
#else
    Q_UNUSED(id);
#endif
}

}  // namespace hearth::app
