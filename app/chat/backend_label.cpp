#include "backend_label.h"

#include <QCoreApplication>
#include <QStringList>

namespace hearth::app {

QString backendLabel(const QString& name) {
    if (name.startsWith(QLatin1String("cuda"))) return QStringLiteral("CUDA");
    if (name.startsWith(QLatin1String("vulkan"))) return QStringLiteral("Vulkan");
    if (name == QLatin1String("ref"))
        return QCoreApplication::translate("hearth::app::ChatController", "Reference device");
    return QStringLiteral("CPU");
}

QString badgeLabel(const QString& used, const QString& device) {
    const QString label = backendLabel(used);
    const bool cuda = used.startsWith(QLatin1String("cuda"));
    if (!cuda && !used.startsWith(QLatin1String("vulkan"))) return label;
    const QString accel = device.section(QStringLiteral(" + "), 0, 0);
    // A CUDA description's second field is the GPU's memory, which people want to see.
    const int fields = cuda ? 2 : 1;
    QStringList hardware = accel.split(QStringLiteral(" · ")).mid(0, fields);
    for (QString& f : hardware) f = f.trimmed();
    hardware.removeAll(QString());
    return hardware.isEmpty()
               ? label
               : label + QStringLiteral(" · ") + hardware.join(QStringLiteral(" · "));
}

}  // namespace hearth::app
