#pragma once
// Text for timeline times in the analysis panels: durations in ns / µs / ms / s with three
// decimals, trace-relative ranges, and counter values (bytes when the series looks like memory).

#include <QString>
#include <cstdint>
#include <string_view>

namespace xt::widgets {

// "0 ns", "812 ns", "12.345 µs", "1.234 ms", "3.456 s"; negative values keep their sign.
QString formatTraceDuration(double ns);
// "Range 1.234 ms – 5.678 ms (4.444 ms)": t0 and t1 relative to `origin` (the trace begin).
QString formatTraceRange(std::int64_t t0, std::int64_t t1, std::int64_t origin);
// A counter series holds bytes when its name or its process's name says memory/bytes/alloc.
bool looksLikeBytes(std::string_view seriesName, std::string_view processName);
// "80.06 MB" for byte series (non-negative whole values), else the plain number.
QString formatCounterValue(double v, bool bytes);

} // namespace xt::widgets
