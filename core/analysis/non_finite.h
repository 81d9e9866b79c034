#pragma once
// Where NaN and Inf first appear: per key and rank, the first record with a NaN and the first
// with an Inf, from already computed statistics.

#include "core/analysis/key_stats.h"

#include <optional>
#include <vector>

namespace xt::analysis {

struct FirstOccurrence {
    std::size_t record = 0;
    std::int64_t gstep = 0, lstep = 0;
    std::uint64_t elements = 0; // NaN (or Inf) elements in that record
};

struct NonFiniteFirst {
    int rank = 0;
    std::string key;
    std::optional<FirstOccurrence> nan, inf;
};

// One entry per series that has a NaN or an Inf, in the order of `series`.
std::vector<NonFiniteFirst> findFirstNonFinite(const std::vector<KeySeries>& series);
// The same from the summaries of a run, without computing series or reading columns (from their
// totals; for runs too large to hold every key's series), by rank then the rank's key order.
// Parts without a summary are skipped.
std::vector<NonFiniteFirst> findFirstNonFinite(const xdl::RunReader& run,
                                               const summary::RunSummaries& summaries);

struct NonFiniteByKey {
    std::string key;
    std::optional<FirstOccurrence> nan, inf; // earliest by gstep over all ranks
    int nanRank = -1, infRank = -1;
};
// The same folded per key over ranks (earliest gstep; lowest rank on a tie).
std::vector<NonFiniteByKey> firstNonFiniteByKey(const std::vector<NonFiniteFirst>& perRank);

} // namespace xt::analysis
