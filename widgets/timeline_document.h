#pragma once
// A timeline layer: one imported trace (Chrome JSON, gzip, zip or TensorFlow StepStats) with its
// LOD index, shown by TimelineView with a time offset so several traces can be aligned. The
// loaders run off the GUI thread; `looksLikeTimelineFile` routes opened paths between the
// timeline tab and the XDL run loader.

#include "core/base/progress.h"
#include "core/base/status.h"
#include "core/timeline/chrome_trace_reader.h"
#include "core/timeline/lod_index.h"
#include "core/timeline/trace_store.h"
#include "core/xdl/trace_reader.h"
#include "widgets/timeline_geometry.h"

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
    // Zoomed-out level of detail; the loaders build it, TimelineView builds it when null.
    std::shared_ptr<const CoarseLod> coarse;
    // Step marker slices ("ProfilerStep#N"), sorted by start; the loaders fill it.
    std::vector<std::uint32_t> stepMarkers;
};

// Imports `path` (Chrome JSON in any container, detected by content, or a binary TF RunMetadata
// / StepStats) with `options` and builds its LOD indexes. Cancelled when `progress` (which
// replaces options.progress) returns false.
Result<TimelineLayer> loadTimelineLayer(const std::string& path,
                                        const ProgressCallback& progress = {},
                                        timeline::ImportOptions options = {});

// An XDL run's steps (per rank, from record timestamps; core/export/chrome_steps_writer) as a
// layer: the Chrome JSON is written to a temporary file and imported.
Result<TimelineLayer> xdlStepLayer(const xdl::RunReader& run,
                                   const ProgressCallback& progress = {});

// The steps of the runs under `runPath` (a run directory) as a Chrome trace file at `outPath`
// (core/export's writeChromeSteps, whole or not at all): the sample timeline of the demo run.
Status writeStepTimeline(const std::string& runPath, const std::string& outPath,
                         const ProgressCallback& progress = {});

// Whether a path should open as a timeline: a regular file named .json, .json.gz, .gz, .zip or
// .pb whose first bytes fit (JSON '{' / '[', gzip or zip magic, a protobuf StepStats).
bool looksLikeTimelineFile(const QString& path);

} // namespace xt::widgets
