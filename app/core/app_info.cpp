#include "app_info.h"

#include <QStringList>
#include <QtGlobal>

#include "hearth/engine.h"
#include "hearth/version.h"

AppInfo::AppInfo(QString dataDir, QObject* parent) : QObject(parent), m_dataDir(std::move(dataDir)) {}

QString AppInfo::version() const { return QStringLiteral(HEARTH_VERSION); }
QString AppInfo::gitCommit() const { return QStringLiteral(HEARTH_GIT_COMMIT); }
QString AppInfo::buildType() const { return QStringLiteral(HEARTH_BUILD_TYPE); }
QString AppInfo::compiler() const { return QStringLiteral(HEARTH_COMPILER); }
QString AppInfo::qtVersion() const { return QString::fromLatin1(qVersion()); }

QString AppInfo::backendsBuilt() const {
    QStringList parts{QStringLiteral("CPU")};
    if (HEARTH_HAVE_VULKAN_BUILD) parts << QStringLiteral("Vulkan");
    if (HEARTH_HAVE_CUDA_BUILD) parts << QStringLiteral("CUDA");
    return parts.join(QStringLiteral(", "));
}

QString AppInfo::backendsFound() const {
    QStringList lines;
    for (const hearth::BackendReport& b : hearth::available_backends()) {
        const QString why = b.used             ? tr("the automatic choice")
                            : b.reason.empty() ? tr("usable")
                                               : QString::fromStdString(b.reason);
        lines << QStringLiteral("%1: %2").arg(QString::fromStdString(b.name), why);
    }
    return lines.join(QLatin1Char('\n'));
}

QString AppInfo::versionLine() const {
    return QStringLiteral("%1 %2 (commit %3, %4 build, %5, Qt %6)")
        .arg(name(), version(), gitCommit(), buildType(), compiler(), qtVersion());
}
