#pragma once
// Where summaries live and when they can be trusted. A part's summary is looked for beside it
// ({part}.xts, written by the recorder or `xtrace index`), then in the user's cache folder
// ($XDG_CACHE_HOME/xtview/summaries, keyed by the part's source). A summary is used only when
// its identity matches the part (size, mtime, head and tail fingerprints); one that covers a
// prefix of a grown part is extended; a stale, truncated, replaced or damaged one is reported
// (a located diagnostic) and rebuilt. Files are written to a temporary name and renamed, so
// concurrent readers and writers (two viewers, a viewer and `xtrace index`) never see a torn one.
// A remote part (PartFile::source set: a sparse mirror copy) is identified by its URL, read
// through its fetcher, and its built summaries go to the cache, never into the mirror.
// The rules are in docs/SUMMARY-FORMAT.md.

#include "core/base/diagnostics.h"
#include "core/base/progress.h"
#include "core/summary/part_summary.h"
#include "core/xdl/run_discovery.h"

#include <memory>
#include <optional>

namespace xt::xdl {
class PartReader;
}

namespace xt::summary {

enum class SummaryOrigin {
    Loaded,   // a valid summary was read
    Extended, // a summary of a prefix was read and extended over the appended records
    Built,    // no usable summary: built from the part's bytes
};
const char* summaryOriginName(SummaryOrigin o);

struct StoreOptions {
    std::string cacheDir;     // empty: $XDG_CACHE_HOME/xtview/summaries or ~/.cache/...
    bool writeBeside = false; // save beside the part (when writable) rather than in the cache
    bool save = true;         // persist built or extended summaries
    bool live = false;        // the part may still grow: do not report an incomplete tail
};

struct LoadedSummary {
    std::shared_ptr<const PartSummary> summary;
    SummaryOrigin origin = SummaryOrigin::Loaded;
    std::string loadedFrom; // the summary file read, "" when built
    std::string savedTo;    // where it was written, "" when it was not
};

// The path of `part`'s summary beside it and in the cache; the cache folder in use.
std::string besidePath(const std::string& partPath);
std::string cachePath(const std::string& source, const StoreOptions& options);
std::string cacheDirectory(const StoreOptions& options);
// The identity source of a local part: its absolute path, symbolic links resolved.
std::string partSource(const std::string& partPath);

// A valid summary of `part`, or one of a prefix of it when the part grew since (its
// identity.size is then below the part's size; a reader seeded with it scans only the rest), or
// nullopt when none is stored. Nothing is read from the part but its size, mtime and
// fingerprints; nothing is built. Stale and damaged summaries found are reported to diag. Each
// summary file read is parsed with `tap` (parseSummary).
std::optional<std::shared_ptr<const PartSummary>> findSummary(const xdl::PartFile& part,
                                                              const StoreOptions& options,
                                                              Diagnostics& diag,
                                                              const ColumnTap& tap = {});
// A stored summary of a local `part` with the part's identity, peeked (peekSummary: its
// overview, no columns, records unchecked), or null. Nothing is reported: what is wrong with a
// summary is the full open's to report (findSummary).
std::shared_ptr<const PartSummary> peekValidSummary(const xdl::PartFile& part,
                                                    const StoreOptions& options);
// A valid summary of `part`: loaded, extended or built (and saved per options). A summary that
// cannot be saved is a diagnostic ("summary-not-saved"), not an error. A new one of a local part
// starts from the index of `indexedBy`, a reader of the part, where that index is its own clean
// scan of the same bytes (the part is not scanned twice, its records are not held twice).
Result<LoadedSummary> loadOrBuildSummary(const xdl::PartFile& part, const StoreOptions& options,
                                         Diagnostics& diag, const ProgressCallback& progress = {},
                                         const xdl::PartReader* indexedBy = nullptr);

// Whether the summary of a remote part (PartFile::source set) still has to be uploaded beside
// it on the server: false when it was loaded, valid, from the copy of the one already there.
bool needsPublishing(const xdl::PartFile& part, const LoadedSummary& loaded);

// The identity of the part file at `path` as it is now: source, size, mtime, fingerprints.
Result<PartIdentity> partIdentity(const std::string& path);

// Writes `s` to `path` atomically: a unique temporary file in the same folder (created when
// missing), then a rename over `path`.
Status saveSummary(const PartSummary& s, const std::string& path);

} // namespace xt::summary
