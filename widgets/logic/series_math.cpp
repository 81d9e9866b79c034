#include "widgets/logic/series_math.h"

#include <algorithm>
#include <cmath>

namespace xt::view {

double xOf(const analysis::RecordStats& r, XAxisMode mode) {
    switch (mode) {
    case XAxisMode::Gstep:
        return double(r.gstep);
    case XAxisMode::Lstep:
        return double(r.lstep);
    case XAxisMode::WallTime:
        return double(r.timestamp) / 1000.0;
    }
    return double(r.gstep);
}

XYSeries decimateMinMax(std::span<const double> x, std::span<const double> y, std::size_t buckets) {
    XYSeries out;
    const std::size_t n = std::min(x.size(), y.size());
    if (buckets == 0 || n <= 2 * buckets) {
        for (std::size_t i = 0; i < n; ++i)
            if (!std::isnan(y[i])) {
                out.x.push_back(x[i]);
                out.y.push_back(y[i]);
            }
        return out;
    }
    const double x0 = x.front(), span = x[n - 1] - x.front();
    out.x.reserve(2 * buckets + 2);
    out.y.reserve(2 * buckets + 2);
    std::size_t i = 0;
    for (std::size_t b = 0; b < buckets && i < n; ++b) {
        // The bucket's points: up to the first x past its upper edge (all the rest for the last).
        std::size_t end = n;
        if (b + 1 != buckets) {
            const double hi = x0 + span * double(b + 1) / double(buckets);
            end = i;
            while (end < n && x[end] <= hi)
                ++end;
        }
        // Its first lowest and highest values (NaN skipped), kept in registers.
        std::size_t k = i;
        while (k < end && std::isnan(y[k]))
            ++k;
        if (k == end) {
            i = end;
            continue;
        }
        std::size_t lo = k, hiIdx = k;
        double lowest = y[k], highest = y[k];
        for (++k; k < end; ++k) {
            const double v = y[k];
            if (v < lowest) {
                lowest = v;
                lo = k;
            }
            if (v > highest) {
                highest = v;
                hiIdx = k;
            }
        }
        i = end;
        const std::size_t first = std::min(lo, hiIdx), second = std::max(lo, hiIdx);
        out.x.push_back(x[first]);
        out.y.push_back(y[first]);
        if (second != first) {
            out.x.push_back(x[second]);
            out.y.push_back(y[second]);
        }
    }
    return out;
}

SeriesSpan visibleSlice(const XYSeries& s, double lo, double hi) {
    auto b = std::lower_bound(s.x.begin(), s.x.end(), lo);
    auto e = std::upper_bound(s.x.begin(), s.x.end(), hi);
    if (b != s.x.begin()) --b;
    if (e != s.x.end()) ++e;
    const auto i0 = std::size_t(b - s.x.begin()), n = std::size_t(e - b);
    return {std::span(s.x).subspan(i0, n), std::span(s.y).subspan(i0, n)};
}

std::vector<double> emaDebiased(const std::vector<double>& y, double weight) {
    std::vector<double> out(y.size(), std::nan(""));
    double s = 0, correction = 1;
    for (std::size_t i = 0; i < y.size(); ++i) {
        if (!std::isfinite(y[i])) continue;
        s = weight * s + (1 - weight) * y[i];
        correction *= weight;
        out[i] = correction < 1 ? s / (1 - correction) : y[i];
    }
    return out;
}

} // namespace xt::view
