#include "widgets/trace_time_format.h"

#include "widgets/text_format.h"

#include <cctype>
#include <cmath>
#include <string>

namespace xt::widgets {

QString formatTraceDuration(double ns) {
    const double a = std::fabs(ns);
    if (a < 1000) return QStringLiteral("%1 ns").arg(ns, 0, 'f', 0);
    if (a < 1e6) return QStringLiteral("%1 \u00b5s").arg(ns / 1e3, 0, 'f', 3);
    if (a < 1e9) return QStringLiteral("%1 ms").arg(ns / 1e6, 0, 'f', 3);
    return QStringLiteral("%1 s").arg(ns / 1e9, 0, 'f', 3);
}

QString formatTraceRange(std::int64_t t0, std::int64_t t1, std::int64_t origin) {
    return QStringLiteral("Range %1 \u2013 %2 (%3)")
        .arg(formatTraceDuration(double(t0 - origin)), formatTraceDuration(double(t1 - origin)),
             formatTraceDuration(double(t1 - t0)));
}

bool looksLikeBytes(std::string_view seriesName, std::string_view processName) {
    std::string s(seriesName);
    s += ' ';
    s += processName;
    for (char& c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    for (const char* w : {"mem", "byte", "alloc", "bfc", "heap", "rss", "vram"})
        if (s.find(w) != std::string::npos) return true;
    return false;
}

QString formatCounterValue(double v, bool bytes) {
    if (bytes && v >= 0 && std::isfinite(v) && v == std::floor(v) && v < 1.8e19)
        return formatBytes(static_cast<std::uint64_t>(v));
    return formatValue(v);
}

} // namespace xt::widgets
