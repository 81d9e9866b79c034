#pragma once
// Shared plumbing of the xtrace sub-commands: opening runs with a progress bar, printing
// diagnostics, formatting times and sizes.

#include "core/base/diagnostics.h"
#include "core/base/progress.h"
#include "core/xdl/trace_reader.h"

#include <string>
#include <vector>

namespace xt::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 1;
inline constexpr int kExitUnreadable = 2;

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

// Discovers and opens every run under `paths`. On failure prints the reason to stderr and
// returns the exit status to use (kExitUnreadable); on success returns kExitOk. `labels`, when
// given, receives what to call each run in output: the URL and name of a run read from HDFS
// (not the path of its local mirror), else RunFiles::label().
int openRuns(const std::vector<std::string>& paths, Diagnostics& diag,
             std::vector<xdl::RunReader>& runs, std::vector<std::string>* labels = nullptr);

// Prints diagnostics to stderr: each stored one, then a count of any not shown.
void printDiagnostics(const Diagnostics& diag);

// "2026-11-22 03:04:05.678Z" for milliseconds since the epoch.
std::string formatTimestampMs(std::int64_t ms);
// "1.5 MB", "312 B" (decimal units, as max_file_m_size).
std::string formatBytes(std::uint64_t bytes);
// "1h 2m 3.4s"
std::string formatDurationMs(std::int64_t ms);

} // namespace xt::cli
