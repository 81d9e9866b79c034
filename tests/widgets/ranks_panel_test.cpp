// A multi-rank timeline tab: four ranks built from one real Kineto trace (each with its own
// rank and clock, rank 2 delayed inside ProfilerStep#18) open as one tab, one collapsible layer
// per rank, with the Ranks panel: tables, stacked bars, the rank x step heatmap (a click shows
// that rank's step), alignment and editable offsets, CSV export. Set XT_PANEL_SHOTS=DIR to keep
// the screenshots.
#include "core/timeline/rank_session.h"
#include "widgets/main_window.h"
#include "widgets/rank_charts.h"
#include "widgets/ranks_panel.h"
#include "widgets/ranks_timeline.h"
#include "widgets/report_table_view.h"
#include "widgets/timeline_page.h"

#include "offscreen_app.h"
#include "rank_set.h"
#include "shared_corpus.h"
#include "temp_dir.h"

#include <QComboBox>
#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <algorithm>
#include <fstream>
#include <gtest/gtest.h>

namespace xt::widgets {
namespace {

constexpr std::int64_t kDelayUs = 4000;
const char* kResnet =
    "kineto/samples__resnet50_num_workers_0__worker0.1623143566756.pt.trace.json.gz";

std::string corpus(const char* rel) {
    return xt::test::chromeCorpus(rel);
}

// Renders `w`; with XT_PANEL_SHOTS=DIR set also saves it there for a look.
QImage shot(QWidget& w, const char* name) {
    const QImage img = w.grab().toImage();
    if (const QByteArray dir = qgetenv("XT_PANEL_SHOTS"); !dir.isEmpty())
        img.save(QString::fromUtf8(dir) + "/" + name + ".png");
    return img;
}

int distinctColours(const QImage& img) {
    QSet<QRgb> seen;
    for (int y = 0; y < img.height(); y += 2)
        for (int x = 0; x < img.width(); x += 2)
            seen.insert(img.pixel(x, y));
    return int(seen.size());
}

QString firstLine(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(f.readLine()).trimmed();
}

class RanksPanelTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (!xt::test::sharedCorpusPresent()) return;
        s_dir = new test::TempDir;
        test::RankSetSpec spec;
        spec.delayedRank = 2;
        spec.delayedStep = "ProfilerStep#18";
        spec.delayUs = kDelayUs;
        s_set = new test::RankSet(test::writeRankSet(corpus(kResnet), s_dir->str(), spec));
    }
    static void TearDownTestSuite() {
        delete s_set;
        delete s_dir;
        s_set = nullptr;
        s_dir = nullptr;
    }
    void SetUp() override {
        ::xt::test::offscreenApp();
        XT_REQUIRE_SHARED_CORPUS();
        ASSERT_TRUE(s_set->ok()) << s_set->error;
    }
    static test::TempDir* s_dir;
    static test::RankSet* s_set;
};
test::TempDir* RanksPanelTest::s_dir = nullptr;
test::RankSet* RanksPanelTest::s_set = nullptr;

TEST_F(RanksPanelTest, DirectoriesAndGlobsOfTracesAreRankSets) {
    const QString dir = QString::fromStdString(s_dir->str());
    EXPECT_EQ(rankTraceFiles(dir).size(), 4);
    EXPECT_EQ(rankTraceFiles(dir + "/host[ab].json").size(), 2);
    EXPECT_TRUE(rankTraceFiles(QString::fromStdString(s_set->files[0])).isEmpty()); // one file
    EXPECT_TRUE(rankTraceFiles(dir + "/nothing*").isEmpty());
    // A run directory (XDL data files) stays a run even with a JSON file in it.
    test::TempDir run;
    std::ofstream(run.file("train.model.0.1")) << "x";
    std::ofstream(run.file("config.json")) << "{}";
    EXPECT_TRUE(rankTraceFiles(QString::fromStdString(run.str())).isEmpty());
    EXPECT_TRUE(rankTraceFiles(QString::fromStdString(run.file("*"))).isEmpty());
    EXPECT_EQ(rankTraceFiles(QString::fromStdString(run.file("*.json"))).size(), 1);
}

