#pragma once
// Trace diff of two op summaries (like HTA's trace_diff): per op name (optionally name +
// category) the baseline ("A") and candidate ("B") count, total, self and average duration, with
// their deltas and the relative change of the total. Ops seen on one side only are flagged.
// The stores may be two traces or the same trace twice with different time windows, so
// "step N against step M" is a diff of two step windows (findStepWindow). Names are matched by
// text: the two stores intern their strings independently.

#include "core/timeline/op_summary.h"
#include "core/timeline/trace_store.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xt::timeline {

// Slices starting in [t0, t1); kNoTime on either side means unbounded.
struct TimeWindow {
    std::int64_t t0 = kNoTime, t1 = kNoTime;
    bool whole() const { return t0 == kNoTime && t1 == kNoTime; }
};

enum class OpPresence { Both, OnlyBaseline, OnlyCandidate };
const char* opPresenceName(OpPresence p); // "both", "only_a", "only_b"

struct OpDiffRow {
    std::string name;
    std::string cat; // empty unless grouped by category
    OpPresence presence = OpPresence::Both;
    std::uint64_t countA = 0, countB = 0;
    std::int64_t totalA = 0, totalB = 0, selfA = 0, selfB = 0; // ns
    double avgA = 0, avgB = 0;                                 // ns

    std::int64_t countDelta() const {
        return static_cast<std::int64_t>(countB) - static_cast<std::int64_t>(countA);
    }
    std::int64_t totalDelta() const { return totalB - totalA; }
    std::int64_t selfDelta() const { return selfB - selfA; }
    double avgDelta() const { return avgB - avgA; }
    // (totalB - totalA) / totalA; nullopt when the baseline total is zero (op only in B).
    std::optional<double> relativeChange() const;
};

enum class OpDiffSortKey {
    TotalDelta, // regression: largest increase of total time first (descending)
    SelfDelta,
    AvgDelta,
    CountDelta,
    Relative, // undefined relative changes (baseline 0) count as +infinity
    TotalA,
    TotalB,
    Name,
};

struct OpDiffOptions {
    bool byCategory = false;
    TimeWindow windowA, windowB;
    std::vector<std::uint32_t> tracksA, tracksB; // empty: every track
    // Ops left out on both sides by exact name (the step markers of a step-vs-step diff).
    std::vector<std::string> excludeNames;
    OpDiffSortKey sortBy = OpDiffSortKey::TotalDelta;
    bool descending = true;
    std::size_t limit = 0; // 0: all rows (totals below are over all rows regardless)
};

struct OpDiff {
    std::vector<OpDiffRow> rows;
    std::int64_t totalA = 0, totalB = 0;  // sum of all ops' total time, ns
    std::uint64_t countA = 0, countB = 0; // slices
    std::size_t onlyA = 0, onlyB = 0;     // ops on one side only
};

OpDiff diffOpSummaries(const TraceStore& baseline, const TraceStore& candidate,
                       const OpDiffOptions& options = {});
// The same from op summaries already computed (rows of opSummary over the given stores).
OpDiff diffOpStats(const TraceStore& baseline, const std::vector<OpStat>& a,
                   const TraceStore& candidate, const std::vector<OpStat>& b,
                   const OpDiffOptions& options = {});

// The window [start, end) of the step marker slice named exactly `stepName` (the earliest one
// when the name repeats); nullopt when there is none.
std::optional<TimeWindow> findStepWindow(const TraceStore& store, std::string_view stepName);

} // namespace xt::timeline
