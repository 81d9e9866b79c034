#include "core/analysis/rank_spread.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

namespace xt::analysis {

namespace {

constexpr double kMadToSigma = 1.4826;    // 1 / Phi^-1(3/4)
constexpr double kMeanAdToSigma = 1.2533; // sqrt(pi / 2)
constexpr int kMinRanks = 3;              // fewer ranks have no majority to stand out from

struct Value {
    std::int64_t gstep;
    int rank; // index into the series
    double value;
};

double medianOf(std::vector<double>& v) {
    const std::size_t n = v.size(), mid = n / 2;
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(mid), v.end());
    const double upper = v[mid];
    if (n % 2) return upper;
    return (*std::max_element(v.begin(), v.begin() + std::ptrdiff_t(mid)) + upper) / 2;
}

} // namespace

std::string describeOutlierRule(const OutlierRule& rule) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "outliers: |x - median| > %g x 1.4826 MAD at >= %g%% of steps",
                  rule.threshold, rule.minShare * 100);
    return buf;
}

double robustScore(double x, const RankSpreadStep& step) {
    const double d = x - step.median;
    if (step.scale > 0) return d / step.scale;
    if (d == 0) return 0;
    return d > 0 ? std::numeric_limits<double>::infinity()
                 : -std::numeric_limits<double>::infinity();
}

RankSpread rankSpread(const std::vector<const KeySeries*>& series, StatField field,
                      const OutlierRule& rule) {
    std::vector<Value> values;
    std::size_t total = 0;
    for (const auto* s : series)
        total += s->records.size();
    values.reserve(total);
    for (int i = 0; i < int(series.size()); ++i)
        for (const auto& r : series[std::size_t(i)]->records)
            if (auto v = statValue(r.stats, field)) values.push_back({r.gstep, i, *v});
    // By step, then rank; a rank's later record of a step after its earlier ones.
    std::stable_sort(values.begin(), values.end(), [](const Value& a, const Value& b) {
        return a.gstep != b.gstep ? a.gstep < b.gstep : a.rank < b.rank;
    });

    RankSpread out;
    struct Tally {
        int steps = 0, outlierSteps = 0;
        double maxScore = 0;
        std::int64_t first = 0;
    };
    std::vector<Tally> tally(series.size());
    std::vector<double> scratch;
    std::vector<Value> group;
    for (std::size_t first = 0, end = 0; first < values.size(); first = end) {
        group.clear();
        for (end = first; end < values.size() && values[end].gstep == values[first].gstep; ++end)
            if (end + 1 == values.size() || values[end + 1].gstep != values[end].gstep ||
                values[end + 1].rank != values[end].rank)
                group.push_back(values[end]); // the rank's last record of the step
        RankSpreadStep step;
        step.gstep = values[first].gstep;
        step.ranks = int(group.size());
        scratch.clear();
        for (const Value& v : group)
            scratch.push_back(v.value);
        step.min = *std::min_element(scratch.begin(), scratch.end());
        step.max = *std::max_element(scratch.begin(), scratch.end());
        step.median = medianOf(scratch);
        double meanAd = 0;
        for (std::size_t i = 0; i < group.size(); ++i) {
            scratch[i] = std::abs(group[i].value - step.median);
            meanAd += scratch[i];
        }
        meanAd /= double(group.size());
        const double mad = medianOf(scratch);
        step.scale = mad > 0 ? kMadToSigma * mad : kMeanAdToSigma * meanAd;
        for (const Value& v : group) {
            Tally& t = tally[std::size_t(v.rank)];
            ++t.steps;
            if (step.ranks < kMinRanks) continue;
            const double score = std::abs(robustScore(v.value, step));
            if (score > rule.threshold) {
                if (t.outlierSteps++ == 0) t.first = step.gstep;
                t.maxScore = std::max(t.maxScore, score);
            }
        }
        out.steps.push_back(step);
    }
    for (std::size_t i = 0; i < series.size(); ++i) {
        const Tally& t = tally[i];
        if (t.outlierSteps == 0 || double(t.outlierSteps) < rule.minShare * double(t.steps))
            continue;
        out.outliers.push_back({series[i]->rank, t.steps, t.outlierSteps, t.maxScore, t.first});
    }
    std::stable_sort(out.outliers.begin(), out.outliers.end(),
                     [](const OutlierRank& a, const OutlierRank& b) {
                         if (a.share() != b.share()) return a.share() > b.share();
                         return a.maxScore > b.maxScore;
                     });
    return out;
}

} // namespace xt::analysis