TEST_F(RanksPanelTest, FourRanksOneTabWithTheRanksPanel) {
    TimelinePage page;
    page.resize(1600, 1050);
    page.show();
    QStringList files;
    for (const auto& f : s_set->files)
        files << QString::fromStdString(f);
    std::reverse(files.begin(), files.end()); // file order is not rank order
    RanksPanel* panel = openRanks(&page, files);
    QSignalSpy ready(panel, &RanksPanel::analysisReady);
    ASSERT_TRUE(ready.wait(120000));
    // The view may still be indexing its slices, or the page finishing a job, under load.
    ASSERT_TRUE(QTest::qWaitFor([&] { return !page.isBusy(); }, 120000));

    // One layer per rank, in rank order, each a collapsible group.
    TimelineView* view = page.view();
    ASSERT_EQ(view->layers().size(), 4u);
    for (int r = 0; r < 4; ++r)
        EXPECT_TRUE(
            view->layers()[std::size_t(r)].title.startsWith(QStringLiteral("rank %1").arg(r)))
            << view->layers()[std::size_t(r)].title.toStdString();
    const auto rowsBefore = view->layout().scrolled.size();
    view->setLayerCollapsed(1, true);
    EXPECT_TRUE(view->isLayerCollapsed(1));
    EXPECT_LT(view->layout().scrolled.size(), rowsBefore);
    int layerRows = 0;
    for (const view::LayoutRow& row : view->layout().scrolled)
        if (row.layer == 1) ++layerRows;
    EXPECT_EQ(layerRows, 1); // its header only
    view->setLayerCollapsed(1, false);
    EXPECT_EQ(view->layout().scrolled.size(), rowsBefore);
    EXPECT_EQ(page.panels()->currentWidget(), panel);

    // As recorded: the ranks' clocks are 1 s apart.
    EXPECT_EQ(panel->alignment().offsetNs, (std::vector<std::int64_t>{0, 0, 0, 0}));

    // The analysis: rank 2 is the straggler of ProfilerStep#18 by the delay.
    const timeline::SessionAnalysis* a = panel->analysis();
    ASSERT_TRUE(a);
    int col = -1;
    for (int c = 0; c < int(a->steps.size()); ++c)
        if (a->steps[std::size_t(c)].name == "ProfilerStep#18") col = c;
    ASSERT_GE(col, 0);
    EXPECT_EQ(a->steps[std::size_t(col)].slowestRank, 2);
    EXPECT_EQ(a->steps[std::size_t(col)].skewNs, kDelayUs * 1000);
    EXPECT_EQ(a->perRank[2].temporal.idleNs - a->perRank[0].temporal.idleNs, kDelayUs * 1000);

    // Heatmap: step time, the slowest rank outlined; its cell is darker than the others.
    RankHeatmap* map = panel->heatmap();
    ASSERT_EQ(map->rowCount(), 4);
    ASSERT_EQ(map->columnCount(), int(a->steps.size()));
    EXPECT_DOUBLE_EQ(map->value(2, col) - map->value(0, col), double(kDelayUs * 1000));
    EXPECT_LT(map->cellColour(2, col).lightness(), map->cellColour(0, col).lightness());
    panel->setHeatmapMode(RanksPanel::HeatmapMode::IdleTime);
    EXPECT_DOUBLE_EQ(map->value(2, col) - map->value(0, col), double(kDelayUs * 1000));
    panel->setHeatmapMode(RanksPanel::HeatmapMode::StepTime);

    // Tables: the same figures as the command line (ranks_report), sortable, CSV.
    ReportTableView* ranks = panel->table(QStringLiteral("ranks"));
    ASSERT_TRUE(ranks);
    EXPECT_EQ(ranks->model()->rowCount(), 4);
    ReportTableView* strag = panel->table(QStringLiteral("stragglers"));
    ASSERT_TRUE(strag);
    EXPECT_EQ(strag->model()->rowCount(), int(a->steps.size()));
    test::TempDir out;
    for (const char* name : {"ranks", "idle_by_stream", "steps", "stragglers", "top_kernels"}) {
        ReportTableView* t = panel->table(QString::fromLatin1(name));
        ASSERT_TRUE(t) << name;
        EXPECT_GT(t->model()->rowCount(), 0) << name;
        const QString path = QString::fromStdString(out.file(std::string(name) + ".csv"));
        ASSERT_TRUE(t->exportCsv(path).isOk()) << name;
        EXPECT_EQ(firstLine(path).toStdString(),
                  reportTableCsv(t->model()->table())
                      .substr(0, reportTableCsv(t->model()->table()).find('\n')))
            << name;
    }
    // Sorted by skew, descending: the delayed step comes first, and so in the CSV.
    strag->view()->sortByColumn(3, Qt::DescendingOrder);
    const QString sortedCsv = QString::fromStdString(out.file("sorted.csv"));
    ASSERT_TRUE(strag->exportCsv(sortedCsv).isOk());
    {
        QFile f(sortedCsv);
        ASSERT_TRUE(f.open(QIODevice::ReadOnly));
        f.readLine();
        EXPECT_TRUE(f.readLine().startsWith("ProfilerStep#18,2,"));
    }

    // Align at a step: every rank's ProfilerStep#17 starts where rank 0's does.
    timeline::AlignSpec spec;
    spec.mode = timeline::AlignMode::Step;
    spec.step = "ProfilerStep#17";
    panel->applyAlignment(spec);
    for (int r = 0; r < 4; ++r) {
        EXPECT_EQ(panel->alignment().offsetNs[std::size_t(r)], -std::int64_t(r) * 1000000000) << r;
        EXPECT_EQ(view->layers()[std::size_t(r)].offsetNs, -std::int64_t(r) * 1000000000);
    }
    QTableWidget* offsets = panel->offsetsTable();
    ASSERT_EQ(offsets->rowCount(), 4);
    EXPECT_EQ(offsets->item(3, 2)->text(), QStringLiteral("-3000000.000"));
    ASSERT_TRUE(panel->exportOffsetsCsv(QString::fromStdString(out.file("offsets.csv"))).isOk());
    EXPECT_EQ(firstLine(QString::fromStdString(out.file("offsets.csv"))),
              QStringLiteral("rank,file,offset_us,anchored"));
    // An edited offset moves the layer.
    offsets->item(1, 2)->setText(QStringLiteral("-999990"));
    EXPECT_EQ(view->layers()[1].offsetNs, -999990000);
    EXPECT_EQ(panel->alignment().offsetNs[1], -999990000);
    panel->setRankOffset(1, -1000000000);

    // The alignment controls offer the steps and the collectives (none in this trace).
    panel->alignMode()->setCurrentIndex(1);
    EXPECT_GT(panel->alignAnchor()->count(), 3);

    // A click on the delayed cell shows rank 2's step 18 in the timeline.
    panel->tabs()->setCurrentIndex(1);
    QApplication::processEvents();
    const QRect cell = map->cellRect(2, col);
    ASSERT_FALSE(cell.isEmpty());
    view->setLayerCollapsed(2, true);
    QTest::mouseClick(map, Qt::LeftButton, {}, cell.center());
    EXPECT_EQ(view->selectedLayer(), 2);
    ASSERT_NE(view->selectedSlice(), timeline::kNoIndex);
    const auto& l2 = view->layers()[2];
    EXPECT_EQ(l2.store->str(l2.store->sliceName()[view->selectedSlice()]), "ProfilerStep#18");
    EXPECT_FALSE(view->isLayerCollapsed(2));
    const qint64 stepStart = l2.store->sliceStart()[view->selectedSlice()] + l2.offsetNs;
    const qint64 stepEnd = l2.store->sliceEnd(view->selectedSlice()) + l2.offsetNs;
    EXPECT_LE(view->viewStart(), stepStart);
    EXPECT_GE(view->viewEnd(), stepEnd);
    EXPECT_LT(view->viewEnd() - view->viewStart(), (stepEnd - stepStart) * 12 / 10);

    // Look at it: the steps tab (timeline above, heatmap below) and the per-rank tab.
    for (int r : {0, 1, 3})
        view->setLayerCollapsed(r, true);
    QApplication::processEvents();
    const QImage steps = shot(page, "ranks_steps");
    EXPECT_GT(distinctColours(steps), 40);
    panel->tabs()->setCurrentIndex(0);
    QApplication::processEvents();
    const QImage perRank = shot(page, "ranks_per_rank");
    EXPECT_GT(distinctColours(perRank), 20);
    // The stacked bars: idle, compute, non-compute of each rank sum to the bar's width.
    RankBarsChart* bars = panel->timeBars();
    ASSERT_EQ(bars->bars().size(), 4u);
    const double width = bars->segmentRect(0, 0).width() + bars->segmentRect(0, 1).width() +
                         bars->segmentRect(0, 2).width();
    EXPECT_NEAR(width,
                bars->segmentRect(1, 0).width() + bars->segmentRect(1, 1).width() +
                    bars->segmentRect(1, 2).width(),
                1e-6);
    // Rank 2 idles longer: its idle segment is wider.
    EXPECT_GT(bars->segmentRect(2, 0).width(), bars->segmentRect(0, 0).width());
    panel->tabs()->setCurrentIndex(2);
    QApplication::processEvents();
    shot(page, "ranks_idle");
}

