#include "core/open/trace_import.h"

#include "core/timeline/step_stats_reader.h"

namespace xt::open {

Result<timeline::TraceStore> importTimeline(const std::string& path,
                                            const timeline::ImportOptions& options) {
    if (detectTraceKind(path) == TraceKind::StepStats)
        return timeline::importStepStats(path, options);
    return timeline::importChromeTrace(path, options);
}

} // namespace xt::open
