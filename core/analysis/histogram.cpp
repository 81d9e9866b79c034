#include "core/analysis/histogram.h"

#include "core/analysis/bin_math.h"

#include <charconv>
#include <cmath>
#include <string>

namespace xt::analysis {

std::vector<double> BinLayout::edges() const {
    const BinParams p = BinParams::from(*this);
    std::vector<double> e(std::size_t(bins) + 1);
    for (int i = 0; i <= bins; ++i) {
        const double u = double(i) * p.step + p.ulo;
        if (scale == BinScale::Linear) {
            e[std::size_t(i)] = u;
        } else {
            const double a = linthresh * (std::pow(10.0, std::fabs(u)) - 1.0);
            e[std::size_t(i)] = u < 0 ? -a : a;
        }
    }
    e.front() = lo;
    e.back() = hi;
    return e;
}

int BinLayout::binOf(double x) const {
    const BinParams p = BinParams::from(*this);
    return binOfTransformed(p, transform(x));
}

Result<BinLayout> makeBinLayout(const HistogramOptions& o, const TensorStats& data) {
    if (o.bins < 1 || o.bins > kMaxBins)
        return Status(ErrorCode::InvalidArgument,
                      "bin count must be in 1.." + std::to_string(kMaxBins));
    if (o.lo.has_value() != o.hi.has_value())
        return Status(ErrorCode::InvalidArgument, "a range needs both ends");
    if (o.scale == BinScale::SymLog && !(o.linthresh > 0 && std::isfinite(o.linthresh)))
        return Status(ErrorCode::InvalidArgument, "symlog linthresh must be finite and > 0");
    BinLayout l;
    l.bins = o.bins;
    l.scale = o.scale;
    l.linthresh = o.linthresh;
    if (o.lo) {
        if (!std::isfinite(*o.lo) || !std::isfinite(*o.hi) || !(*o.lo < *o.hi))
            return Status(ErrorCode::InvalidArgument, "range needs finite LO < HI");
        l.lo = *o.lo;
        l.hi = *o.hi;
    } else if (data.hasFinite()) {
        l.lo = data.min;
        l.hi = data.max;
        if (l.lo == l.hi) { // numpy.histogram's rule for a single value
            l.lo -= 0.5;
            l.hi += 0.5;
        }
    } else {
        l.lo = 0;
        l.hi = 1;
    }
    return l;
}

Status parseRange(std::string_view text, double& lo, double& hi) {
    const auto colon = text.find(':');
    auto parse = [](std::string_view s, double& v) {
        if (s.empty()) return false;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        return ec == std::errc() && p == s.data() + s.size();
    };
    if (colon == std::string_view::npos || !parse(text.substr(0, colon), lo) ||
        !parse(text.substr(colon + 1), hi))
        return Status(ErrorCode::InvalidArgument,
                      "range must be LO:HI, got '" + std::string(text) + "'");
    if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi))
        return Status(ErrorCode::InvalidArgument, "range needs finite LO < HI");
    return Status::ok();
}

std::uint64_t Histogram::binned() const {
    std::uint64_t n = 0;
    for (auto c : counts)
        n += c;
    return n;
}

void Histogram::merge(const Histogram& o) {
    for (std::size_t i = 0; i < counts.size() && i < o.counts.size(); ++i)
        counts[i] += o.counts[i];
    nan += o.nan;
    posInf += o.posInf;
    negInf += o.negInf;
    below += o.below;
    above += o.above;
}

} // namespace xt::analysis