TEST_F(RanksPanelTest, MainWindowOpensADirectoryAsOneRanksTab) {
    test::TempDir settings;
    MainWindow w(QString::fromStdString(settings.file("xtview.ini")));
    w.resize(1500, 950);
    w.show();
    w.openPaths({QString::fromStdString(s_dir->str())});
    TimelinePage* page = w.currentTimelinePage();
    ASSERT_TRUE(page);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !page->isBusy(); }, 120000));
    RanksPanel* panel = page->findChild<RanksPanel*>();
    ASSERT_TRUE(panel);
    ASSERT_TRUE(QTest::qWaitFor([&] { return panel->analysis() != nullptr; }, 60000));
    EXPECT_EQ(page->view()->layers().size(), 4u);
    shot(w, "ranks_main_window");
}

// Four ranks, six steps: a compute kernel then an all-reduce per step. In step 3 rank 1's
// compute takes 200 us longer, so the others wait 200 us in the all-reduce.
std::string collectiveRank(int rank) {
    std::string ev;
    auto add = [&](const std::string& e) { ev += (ev.empty() ? "" : ",\n") + e; };
    int corr = 1;
    for (int s = 1; s <= 6; ++s) {
        const int t = s * 1000 + rank * 7; // clocks slightly apart
        const int late = s == 3 && rank == 1 ? 200 : 0;
        const int wait = s == 3 && rank != 1 ? 200 : 0;
        auto x = [&](const char* name, const char* cat, const char* pid, const char* tid, int ts,
                     int dur, int c) {
            char buf[400];
            std::snprintf(buf, sizeof buf,
                          R"({"ph":"X","name":"%s","cat":"%s","pid":%s,"tid":%s,"ts":%d,)"
                          R"("dur":%d,"args":{"correlation":%d}})",
                          name, cat, pid, tid, ts, dur, c);
            add(buf);
        };
        char step[32];
        std::snprintf(step, sizeof step, "ProfilerStep#%d", s);
        x(step, "user_annotation", "1", "1", t, 900, 0);
        x("cudaLaunchKernel", "cuda_runtime", "1", "1", t + 10, 5, corr);
        x("gemm", "kernel", "0", "7", t + 20, 500 + late, corr++);
        x("cudaLaunchKernel", "cuda_runtime", "1", "1", t + 20, 5, corr);
        x("ncclDevKernel_AllReduce_Sum_f32_RING_LL", "kernel", "0", "13", t + 530 + late,
          100 + wait, corr++);
    }
    return R"({"distributedInfo":{"rank":)" + std::to_string(rank) +
           R"(,"world_size":4},"traceEvents":[)" + ev + "]}";
}

