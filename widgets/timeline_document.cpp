#include "widgets/timeline_document.h"

#include "core/export/chrome_steps_writer.h"
#include "core/timeline/chrome_trace_reader.h"
#include "core/timeline/step_breakdown.h"
#include "core/timeline/step_stats_reader.h"
#include "core/xdl/run_discovery.h"

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <fstream>

namespace xt::widgets {

namespace {

std::string firstBytes(const std::string& path, std::size_t n) {
    std::ifstream in(path, std::ios::binary);
    std::string buf(n, '\0');
    in.read(buf.data(), static_cast<std::streamsize>(n));
    buf.resize(static_cast<std::size_t>(in.gcount()));
    return buf;
}

bool isGzip(std::string_view b) {
    return b.size() >= 2 && static_cast<unsigned char>(b[0]) == 0x1f &&
           static_cast<unsigned char>(b[1]) == 0x8b;
}
bool isZip(std::string_view b) {
    return b.substr(0, 4) == std::string_view("PK\3\4", 4);
}
bool isJsonStart(std::string_view b) {
    std::size_t i = 0;
    if (b.substr(0, 3) == "\xEF\xBB\xBF") i = 3; // UTF-8 BOM
    while (i < b.size() && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t'))
        ++i;
    return i < b.size() && (b[i] == '{' || b[i] == '[');
}

Result<TimelineLayer> finish(Result<timeline::TraceStore> store, QString title,
                             const ProgressCallback& progress) {
    if (!store) return store.status();
    if (!reportProgress(progress, 0, 0, "indexing"))
        return Status(ErrorCode::Cancelled, "loading cancelled");
    TimelineLayer layer;
    layer.title = std::move(title);
    auto s = std::make_shared<timeline::TraceStore>(std::move(store.value()));
    layer.lod = std::make_shared<timeline::LodIndex>(timeline::LodIndex::build(*s));
    layer.coarse = std::make_shared<CoarseLod>(CoarseLod::build(*s));
    layer.stepMarkers = timeline::stepMarkers(*s);
    layer.store = std::move(s);
    return layer;
}

} // namespace

Result<TimelineLayer> loadTimelineLayer(const std::string& path, const ProgressCallback& progress,
                                        timeline::ImportOptions opts) {
    const std::string head = firstBytes(path, 4096);
    if (head.empty() && !QFileInfo::exists(QString::fromStdString(path)))
        return Status(ErrorCode::NotFound, "cannot open " + path);
    const QString title = QFileInfo(QString::fromStdString(path)).fileName();
    opts.progress = progress;
    if (!isGzip(head) && !isZip(head) && !isJsonStart(head) && timeline::looksLikeStepStats(head))
        return finish(timeline::importStepStats(path, opts), title, progress);
    return finish(timeline::importChromeTrace(path, opts), title, progress);
}

Result<TimelineLayer> xdlStepLayer(const xdl::RunReader& run, const ProgressCallback& progress) {
    QTemporaryDir dir;
    if (!dir.isValid()) return Status(ErrorCode::IoError, "cannot create a temporary directory");
    const std::string file = dir.filePath(QStringLiteral("steps.json")).toStdString();
    // writeChromeSteps takes readers by value and RunReader is move-only: reopen the run's
    // files (the record index only; no tensor data is read).
    Diagnostics diag;
    auto reopened = xdl::RunReader::open(run.files(), diag, progress);
    if (!reopened) return reopened.status();
    std::vector<xdl::RunReader> runs;
    runs.push_back(std::move(reopened.value()));
    auto written = writeChromeSteps(runs, file, progress);
    if (!written) return written.status();
    auto layer =
        finish(timeline::importChromeTrace(file, {progress}),
               QString::fromStdString(run.files().label()) + QStringLiteral(" steps"), progress);
    return layer;
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

bool looksLikeTimelineFile(const QString& path) {
    const QFileInfo fi(path);
    if (!fi.isFile()) return false;
    const QString n = fi.fileName().toLower();
    const bool json = n.endsWith(QLatin1String(".json"));
    const bool gz = n.endsWith(QLatin1String(".gz"));
    const bool zip = n.endsWith(QLatin1String(".zip"));
    const bool pb = n.endsWith(QLatin1String(".pb"));
    if (!json && !gz && !zip && !pb) return false;
    const std::string head = firstBytes(fi.absoluteFilePath().toStdString(), 4096);
    if (gz) return isGzip(head);
    if (zip) return isZip(head);
    if (json) return isJsonStart(head);
    return timeline::looksLikeStepStats(head);
}

} // namespace xt::widgets
