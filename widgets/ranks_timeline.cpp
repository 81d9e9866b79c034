#include "widgets/ranks_timeline.h"

#include "core/open/trace_kind.h"
#include "core/timeline/rank_session.h"
#include "core/timeline/step_breakdown.h"
#include "core/xdl/run_discovery.h"
#include "widgets/ranks_panel.h"
#include "widgets/timeline_page.h"

#include <QFileInfo>
#include <QTabWidget>
#include <QtConcurrent>
#include <atomic>
#include <glob.h>

namespace xt::widgets {

QStringList rankTraceFiles(const QString& path) {
    if (QFileInfo(path).isFile()) return {};
    auto files = timeline::expandTracePaths({path.toStdString()});
    if (!files) return {};
    // A directory or pattern holding XDL data files is a run, even with JSON files beside them.
    QFileInfoList all;
    if (QFileInfo(path).isDir()) {
        all = QDir(path).entryInfoList(QDir::Files);
    } else {
        glob_t g{};
        if (::glob(path.toLocal8Bit().constData(), 0, nullptr, &g) == 0)
            for (std::size_t i = 0; i < g.gl_pathc; ++i)
                all << QFileInfo(QString::fromLocal8Bit(g.gl_pathv[i]));
        ::globfree(&g);
    }
    for (const QFileInfo& f : all)
        if (xdl::parsePartFileName(f.fileName().toStdString())) return {};
    QStringList out;
    for (const std::string& f : *files) {
        const QString q = QString::fromStdString(f);
        if (open::isTimeline(open::detectTraceKind(f))) out << QFileInfo(q).absoluteFilePath();
    }
    return out;
}

RanksPanel* openRanks(TimelinePage* page, const QStringList& files) {
    std::vector<std::string> paths;
    for (const QString& f : files)
        paths.push_back(f.toStdString());
    auto slot = std::make_shared<std::shared_ptr<timeline::RankSession>>();
    page->loadLayers(
        [paths, slot](const ProgressCallback& cb) -> Result<std::vector<TimelineLayer>> {
            auto session = timeline::importRanks(paths, {cb});
            if (!session) return session.status();
            const std::size_t n = session->ranks.size();
            std::vector<TimelineLayer> layers(n);
            std::atomic<std::size_t> indexed{0};
            std::atomic<bool> cancelled{false};
            std::vector<std::size_t> order(n);
            for (std::size_t i = 0; i < n; ++i)
                order[i] = i;
            QtConcurrent::blockingMap(jobPool(), order, [&](std::size_t i) {
                yieldToGui();
                if (cancelled) return;
                const timeline::RankTrace& r = session->ranks[i];
                TimelineLayer& l = layers[i];
                l.title = QStringLiteral("rank %1   %2")
                              .arg(r.rank)
                              .arg(QFileInfo(QString::fromStdString(r.file)).fileName());
                l.store = r.store;
                l.lod = std::make_shared<timeline::LodIndex>(timeline::LodIndex::build(*r.store));
                l.stepMarkers = timeline::stepMarkers(*r.store);
                if (!reportProgress(cb, ++indexed, n, "indexing ranks")) cancelled = true;
            });
            if (cancelled) return Status(ErrorCode::Cancelled, "loading cancelled");
            *slot = std::make_shared<timeline::RankSession>(std::move(session.value()));
            return layers;
        },
        QObject::tr("%n rank trace(s)", nullptr, int(files.size())));
    auto* panel = new RanksPanel(page->view(), page);
    panel->hide();
    QObject::connect(
        page, &TimelinePage::layersLoaded, panel,
        [page, panel, slot](int first, int) {
            if (!*slot) return;
            panel->setSession(std::move(*slot), first);
            slot->reset();
            page->addPanel(panel, QObject::tr("Ranks"));
            page->panels()->setCurrentWidget(panel);
            page->setPanelShare(0.45);
        },
        Qt::SingleShotConnection);
    return panel;
}

} // namespace xt::widgets
