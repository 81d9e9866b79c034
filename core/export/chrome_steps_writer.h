#pragma once
// An XDL run's steps as a Chrome Trace Event Format file, so the steps of a tensor trace can sit
// above a profiler trace in any Chrome-trace viewer. One process per (run, rank), one "steps"
// thread whose X events span from the previous record's timestamp to this record's (a record's
// timestamp is taken after its step), and a counter of record bytes. A rank's first record and
// a record whose timestamp goes backwards (a restarted job) become instant events.

#include "core/base/progress.h"
#include "core/timeline/trace_store.h"
#include "core/xdl/trace_reader.h"

#include <string>
#include <vector>

namespace xt {

struct ChromeStepsReport {
    std::uint64_t steps = 0;    // X events
    std::uint64_t instants = 0; // first records and restarts
};

Result<ChromeStepsReport> writeChromeSteps(const std::vector<xdl::RunReader>& runs,
                                           const std::string& outPath,
                                           const ProgressCallback& progress = {});

// The store importing that file gives, for one run, built without the file: what the viewer
// shows above a profiler trace. Its report names no file and has container "xdl".
Result<timeline::TraceStore> xdlStepsTrace(const xdl::RunReader& run,
                                           const ProgressCallback& progress = {});

} // namespace xt
