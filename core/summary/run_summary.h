#pragma once
// A run opened from its summaries: parts with a valid stored summary take their record index
// from it (no scan of the part), key dtypes/shapes and per-record statistics come from the
// summaries, and tensor bytes are read only when asked for. Parts without one are indexed as
// before and can be summarised later (in the background, in parallel).

#include "core/summary/summary_store.h"
#include "core/xdl/key_summary.h"
#include "core/xdl/trace_reader.h"

#include <map>

namespace xt::summary {

// Summaries of some or all parts of a run, by part path.
class RunSummaries {
public:
    void add(const std::string& partPath, std::shared_ptr<const PartSummary> s);
    // The summary of a part, or null. Only a summary covering the part's indexed records counts.
    const PartSummary* find(const xdl::PartReader& part) const;
    // Whether every part of `run` has one.
    bool covers(const xdl::RunReader& run) const;
    std::size_t size() const { return m_byPath.size(); }

private:
    std::map<std::string, std::shared_ptr<const PartSummary>> m_byPath;
};

struct OpenedRun {
    xdl::RunReader reader;
    RunSummaries summaries;
};

// Opens a run, seeding each part's record index from a valid stored summary (findSummary, with
// `tap`) where there is one and scanning the others, several parts at once. Nothing is built or
// written. A part opened from a summary replays the diagnostics its indexing gave.
Result<OpenedRun> openRun(const xdl::RunFiles& files, const StoreOptions& store, Diagnostics& diag,
                          const ProgressCallback& progress = {},
                          const xdl::ReaderOptions& reader = {}, const ColumnTap& tap = {});

// Builds (or extends, or loads) the summaries of the parts of `run` that `out` lacks, on
// `threads` threads (0 = all cores), saving them per `store`. Progress counts bytes.
Status summarizeRun(const xdl::RunReader& run, RunSummaries& out, const StoreOptions& store,
                    Diagnostics& diag, const ProgressCallback& progress = {}, int threads = 0);

// `run` read as a run opened from its summaries is: each part whose summary keeps its records in
// its file (RecordTable::file) reads them there, the others a copy of their index. Nullopt when
// no part has such a summary, or a part's file no longer has the records `run` has (it grew).
// After a first open, the readers' own indexes then go with the snapshots that hold `run`.
std::optional<xdl::RunReader> rereadFromSummaries(const xdl::RunReader& run,
                                                  const RunSummaries& summaries,
                                                  const xdl::ReaderOptions& options);

// xdl::summarizeKeys, from the summaries where they cover a part (header bytes otherwise).
Result<std::vector<xdl::KeySummary>> summarizeKeys(const xdl::RunReader& run,
                                                   const RunSummaries& summaries, Diagnostics& diag,
                                                   const ProgressCallback& progress = {});

} // namespace xt::summary
