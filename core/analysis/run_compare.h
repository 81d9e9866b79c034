#pragma once
// Comparison of two runs (or two ranks): records aligned by gstep or lstep, tensors compared
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

enum class StepAlign { Gstep, Lstep };
std::optional<StepAlign> parseStepAlign(std::string_view text); // "gstep" "lstep"

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
