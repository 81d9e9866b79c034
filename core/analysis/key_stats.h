#pragma once
// Per-record statistics of the keys of a run: one series per (rank, key), computed in batches
// on a Backend straight from the mapped files. Empty columns (trace_once placeholders) are
// skipped; damaged columns are reported to the Diagnostics and skipped.

#include "core/analysis/backend.h"
#include "core/analysis/record_series.h"
#include "core/base/diagnostics.h"
#include "core/base/progress.h"
#include "core/xdl/trace_reader.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace xt::summary {
class ColumnSink;
class RunSummaries;
struct PartSummary;
} // namespace xt::summary

namespace xt::analysis {

struct KeySeries {
    int rank = 0;
    std::string key;
    RecordSeries records; // in record order
};

struct KeyStatsOptions {
    std::function<bool(std::string_view)> keyFilter; // unset = every key
    std::optional<int> rank;                         // unset = every rank
    std::uint64_t batchBytes = 16ull << 20;          // tensor bytes handed to one backend call
    // Parts these cover give their statistics from the summaries, without reading a tensor byte
    // (the same values: summaries hold the CPU backend's statistics).
    const summary::RunSummaries* summaries = nullptr;
    // Per rank, the first record to compute (the earlier ones were done before: following a
    // growing run). Ranks not listed start at record 0.
    std::map<int, std::size_t> fromRecord;
    // Per rank, the record to stop before (reading a large key in stages). Ranks not listed go
    // to their last record.
    std::map<int, std::size_t> toRecord;
};

// Series ordered by rank, then by the rank's key order. Cancelled when `progress` says stop.
Result<std::vector<KeySeries>> computeKeyStats(const xdl::RunReader& run, Backend& backend,
                                               const KeyStatsOptions& options, Diagnostics& diag,
                                               const ProgressCallback& progress = {});

// A summary::ColumnTap for summary::openRun that keeps `key`'s statistics ("" = each part's first
// key) as the stored summaries are read. computeKeyStats takes them from there rather than read
// the summaries again (a second pass over GBs of columns); the first call that visits a rank
// uses what was taken of its parts, or drops it.
std::function<std::shared_ptr<summary::ColumnSink>()> takeKeyStats(std::string key);
// The records of `s` whose statistics a takeKeyStats tap holds, unused (0 once used or dropped).
std::size_t takenRecords(const summary::PartSummary& s);

// An upper bound of the bytes the request reads: the file sizes of the selected ranks' parts that
// options.summaries does not cover (for choosing a backend).
std::uint64_t estimateWorkBytes(const xdl::RunReader& run, const KeyStatsOptions& options);

} // namespace xt::analysis
