#include "widgets/text_format.h"

#include <QDateTime>
#include <QTimeZone>
#include <cmath>

namespace xt::widgets {

QString formatBytes(std::uint64_t bytes) {
    static const char* const kUnits[] = {"B", "kB", "MB", "GB", "TB"};
    double v = double(bytes);
    int u = 0;
    while (v >= 1000 && u < 4) {
        v /= 1000;
        ++u;
    }
    return u == 0 ? QStringLiteral("%1 B").arg(bytes)
                  : QStringLiteral("%1 %2").arg(v, 0, 'f', v < 10 ? 2 : 1).arg(kUnits[u]);
}

QString formatTimestampMs(std::int64_t ms) {
    if (ms < 0) return QStringLiteral("-");
    return QDateTime::fromMSecsSinceEpoch(ms, QTimeZone::utc())
        .toString(QStringLiteral("yyyy-MM-dd hh:mm:ss.zzz"));
}

QString formatDurationMs(std::int64_t ms) {
    if (ms < 0) return QStringLiteral("-");
    const std::int64_t h = ms / 3600000, m = ms / 60000 % 60;
    const double s = double(ms % 60000) / 1000.0;
    if (h > 0) return QStringLiteral("%1h %2m %3s").arg(h).arg(m).arg(s, 0, 'f', 1);
    if (m > 0) return QStringLiteral("%1m %2s").arg(m).arg(s, 0, 'f', 1);
    return QStringLiteral("%1s").arg(s, 0, 'f', 3);
}

QString formatRange(std::int64_t a, std::int64_t b) {
    if (a < 0 && b < 0) return QStringLiteral("-");
    return QStringLiteral("%1 .. %2").arg(a).arg(b);
}

QString formatValue(double v) {
    if (std::isnan(v)) return QStringLiteral("nan");
    if (std::isinf(v)) return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return QString::number(v, 'g', 9);
}

} // namespace xt::widgets
