#pragma once
// Human-readable numbers for the views: sizes, wall times, durations, step ranges, values.

#include <QString>
#include <cstdint>

namespace xt::widgets {

QString formatBytes(std::uint64_t bytes);            // "1.5 MB" (decimal units)
QString formatTimestampMs(std::int64_t ms);          // "2023-11-14 22:13:20.000" (UTC)
QString formatDurationMs(std::int64_t ms);           // "1h 2m 3.4s"
QString formatRange(std::int64_t a, std::int64_t b); // "3 .. 17", or "-" when unknown (-1)
QString formatValue(double v);                       // shortest exact-enough form, "nan", "inf"

} // namespace xt::widgets
