#pragma once
// Shared plumbing of the xtrace sub-commands: opening runs with a progress bar, printing
// diagnostics, formatting times and sizes.

#include "core/base/diagnostics.h"
#include "core/base/progress.h"
#include "core/summary/run_summary.h"
#include "core/xdl/trace_reader.h"

#include <cstdint>
#include <string>
#include <vector>

namespace xt::storage {
class RemoteRuns;
}

namespace xt::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 1;
inline constexpr int kExitUnreadable = 2;

// Nanoseconds as microseconds, the unit of the timeline reports.
inline double us(std::int64_t ns) {
    return double(ns) / 1000.0;
}

// A progress bar on stderr, drawn only when stderr is a terminal; cleared by finish().
class ProgressBar {
public:
    ProgressBar();
    ~ProgressBar() { finish(); }
    ProgressCallback callback();
    void finish();

private:
    bool m_enabled;
    bool m_drawn = false;
    long long m_lastDrawMs = 0;
};

// Discovers every run under `paths` (core/open sorts them: timeline files are named on stderr and
// left out). On failure prints the reason to stderr and returns the exit status to use
// (kExitUnreadable); else kExitOk. hdfs:// URLs are mirrored sparsely: their parts carry their
// URL and fetch the byte ranges they read (storage::RemoteRuns).
int discoverPaths(const std::vector<std::string>& paths, Diagnostics& diag,
                  std::vector<xdl::RunFiles>& found);
// Discovers and opens every run under `paths` (exit status as discoverPaths).
int openRuns(const std::vector<std::string>& paths, Diagnostics& diag,
             std::vector<xdl::RunReader>& runs);
// The same, each part from its valid stored summary where there is one (nothing is built):
// statistics then come from the summaries (the same values, without reading tensors).
int openRuns(const std::vector<std::string>& paths, Diagnostics& diag,
             std::vector<summary::OpenedRun>& runs, const xdl::ReaderOptions& reader = {});

// The local timeline file `path` names (a URL through the mirror; a directory holding exactly
// one). Returns kExitOk, or prints why not and returns the exit status to use.
int resolveTimeline(const std::string& path, std::string& local);

// The remote runs discoverPaths mirrored; null before it ran.
storage::RemoteRuns* remoteRuns();

// `text` (a path or a message) with the HDFS mirror copies of the runs openRuns opened written as
// their URLs: remote runs are shown by the URLs users gave, never by mirror paths.
std::string shown(std::string text);

// Prints diagnostics to stderr (paths as shown()): each stored one, then a count of any not shown.
void printDiagnostics(const Diagnostics& diag);

// "2026-11-22 03:04:05.678Z" for milliseconds since the epoch.
std::string formatTimestampMs(std::int64_t ms);
// "1.5 MB", "312 B" (decimal units, as max_file_m_size).
std::string formatBytes(std::uint64_t bytes);
// "1h 2m 3.4s"
std::string formatDurationMs(std::int64_t ms);

} // namespace xt::cli
