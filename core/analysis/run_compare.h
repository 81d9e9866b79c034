#pragma once
// Comparison of two runs (or two ranks): records aligned by gstep, lstep or relative step (gstep
// minus the side's first gstep, for runs that started at different steps), tensors compared
// element by element per key and aligned step.

#include "core/base/diagnostics.h"
#include "core/base/progress.h"
#include "core/xdl/trace_reader.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xt::analysis {

enum class StepAlign {
    Gstep,
    Lstep,
    Relative, // gstep - the smallest gstep of the rank: both sides count from their first step
};
std::optional<StepAlign> parseStepAlign(std::string_view text); // "gstep" "lstep" "relative"
const char* stepAlignName(StepAlign align);

// What is subtracted from a record's step on `rank`: its smallest gstep for Relative, else 0.
std::int64_t stepOrigin(const xdl::RankReader& rank, StepAlign align);
// The aligned step of a record with (gstep, lstep) on a rank whose stepOrigin is `origin`.
inline std::int64_t alignedStep(std::int64_t gstep, std::int64_t lstep, StepAlign align,
                                std::int64_t origin) {
    return (align == StepAlign::Lstep ? lstep : gstep) - origin;
}

struct CompareOptions {
    std::function<bool(std::string_view)> keyFilter; // unset = every key
    StepAlign align = StepAlign::Gstep;
    // Elements a, b are close when |a - b| <= atol + rtol * |b| (numpy.isclose); NaN == NaN and
    // equal infinities are close.
    double atol = 1e-8, rtol = 1e-5;
};

struct StepDiff {
    std::int64_t step = 0; // the aligned step value
    std::uint64_t elements = 0;
    bool bitExact = true; // same dtype, shape and bytes
    bool withinTolerance = true;
    bool shapeMismatch = false; // dtype or shape differ: no element comparison
    double maxAbs = 0;          // over elements finite on both sides
    double maxRel = 0;          // |a - b| / max(|a|, |b|), 0 when both are 0
    std::uint64_t nanOnlyA = 0, nanOnlyB = 0, infOnlyA = 0, infOnlyB = 0; // element counts
};

struct KeyDiff {
    std::string key;
    std::vector<StepDiff> steps; // aligned steps present on both sides, ascending
    std::optional<std::int64_t> firstDiffExact, firstDiffTolerance;
    std::optional<std::int64_t> firstNanOnlyA, firstNanOnlyB, firstInfOnlyA, firstInfOnlyB;
    std::vector<std::int64_t> stepsOnlyA, stepsOnlyB;
};

struct RunDiff {
    std::vector<std::string> keysOnlyA, keysOnlyB;
    std::vector<KeyDiff> keys; // keys on both sides, in A's order
};

// Compares rank `a` with rank `b`. When a side has several records with the same aligned step,
// the first one is used and the others are reported to `diag`.
Result<RunDiff> compareRanks(const xdl::RankReader& a, const xdl::RankReader& b,
                             const CompareOptions& options, Diagnostics& diag,
                             const ProgressCallback& progress = {});

} // namespace xt::analysis
