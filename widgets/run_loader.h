#pragma once
// Loading runs for the viewer, off the GUI thread: discovery, record index, key summaries and
// per-record statistics of every key (through core/analysis). The result is an immutable
// snapshot the models and plots share.

#include "core/analysis/key_stats.h"
#include "core/analysis/non_finite.h"
#include "core/base/diagnostics.h"
#include "core/base/progress.h"
#include "core/xdl/key_summary.h"
#include "core/xdl/trace_reader.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace xt::widgets {

struct LoadedRun {
    std::shared_ptr<const xdl::RunReader> reader; // keeps the files mapped
    std::vector<xdl::KeySummary> keys;
    std::vector<analysis::KeySeries> series;                   // by rank, then key
    std::map<std::string, analysis::NonFiniteByKey> nonFinite; // keys with a NaN or an Inf
    std::string backend; // analysis backend that computed the statistics
    // The URL of the run's directory when it was read through the HDFS mirror, else "".
    std::string sourceUrl;

    std::string label() const { return reader->files().label(); }
    // The series of `key` on every rank that holds it, in rank order.
    std::vector<const analysis::KeySeries*> seriesOf(const std::string& key) const;
    const xdl::KeySummary* summaryOf(const std::string& key) const;
};
using RunSnapshot = std::shared_ptr<const LoadedRun>;

struct LoadResult {
    std::vector<RunSnapshot> runs;
    Diagnostics diagnostics;
    Status status;          // first fatal error (no run could be opened), or Ok
    bool cancelled = false; // the progress callback asked to stop
};

// Never throws; everything that goes wrong ends in `diagnostics` or `status`.
LoadResult loadRuns(const std::vector<std::string>& paths, const ProgressCallback& progress);

} // namespace xt::widgets
