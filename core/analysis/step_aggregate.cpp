#include "core/analysis/step_aggregate.h"

#include <algorithm>
#include <map>
#include <set>

namespace xt::analysis {

namespace {
constexpr const char* kFieldNames[] = {"count", "nan",  "inf", "zeros", "min",
                                       "max",   "mean", "std", "l2"};
} // namespace

std::optional<StatField> parseStatField(std::string_view name) {
    for (int i = 0; i < int(std::size(kFieldNames)); ++i)
        if (name == kFieldNames[i]) return StatField(i);
    return std::nullopt;
}

const char* statFieldName(StatField f) {
    return kFieldNames[int(f)];
}

std::optional<double> statValue(const TensorStats& s, StatField f) {
    switch (f) {
    case StatField::Count:
        return double(s.count);
    case StatField::Nan:
        return double(s.nan);
    case StatField::Inf:
        return double(s.inf);
    case StatField::Zeros:
        return double(s.zeros);
    default:
        break;
    }
    if (!s.hasFinite()) return std::nullopt;
    switch (f) {
    case StatField::Min:
        return s.min;
    case StatField::Max:
        return s.max;
    case StatField::Mean:
        return s.mean;
    case StatField::Std:
        return s.std;
    default:
        return s.l2;
    }
}

std::vector<StepAggregate> aggregateSteps(const std::vector<KeySeries>& series,
                                          std::string_view key, StatField field,
                                          std::vector<int> allRanks) {
    // gstep -> rank -> value (nullopt: recorded without a finite value).
    std::map<std::int64_t, std::map<int, std::optional<double>>> byStep;
    std::set<int> present;
    for (const auto& s : series) {
        if (!key.empty() && s.key != key) continue;
        present.insert(s.rank);
        for (const auto& r : s.records)
            byStep[r.gstep][s.rank] = statValue(r.stats, field);
    }
    if (allRanks.empty()) allRanks.assign(present.begin(), present.end());
    std::sort(allRanks.begin(), allRanks.end());
    allRanks.erase(std::unique(allRanks.begin(), allRanks.end()), allRanks.end());

    std::vector<StepAggregate> out;
    out.reserve(byStep.size());
    for (const auto& [g, values] : byStep) {
        StepAggregate a;
        a.gstep = g;
        double sum = 0;
        for (int r : allRanks) {
            auto it = values.find(r);
            if (it == values.end()) {
                a.missingRanks.push_back(r);
                continue;
            }
            if (!it->second) {
                a.noValueRanks.push_back(r);
                continue;
            }
            const double v = *it->second;
            if (a.ranks == 0 || v < a.min) {
                a.min = v;
                a.minRank = r;
            }
            if (a.ranks == 0 || v > a.max) {
                a.max = v;
                a.maxRank = r;
            }
            sum += v;
            ++a.ranks;
        }
        if (a.ranks) {
            a.mean = sum / a.ranks;
            a.spread = a.max - a.min;
        }
        out.push_back(std::move(a));
    }
    return out;
}

} // namespace xt::analysis
