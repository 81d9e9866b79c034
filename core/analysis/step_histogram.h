#pragma once
// Histograms of one key of one rank: per record, and a steps x bins matrix over a gstep range
// (the data of a heatmap). Records sharing a gstep are added into one row.

#include "core/analysis/backend.h"
#include "core/analysis/record_series.h"
#include "core/base/diagnostics.h"
#include "core/base/progress.h"
#include "core/summary/run_summary.h"
#include "core/xdl/trace_reader.h"

#include <optional>
#include <string_view>
#include <vector>

namespace xt::summary {
class RunSummaries;
}

namespace xt::analysis {

struct StepRange {
    std::optional<std::int64_t> first, last; // inclusive gsteps; unset = open
    bool contains(std::int64_t g) const { return (!first || g >= *first) && (!last || g <= *last); }
};
// "A:B", "A:" or ":B" -> StepRange; InvalidArgument otherwise.
Status parseStepRange(std::string_view text, StepRange& out);

struct HistogramMatrix {
    BinLayout layout;
    std::vector<std::int64_t> steps; // ascending: the first gstep of each row
    // The last gstep of each row and how many gsteps with records it holds: steps[i] and 1
    // unless HistogramOptions::maxRows merged several.
    std::vector<std::int64_t> lastSteps;
    std::vector<std::uint32_t> stepCounts;
    std::vector<Histogram> rows; // rows[i] holds every record of its gsteps
    Histogram total;             // sum of the rows

    // rows x bins counts, row-major.
    std::vector<std::uint64_t> dense() const;
};

// An automatic range (options without lo/hi) is taken over every record in `steps`, so all rows
// share one layout; from the min/max in `summaries` when they cover every such record, else from
// `series` (the statistics of this rank's key, as computeKeyStats gives them) when it holds every
// such record (no first pass over the tensors either way), else computed. NotFound when no
// record of the range holds the key.
Result<HistogramMatrix> stepHistograms(const xdl::RankReader& rank, std::string_view key,
                                       Backend& backend, const HistogramOptions& options,
                                       const StepRange& steps, Diagnostics& diag,
                                       const ProgressCallback& progress = {},
                                       const summary::RunSummaries* summaries = nullptr,
                                       const RecordSeries* series = nullptr);

// The same matrix approximated from the part summaries' sketches, without reading a tensor
// byte: each record's sketch (counts over its own [min, max]) is spread evenly over the bins it
// overlaps. Same layout as stepHistograms for the same options. Unsupported when a record with
// data has no sketch (small tensors) or its part no summary.
Result<HistogramMatrix> sketchStepHistograms(const xdl::RankReader& rank,
                                             const summary::RunSummaries& summaries,
                                             std::string_view key, const HistogramOptions& options,
                                             const StepRange& steps);

} // namespace xt::analysis
