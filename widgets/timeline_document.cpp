#include "widgets/timeline_document.h"

#include "core/export/chrome_steps_writer.h"
#include "core/open/trace_import.h"
#include "core/timeline/step_breakdown.h"
#include "core/xdl/run_discovery.h"

#include <QFileInfo>

namespace xt::widgets {

namespace {

Result<TimelineLayer> finish(Result<timeline::TraceStore> store, QString title,
                             const ProgressCallback& progress) {
    if (!store) return store.status();
    if (!reportProgress(progress, 0, 0, "indexing"))
        return Status(ErrorCode::Cancelled, "loading cancelled");
    TimelineLayer layer;
    layer.title = std::move(title);
    auto s = std::make_shared<timeline::TraceStore>(std::move(store.value()));
    layer.lod = std::make_shared<timeline::LodIndex>(timeline::LodIndex::build(*s));
    layer.stepMarkers = timeline::stepMarkers(*s);
    layer.store = std::move(s);
    return layer;
}

} // namespace

Result<TimelineLayer> loadTimelineLayer(const std::string& path, const ProgressCallback& progress,
                                        timeline::ImportOptions options) {
    const QString title = QFileInfo(QString::fromStdString(path)).fileName();
    options.progress = progress;
    return finish(open::importTimeline(path, options), title, progress);
}

Result<TimelineLayer> xdlStepLayer(const xdl::RunReader& run, const ProgressCallback& progress) {
    // Reopen the run's files (the record index only; no tensor data is read): a snapshot that
    // a follower of the live run does not change while the steps are built.
    Diagnostics diag;
    XT_ASSIGN_OR_RETURN(const xdl::RunReader reopened,
                        xdl::RunReader::open(run.files(), diag, progress));
    return finish(xdlStepsTrace(reopened, progress),
                  QString::fromStdString(run.files().label()) + QStringLiteral(" steps"), progress);
}

Status writeStepTimeline(const std::string& runPath, const std::string& outPath,
                         const ProgressCallback& progress) {
    Diagnostics diag;
    auto found = xdl::discoverRuns({runPath}, diag);
    if (!found) return found.status();
    std::vector<xdl::RunReader> runs;
    for (const auto& files : found.value()) {
        auto reader = xdl::RunReader::open(files, diag, progress);
        if (!reader) return reader.status();
        runs.push_back(std::move(reader.value()));
    }
    if (runs.empty()) return Status(ErrorCode::NotFound, "no run in " + runPath);
    auto written = writeChromeSteps(runs, outPath, progress);
    return written ? Status() : written.status();
}

} // namespace xt::widgets
