#pragma once
// A timeline layer: one imported trace (Chrome JSON, gzip, zip or TensorFlow StepStats) with its
// LOD index (both levels), shown by TimelineView with a time offset so several traces can be
// aligned. The loaders run off the GUI thread; core/open decides which paths are timelines.

#include "core/base/progress.h"
#include "core/base/status.h"
#include "core/timeline/chrome_trace_reader.h"
#include "core/timeline/lod_index.h"
#include "core/timeline/trace_store.h"
#include "core/xdl/trace_reader.h"

#include <QString>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace xt::widgets {

struct TimelineLayer {
    QString title;
    std::shared_ptr<const timeline::TraceStore> store;
    std::shared_ptr<const timeline::LodIndex> lod;
    std::int64_t offsetNs = 0; // added to the layer's times on the shared axis
    // Step marker slices ("ProfilerStep#N"), sorted by start; the loaders fill it.
    std::vector<std::uint32_t> stepMarkers;
};

// Imports `path` (open::importTimeline: Chrome JSON in any container or a binary TF RunMetadata /
// StepStats, told by content) with `options` and builds its LOD index. Cancelled when
// `progress` (which replaces options.progress) returns false.
Result<TimelineLayer> loadTimelineLayer(const std::string& path,
                                        const ProgressCallback& progress = {},
                                        timeline::ImportOptions options = {});

// An XDL run's steps (per rank, from record timestamps; core/export/chrome_steps_writer) as a
// layer, built directly into a TraceStore (xdlStepsTrace).
Result<TimelineLayer> xdlStepLayer(const xdl::RunReader& run,
                                   const ProgressCallback& progress = {});

// The steps of the runs under `runPath` (a run directory) as a Chrome trace file at `outPath`
// (core/export's writeChromeSteps, whole or not at all): the sample timeline of the demo run.
Status writeStepTimeline(const std::string& runPath, const std::string& outPath,
                         const ProgressCallback& progress = {});

} // namespace xt::widgets
