// exportBackendCacheDir: the folder main() hands the backend plugins (HEARTH_CACHE_DIR) before
// any thread starts. The end-to-end check (a Vulkan load writes its pipeline cache there) is
// ChatControllerTest::vulkanBadgeNamesTheDevice.
#include <QDir>
#include <QStandardPaths>
#include <QTest>

#include "backend_cache.h"

class BackendCacheTest : public QObject {
    Q_OBJECT

private slots:
    void init() { qunsetenv("HEARTH_CACHE_DIR"); }

    void dataDirOptionKeepsTheCacheInside() {
        const QString dir = hearth::app::exportBackendCacheDir(QStringLiteral("/tmp/hearth-data"));
        QCOMPARE(dir, QStringLiteral("/tmp/hearth-data/cache"));
        QCOMPARE(qEnvironmentVariable("HEARTH_CACHE_DIR"), dir);
    }

    void relativeDataDirBecomesAbsolute() {
        const QString dir = hearth::app::exportBackendCacheDir(QStringLiteral("rel"));
        QCOMPARE(dir, QDir::current().filePath(QStringLiteral("rel/cache")));
    }

    void defaultIsThePlatformCacheLocation() {
        QStandardPaths::setTestModeEnabled(true);
        const QString expected = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
        QVERIFY(!expected.isEmpty());
        QCOMPARE(hearth::app::exportBackendCacheDir(QString()), expected);
        QCOMPARE(qEnvironmentVariable("HEARTH_CACHE_DIR"), expected);
        QStandardPaths::setTestModeEnabled(false);
    }

    void theUsersVariableWins() {
        qputenv("HEARTH_CACHE_DIR", "/somewhere/else");
        QCOMPARE(hearth::app::exportBackendCacheDir(QStringLiteral("/tmp/hearth-data")),
                 QStringLiteral("/somewhere/else"));
        QCOMPARE(qEnvironmentVariable("HEARTH_CACHE_DIR"), QStringLiteral("/somewhere/else"));
    }
};

QTEST_GUILESS_MAIN(BackendCacheTest)
#include "backend_cache_test.moc"
