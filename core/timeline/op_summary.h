#pragma once
// Op summary like PyTorch's key_averages: per name (optionally name + category) the count,
// total, self (total minus the direct children on the same track, clipped to the parent),
// average, min and max duration. Restrictable to a time window and a set of tracks; sortable.

#include "core/timeline/trace_store.h"

#include <cstdint>
#include <vector>

namespace xt::timeline {

struct OpStat {
    StringId name = 0;
    StringId cat = 0; // 0 unless grouped by category
    std::uint64_t count = 0;
    std::int64_t totalNs = 0, selfNs = 0, minNs = 0, maxNs = 0;
    double avgNs() const { return count ? static_cast<double>(totalNs) / count : 0.0; }
};

enum class OpSortKey { Total, Self, Count, Avg, Min, Max, Name };

struct OpSummaryOptions {
    bool byCategory = false;
    // Slices starting in [t0, t1); kNoTime on either side means unbounded.
    std::int64_t t0 = kNoTime, t1 = kNoTime;
    std::vector<std::uint32_t> tracks; // empty: every track
    OpSortKey sortBy = OpSortKey::Total;
    bool descending = true;
    std::size_t limit = 0; // 0: all rows
};

std::vector<OpStat> opSummary(const TraceStore& store, const OpSummaryOptions& options = {});

} // namespace xt::timeline
