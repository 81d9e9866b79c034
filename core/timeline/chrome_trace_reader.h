#pragma once
// Chrome Trace Event Format import (docs/TIMELINE.md "Import rules"): array and object forms,
// plain / gzip / zip input detected by magic bytes, unterminated arrays and trailing commas,
// every phase, flow v1 and v2, string or numeric pid/tid, unsorted events, unbalanced B/E and
// overlapping X. Events are parsed one by one with simdjson On-Demand (no DOM of the file).
// One bad event never aborts the import: it is counted by reason in TraceStore::report().
// Errors are returned only when nothing can be read: missing file, empty or non-JSON input,
// a corrupt container, or cancellation.

#include "core/base/status.h"
#include "core/timeline/import_options.h"
#include "core/timeline/trace_store.h"

#include <string>

namespace xt::timeline {

Result<TraceStore> importChromeTrace(const std::string& path, const ImportOptions& options = {});
// The same from bytes in memory (plain JSON, gzip or zip); `name` labels diagnostics.
Result<TraceStore> importChromeTraceBytes(std::string bytes, const ImportOptions& options = {},
                                          const std::string& name = "<memory>");

} // namespace xt::timeline