TEST(RanksPanel, CollectiveWaitMarksTheRankTheOthersWaitFor) {
    ::xt::test::offscreenApp();
    test::TempDir dir;
    QStringList files;
    for (int r = 0; r < 4; ++r) {
        const std::string f = dir.file("node" + std::string(1, char('a' + r)) + ".json");
        std::ofstream(f) << collectiveRank(r);
        files << QString::fromStdString(f);
    }
    TimelinePage page;
    page.resize(1400, 900);
    page.show();
    RanksPanel* panel = openRanks(&page, files);
    QSignalSpy ready(panel, &RanksPanel::analysisReady);
    ASSERT_TRUE(ready.wait(60000));
    panel->tabs()->setCurrentIndex(1);
    panel->setHeatmapMode(RanksPanel::HeatmapMode::CollectiveWait);
    RankHeatmap* map = panel->heatmap();
    ASSERT_EQ(map->columnCount(), 6);
    EXPECT_DOUBLE_EQ(map->value(0, 2), 200e3);
    EXPECT_DOUBLE_EQ(map->value(1, 2), 0.0);
    EXPECT_DOUBLE_EQ(map->value(3, 2), 200e3);
    EXPECT_DOUBLE_EQ(map->value(0, 1), 0.0);
    EXPECT_LT(map->cellColour(0, 2).lightness(), map->cellColour(1, 2).lightness());
    // The ranks table: rank 1 waited least.
    const ReportTable& ranks = panel->table(QStringLiteral("ranks"))->model()->table();
    const auto col = std::find(ranks.columns.begin(), ranks.columns.end(), "collective_wait_us") -
                     ranks.columns.begin();
    ASSERT_LT(std::size_t(col), ranks.columns.size());
    EXPECT_EQ(ranks.rows[0][std::size_t(col)].text, "200.000");
    EXPECT_EQ(ranks.rows[1][std::size_t(col)].text, "0.000");

    // Aligned at the first all-reduce (its end): the clocks' 7 us steps are taken out.
    panel->alignMode()->setCurrentIndex(2);
    ASSERT_EQ(panel->alignAnchor()->count(), 1);
    EXPECT_EQ(panel->alignAnchor()->currentText(),
              QStringLiteral("ncclDevKernel_AllReduce_Sum_f32_RING_LL"));
    timeline::AlignSpec spec;
    spec.mode = timeline::AlignMode::Collective;
    spec.kernel = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
    spec.occurrence = 1;
    panel->applyAlignment(spec);
    EXPECT_EQ(panel->alignment().offsetNs, (std::vector<std::int64_t>{0, -7000, -14000, -21000}));
    shot(page, "ranks_collective_wait");
}

} // namespace
} // namespace xt::widgets
