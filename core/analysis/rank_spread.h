#pragma once
// One statistic of a key across many ranks, per global step: the median with the min..max
// range, and the ranks that stand out by a robust rule. At a step with at least three ranks, a
// rank's value x is an outlier when |x - median| > threshold * scale, where scale = 1.4826 * MAD
// (MAD = median of |x_i - median|; the modified z-score of Iglewicz and Hoaglin) or, when MAD is
// 0, 1.2533 * the mean absolute deviation from the median. A rank is an outlier rank when it is
// an outlier at no fewer than minShare of the steps it recorded (and at one at least).

#include "core/analysis/key_stats.h"
#include "core/analysis/step_aggregate.h"

#include <cstdint>
#include <string>
#include <vector>

namespace xt::analysis {

struct OutlierRule {
    double threshold = 3.5; // in robust standard deviations
    double minShare = 0.05; // of a rank's steps
};
// The rule in words, for legends: "outliers: |x - median| > 3.5 x 1.4826 MAD at >= 5% of steps".
std::string describeOutlierRule(const OutlierRule& rule);

struct RankSpreadStep {
    std::int64_t gstep = 0;
    int ranks = 0; // ranks with a value at this step
    double median = 0, min = 0, max = 0;
    double scale = 0; // 1.4826 * MAD, or the mean-deviation stand-in; 0 when every value is equal
};

struct OutlierRank {
    int rank = 0;
    int steps = 0;        // steps with a value
    int outlierSteps = 0; // steps at which the rank is an outlier
    double maxScore = 0;  // largest |x - median| / scale (infinite when scale is 0)
    std::int64_t firstOutlierStep = 0;
    double share() const { return steps ? double(outlierSteps) / steps : 0; }
};

struct RankSpread {
    std::vector<RankSpreadStep> steps; // by gstep
    std::vector<OutlierRank> outliers; // largest share first, then largest score
};

// `series`: one key's series of several ranks. A rank's last record of a gstep counts; records
// without a value of `field` (no finite element) are left out.
RankSpread rankSpread(const std::vector<const KeySeries*>& series, StatField field,
                      const OutlierRule& rule = {});
// (x - median) / scale at `step`: 0 at the median, +-infinity off it when scale is 0.
double robustScore(double x, const RankSpreadStep& step);

} // namespace xt::analysis
