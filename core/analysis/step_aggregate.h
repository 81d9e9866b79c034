#pragma once
// Aggregates of one statistic across ranks, per global step. A rank that did not record a step
// is listed as missing for it, never averaged in as a zero.

#include "core/analysis/key_stats.h"

#include <optional>
#include <string_view>
#include <vector>

namespace xt::analysis {

enum class StatField { Count, Nan, Inf, Zeros, Min, Max, Mean, Std, L2 };
std::optional<StatField> parseStatField(std::string_view name); // "mean", "l2", ...
const char* statFieldName(StatField f);
// The field's value, or nullopt for min/max/mean/std/l2 without a finite element.
std::optional<double> statValue(const TensorStats& s, StatField f);

struct StepAggregate {
    std::int64_t gstep = 0;
    int ranks = 0; // ranks whose value entered the aggregate
    double mean = 0, min = 0, max = 0;
    double spread = 0;              // max - min
    int minRank = -1, maxRank = -1; // where min and max were seen
    std::vector<int> missingRanks;  // ranks without a record of this step
    std::vector<int> noValueRanks;  // ranks that recorded the step but have no finite value
};

// `series` holds one key's series of several ranks (other keys are ignored if `key` is set);
// `allRanks` is the set of ranks expected (empty = the ranks present in `series`).
// Several records of one gstep on one rank: the last one counts.
std::vector<StepAggregate> aggregateSteps(const std::vector<KeySeries>& series,
                                          std::string_view key, StatField field,
                                          std::vector<int> allRanks = {});

} // namespace xt::analysis
