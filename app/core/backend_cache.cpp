#include "backend_cache.h"

#include <QDir>
#include <QStandardPaths>

namespace hearth::app {

QString exportBackendCacheDir(const QString& dataDirOption) {
    const QString set = qEnvironmentVariable("HEARTH_CACHE_DIR");
    if (!set.isEmpty()) return set;
    const QString dir =
        dataDirOption.isEmpty()
            ? QStandardPaths::writableLocation(QStandardPaths::CacheLocation)
            : QDir(QDir(dataDirOption).absolutePath()).filePath(QStringLiteral("cache"));
    if (!dir.isEmpty()) qputenv("HEARTH_CACHE_DIR", QDir::toNativeSeparators(dir).toLocal8Bit());
    return dir;
}

}  // namespace hearth::app
