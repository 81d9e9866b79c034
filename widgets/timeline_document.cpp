#include "widgets/timeline_document.h"

#include "core/export/chrome_steps_writer.h"
#include "core/open/trace_import.h"
#include "core/timeline/step_breakdown.h"

#include <QFileInfo>
#include <QTemporaryDir>

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
    QTemporaryDir dir;
    if (!dir.isValid()) return Status(ErrorCode::IoError, "cannot create a temporary directory");
    const std::string file = dir.filePath(QStringLiteral("steps.json")).toStdString();
    // writeChromeSteps takes readers by value and RunReader is move-only: reopen the run's
    // files (the record index only; no tensor data is read).
    Diagnostics diag;
    std::vector<xdl::RunReader> runs(1);
    XT_ASSIGN_OR_RETURN(runs[0], xdl::RunReader::open(run.files(), diag, progress));
    XT_RETURN_IF_ERROR(writeChromeSteps(runs, file, progress).status());
    auto layer =
        finish(timeline::importChromeTrace(file, {progress}),
               QString::fromStdString(run.files().label()) + QStringLiteral(" steps"), progress);
    return layer;
}

} // namespace xt::widgets
