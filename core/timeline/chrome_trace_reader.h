#pragma once
// Chrome Trace Event Format import (docs/TIMELINE.md "Import rules"): array and object forms,
// plain / gzip / zip input detected by magic bytes, unterminated arrays and trailing commas,
// every phase, flow v1 and v2, string or numeric pid/tid, unsorted events, unbalanced B/E and
// overlapping X. Events are parsed one by one with simdjson On-Demand (no DOM of the file).
// One bad event never aborts the import: it is counted by reason in TraceStore::report().
// Errors are returned only when nothing can be read: missing file, empty or non-JSON input,
// a corrupt container, or cancellation.

#include "core/base/progress.h"
#include "core/base/status.h"
#include "core/timeline/trace_store.h"

#include <cstdint>
#include <string>

namespace xt::timeline {

struct ImportOptions {
    ProgressCallback progress; // stages "inflating" and "parsing"; false cancels
    // Bounds on what one file can make the importer hold (docs/HARDENING.md). Events past a
    // bound are skipped and counted in the report ("too-many-processes", "too-many-threads",
    // "nesting-too-deep"); an input inflating past maxInflatedBytes is refused (Unsupported).
    std::uint32_t maxProcesses = 1u << 16;
    std::uint32_t maxThreads = 1u << 20;
    std::uint32_t maxJsonDepth = 256;   // nesting of arrays and objects inside one event
    std::uint64_t maxInflatedBytes = 0; // gzip / zip output; 0: half of physical memory
    // A v1 flow step or end (t / f) with no start before it binds to the start of its id that
    // follows it: an arrow back in time, counted as "backwards-flow" (info). True drops it as
    // Chrome's importer does ("flow-without-start"), so counts compare with chrome://tracing.
    bool chromeCompatibleFlows = false;
};

Result<TraceStore> importChromeTrace(const std::string& path, const ImportOptions& options = {});
// The same from bytes in memory (plain JSON, gzip or zip); `name` labels diagnostics.
Result<TraceStore> importChromeTraceBytes(std::string bytes, const ImportOptions& options = {},
                                          const std::string& name = "<memory>");

} // namespace xt::timeline
