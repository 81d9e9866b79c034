// xtview widgets, offscreen: item models under QAbstractItemModelTester, key tree contents,
// plot data against core/analysis statistics, export formats, the job tracker's "newest wins"
// rule, and a rendered main window (series math is tested without Qt in tests/widgets/logic).
#include "core/analysis/cpu_backend.h"
#include "core/analysis/key_stats.h"
#include "core/xdl/file_series_writer.h"
#include "resident.h"
#include "summary_file.h"
#include "temp_dir.h"
#include "webhdfs_test_server.h"
#include "widgets/diagnostics_model.h"
#include "widgets/export_dialog.h"
#include "widgets/histogram_view.h"
#include "widgets/job_tracker.h"
#include "widgets/key_tree_model.h"
#include "widgets/key_view.h"
#include "widgets/main_window.h"
#include "widgets/meta_summary_model.h"
#include "widgets/plot_export.h"
#include "widgets/plot_widget.h"
#include "widgets/rank_heatmap.h"
#include "widgets/run_browser_model.h"
#include "widgets/stat_plot.h"
#include "widgets/timeline_page.h"
#include "widgets/timeline_view.h"
#include "widgets/value_table_model.h"

#include "offscreen_app.h"
#include <QAbstractItemModelTester>

#include <QApplication>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QSemaphore>
#include <QSettings>
#include <QSignalSpy>
#include <QTest>
#include <QThreadPool>
#include <QTreeView>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <limits>
#include <set>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>

namespace xt::widgets {
namespace {
using view::XYSeries;
using xt::test::TempDir;

QString qfile(const TempDir& dir, const char* name) {
    return QString::fromStdString(dir.file(name));
}

QApplication& app() {
    return ::xt::test::offscreenApp();
}

// Ranks 0 and 1, gsteps 0..steps-1: "layer/w" float32 [4, 4] (NaN on rank 1 at gstep 3),
// "layer/b" float32 [4], "loss" float32 [].
void writeRun(const std::string& dir, int steps = 10) {
    for (int rank = 0; rank < 2; ++rank) {
        xdl::WriterOptions o;
        o.outputDir = dir;
        o.rank = rank;
        auto w = xdl::FileSeriesWriter::create(o, {"layer/w", "layer/b", "loss"});
        ASSERT_TRUE(w.isOk()) << w.status().toString();
        xdl::RecordEncoder enc;
        for (std::int64_t g = 0; g < steps; ++g) {
            enc.begin(g, g + 1);
            std::vector<float> wv(16), bv(4);
            for (int i = 0; i < 16; ++i)
                wv[std::size_t(i)] = float(rank) + float(g) * 0.1f + float(i) * 0.01f;
            if (rank == 1 && g == 3) wv[5] = std::numeric_limits<float>::quiet_NaN();
            for (int i = 0; i < 4; ++i)
                bv[std::size_t(i)] = -float(g) * float(i);
            const float loss = 1.0f / float(g + 1);
            const std::int64_t ws[] = {4, 4}, bs[] = {4};
            enc.addColumn(xdl::Dtype::Float, ws,
                          xdl::Bytes(reinterpret_cast<const std::uint8_t*>(wv.data()), 64));
            enc.addColumn(xdl::Dtype::Float, bs,
                          xdl::Bytes(reinterpret_cast<const std::uint8_t*>(bv.data()), 16));
            enc.addColumn(xdl::Dtype::Float, {},
                          xdl::Bytes(reinterpret_cast<const std::uint8_t*>(&loss), 4));
            ASSERT_TRUE(enc.finish(1700000000000 + g * 100).isOk());
            ASSERT_TRUE((*w)->write(enc.framed(), g, g + 1, 1700000000000 + g * 100).isOk());
        }
        ASSERT_TRUE((*w)->close().isOk());
    }
}

LoadResult load(const std::string& dir) {
    LoadResult r = loadRuns({dir}, {});
    EXPECT_TRUE(r.status.isOk()) << r.status.toString();
    EXPECT_EQ(r.runs.size(), 1u);
    return r;
}

// The graph of `plot` named `name`, or null.
QCPGraph* graphNamed(const StatPlot& plot, const QString& name) {
    for (int i = 0; i < plot.plot()->graphCount(); ++i)
        if (plot.plot()->graph(i)->name() == name) return plot.plot()->graph(i);
    return nullptr;
}

QStringList collectKeys(const QAbstractItemModel& m, const QModelIndex& parent = {}) {
    QStringList out;
    for (int r = 0; r < m.rowCount(parent); ++r) {
        const QModelIndex i = m.index(r, 0, parent);
        const QString k = i.data(KeyTreeModel::KeyRole).toString();
        if (!k.isEmpty()) out << k;
        out << collectKeys(m, i);
    }
    return out;
}

TEST(Models, PassTheModelTesterAndShowTheKeys) {
    app();
    TempDir dir;
    writeRun(dir.str());
    LoadResult r = load(dir.str());
    ASSERT_EQ(r.runs.size(), 1u);

    KeyTreeModel keys;
    QAbstractItemModelTester t1(&keys, QAbstractItemModelTester::FailureReportingMode::Fatal);
    keys.setRun(r.runs[0]);
    QStringList found = collectKeys(keys);
    found.sort();
    EXPECT_EQ(found, (QStringList{"layer/b", "layer/w", "loss"}));
    const QModelIndex w = keys.indexOfKey("layer/w");
    ASSERT_TRUE(w.isValid());
    EXPECT_EQ(w.data().toString(), "w");
    EXPECT_EQ(w.parent().data().toString(), "layer");
    EXPECT_TRUE(w.data(KeyTreeModel::NonFiniteRole).toBool());
    EXPECT_TRUE(w.parent().data(KeyTreeModel::NonFiniteRole).toBool());
    EXPECT_EQ(keys.index(w.row(), KeyTreeModel::IssuesColumn, w.parent()).data().toString(),
              "NaN @3");
    EXPECT_EQ(keys.index(w.row(), KeyTreeModel::ShapeColumn, w.parent()).data().toString(),
              "[4, 4]");
    EXPECT_EQ(keys.index(w.row(), KeyTreeModel::DtypeColumn, w.parent()).data().toString(),
              "float32");
    EXPECT_FALSE(keys.indexOfKey("loss").data(KeyTreeModel::NonFiniteRole).toBool());

    RunBrowserModel runs;
    QAbstractItemModelTester t2(&runs, QAbstractItemModelTester::FailureReportingMode::Fatal);
    runs.setRuns(r.runs);
    ASSERT_EQ(runs.rowCount(), 1);
    const QModelIndex run = runs.index(0, 0);
    EXPECT_EQ(runs.rowCount(run), 2);
    EXPECT_EQ(runs.index(0, RunBrowserModel::StatusColumn).data().toString(), "finalised");
    EXPECT_EQ(runs.index(1, RunBrowserModel::RecordsColumn, run).data().toULongLong(), 10u);
    EXPECT_EQ(runs.index(0, 0, runs.index(1, 0, run)).data(RunBrowserModel::RankRole).toInt(), 1);

    MetaSummaryModel meta;
    QAbstractItemModelTester t3(&meta, QAbstractItemModelTester::FailureReportingMode::Fatal);
    meta.setRun(r.runs[0]);
    ASSERT_EQ(meta.rowCount(), 4); // one part + a total per rank
    EXPECT_EQ(meta.index(0, MetaSummaryModel::GstepColumn).data().toString(), "0 .. 9");
    EXPECT_EQ(meta.index(0, MetaSummaryModel::DurationColumn).data().toString(), "0.900s");
    EXPECT_EQ(meta.index(0, MetaSummaryModel::FinalisedColumn).data().toString(), "yes");

    DiagnosticsModel diag;
    QAbstractItemModelTester t4(&diag, QAbstractItemModelTester::FailureReportingMode::Fatal);
    Diagnostics d;
    d.add(Severity::Error, "truncated-record", "f", 12, 3, "cut short");
    diag.setDiagnostics(d);
    diag.addMessage(codes::kHdfsOffline, "y"); // a warning: the error count stays 1
    EXPECT_EQ(diag.rowCount(), 2);
    EXPECT_EQ(diag.index(0, DiagnosticsModel::OffsetColumn).data().toULongLong(), 12u);
    EXPECT_EQ(diag.errorCount(), 1u);

    ValueTableModel values;
    QAbstractItemModelTester t5(&values, QAbstractItemModelTester::FailureReportingMode::Fatal);
    const auto* rank1 = r.runs[0]->reader->rank(1);
    auto t = rank1->tensor(*rank1->findGstep(3), "layer/w");
    ASSERT_TRUE(t.isOk());
    values.setTensor(r.runs[0], *t);
    EXPECT_TRUE(values.isMatrix());
    EXPECT_EQ(values.rowCount(), 4);
    EXPECT_EQ(values.columnCount(), 4);
    EXPECT_EQ(values.index(1, 1).data().toString(), "nan");
    EXPECT_FLOAT_EQ(values.index(0, 2).data(ValueTableModel::ValueRole).toFloat(), 1.32f);
}

// A resize while a replot is queued (new data and a layout change in the same turn of the event
// loop) draws once, at the new size; a resize alone draws at once, as QCustomPlot does.
TEST(PlotWidget, AResizeWithAReplotQueuedDrawsOnce) {
    app();
    PlotWidget plot;
    plot.resize(400, 300);
    plot.addGraph()->setData({0, 1, 2}, {1, 3, 2});
    plot.show();
    QCoreApplication::processEvents();
    int replots = 0;
    QObject::connect(&plot, &QCustomPlot::afterReplot, [&] { ++replots; });
    plot.resize(400, 320);
    EXPECT_EQ(replots, 1);
    EXPECT_EQ(plot.viewport().height(), 320);

    plot.graph(0)->setData({0, 1, 2}, {2, 1, 3});
    plot.replot(QCustomPlot::rpQueuedReplot);
    plot.resize(400, 340);
    EXPECT_EQ(replots, 1); // not yet: the queued replot draws
    QCoreApplication::processEvents();
    EXPECT_EQ(replots, 2);
    EXPECT_EQ(plot.viewport().height(), 340);
    EXPECT_EQ(plot.axisRect()->outerRect().height(), 340);
    EXPECT_EQ(plot.toPixmap().height(), 340);
}

// Counts the events of one type that reach the objects it filters.
struct EventCounter : QObject {
    explicit EventCounter(QEvent::Type type) : type(type) {}
    bool eventFilter(QObject*, QEvent* e) override {
        n += e->type() == type;
        return false;
    }
    QEvent::Type type;
    int n = 0;
};

// Counts the paints of a window that happen while `what` runs (a synchronous UpdateRequest).
int paintsDuring(QWidget& window, const std::function<void()>& what) {
    EventCounter counter(QEvent::UpdateRequest);
    window.installEventFilter(&counter);
    what();
    window.removeEventFilter(&counter);
    return counter.n;
}

// Neither a replot nor a job's progress paints the window there and then (QCustomPlot's and
// QProgressBar's default: the whole window's due paint, in the middle of another event); both
// are painted in the window's next paint.
TEST(PlotWidget, AReplotAndAProgressLeaveTheWindowsPaintToItsTurn) {
    app();
    QWidget window;
    window.resize(500, 400);
    auto* plot = new PlotWidget(&window);
    plot->setGeometry(0, 0, 500, 350);
    auto* bar = new QProgressBar(&window);
    bar->setGeometry(0, 360, 500, 30);
    plot->addGraph()->setData({0, 1, 2}, {1, 3, 2});
    window.show();
    QCoreApplication::processEvents();
    int replots = 0;
    QObject::connect(plot, &QCustomPlot::afterReplot, [&] { ++replots; });
    EXPECT_EQ(paintsDuring(window, [&] { plot->replot(); }), 0);
    EXPECT_EQ(replots, 1); // the layers were drawn
    EXPECT_EQ(paintsDuring(window, [&] { showProgress(bar, 250, 1000); }), 0);
    EXPECT_EQ(bar->value(), 250);
    EXPECT_EQ(paintsDuring(window, [&] { showProgress(bar, 0, 0); }), 0);
    EXPECT_EQ(bar->maximum(), 0); // busy
    EXPECT_EQ(paintsDuring(window, [] { QCoreApplication::processEvents(); }), 1);
    QProgressBar plain(&window);
    plain.setRange(0, 1000);
    plain.show();
    QCoreApplication::processEvents();
    EXPECT_GT(paintsDuring(window, [&] { plain.setValue(600); }), 0); // what showProgress avoids
}

// A job's progress as a bar without text and a label beside it whose text changes without a
// paint there and then, and without laying the window out again.
TEST(ProgressStrip, ShowsTheStageAndPercentageBesideATextlessBar) {
    app();
    QWidget window;
    auto* layout = new QVBoxLayout(&window);
    auto* strip = new ProgressStrip(QStringLiteral("Summarising 100%"), 160, &window);
    layout->addWidget(strip);
    window.show();
    QCoreApplication::processEvents();
    EXPECT_FALSE(strip->bar()->isTextVisible());
    const QSize labelSize = strip->label()->size();
    EventCounter layouts(QEvent::LayoutRequest);
    window.installEventFilter(&layouts);
    strip->installEventFilter(&layouts);
    EXPECT_EQ(paintsDuring(window, [&] { strip->setProgress(420, 1000, "Summarising"); }), 0);
    EXPECT_EQ(strip->label()->text(), "Summarising 42%");
    EXPECT_EQ(strip->bar()->value(), 420);
    strip->setProgress(7, 0, "Checking summaries");
    EXPECT_EQ(strip->label()->text(), "Checking summaries");
    EXPECT_EQ(strip->bar()->maximum(), 0); // busy
    strip->setProgress(2000, 1000, "keys 3/3");
    EXPECT_EQ(strip->label()->text(), "keys 3/3 100%");
    QCoreApplication::processEvents();
    EXPECT_EQ(layouts.n, 0);
    EXPECT_EQ(strip->label()->size(), labelSize);
    window.removeEventFilter(&layouts);
    strip->removeEventFilter(&layouts);
    strip->reset(true);
    EXPECT_EQ(strip->bar()->value(), strip->bar()->maximum());
    EXPECT_TRUE(strip->label()->text().isEmpty());
    strip->setBusy();
    EXPECT_EQ(strip->bar()->maximum(), 0);
}

// The progress bar of jobs paints flat rectangles: its frame, then the part done in the
// highlight colour and the rest in the base colour; while busy, a block that slides across
// while the bar is shown, and stops when it is hidden or busy no more.
TEST(FlatProgressBar, PaintsThePartDoneAndSlidesABlockWhileBusy) {
    app();
    QWidget window;
    window.resize(300, 60);
    auto* bar = new FlatProgressBar(&window);
    bar->setGeometry(10, 10, 202, 20); // 200 pixels inside the frame
    bar->setTextVisible(false);
    window.show();
    QCoreApplication::processEvents();
    const QRgb fill = bar->palette().color(QPalette::Highlight).rgb();
    const QRgb base = bar->palette().color(QPalette::Base).rgb();
    const QRgb frame = bar->palette().color(QPalette::Mid).rgb();
    ASSERT_NE(fill, base);
    const auto row = [&] { // the inside's middle row, 200 pixels
        const QImage img = bar->grab().toImage();
        std::vector<QRgb> out;
        for (int x = 1; x <= 200; ++x)
            out.push_back(img.pixel(x, 10));
        EXPECT_EQ(img.pixel(0, 10), frame);
        EXPECT_EQ(img.pixel(5, 0), frame);
        return out;
    };
    const auto filled = [&](const std::vector<QRgb>& r) {
        return std::count(r.begin(), r.end(), fill);
    };
    showProgress(bar, 420, 1000);
    std::vector<QRgb> r = row();
    EXPECT_EQ(filled(r), 84);
    EXPECT_EQ(r.front(), fill);
    EXPECT_EQ(r.back(), base);
    EXPECT_EQ(std::count(r.begin(), r.end(), base), 116);
    showProgress(bar, 1000, 1000);
    EXPECT_EQ(filled(row()), 200);
    showProgress(bar, 0, 1000);
    EXPECT_EQ(filled(row()), 0);

    showProgress(bar, 0, 0); // busy: a block of a quarter of the width, moving
    QCoreApplication::processEvents();
    const std::vector<QRgb> before = row();
    EXPECT_LE(filled(before), 50);
    QElapsedTimer waited;
    waited.start();
    std::vector<QRgb> after = before;
    while (after == before && waited.elapsed() < 2000) {
        QTest::qWait(20);
        after = row();
    }
    EXPECT_NE(after, before) << "the busy block did not move";
    EXPECT_LE(filled(after), 50);
    bar->hide();
    QTest::qWait(100); // the next tick stops the timer: nothing is painted while hidden
    EventCounter paints(QEvent::Paint);
    bar->installEventFilter(&paints);
    bar->show();
    QTest::qWait(300); // shown again: painted, which starts the block moving again
    EXPECT_GE(paints.n, 3);
    showProgress(bar, 500, 1000); // busy no more: the block stops
    QTest::qWait(100);
    paints.n = 0;
    QTest::qWait(300);
    EXPECT_EQ(paints.n, 0);
    bar->removeEventFilter(&paints);
    EXPECT_EQ(filled(row()), 100);
    bar->setTextVisible(true); // "50%" over the bar
    const QImage img = bar->grab().toImage();
    int textPixels = 0;
    for (int y = 1; y < img.height() - 1; ++y)
        for (int x = 1; x < img.width() - 1; ++x)
            textPixels += img.pixel(x, y) != fill && img.pixel(x, y) != base;
    EXPECT_GT(textPixels, 20);
}

TEST(StatPlot, PlottedDataEqualsTheComputedStatistics) {
    app();
    TempDir dir;
    writeRun(dir.str());
    LoadResult r = load(dir.str());
    ASSERT_EQ(r.runs.size(), 1u);
    // Independent computation through the analysis engine.
    Diagnostics diag;
    analysis::CpuBackend backend;
    analysis::KeyStatsOptions opts;
    opts.keyFilter = [](std::string_view k) { return k == "layer/w"; };
    auto series = analysis::computeKeyStats(*r.runs[0]->reader, backend, opts, diag);
    ASSERT_TRUE(series.isOk());
    ASSERT_EQ(series->size(), 2u);

    StatPlot plot;
    plot.resize(800, 500);
    plot.setData(r.runs[0], "layer/w");
    for (const auto& s : *series) {
        const auto mean = plot.lineData(QStringLiteral("rank %1 mean").arg(s.rank));
        const auto lo = plot.lineData(QStringLiteral("rank %1 min-max lower").arg(s.rank));
        const auto hi = plot.lineData(QStringLiteral("rank %1 min-max upper").arg(s.rank));
        ASSERT_TRUE(mean && lo && hi);
        ASSERT_EQ(mean->x.size(), s.records.size());
        for (std::size_t i = 0; i < s.records.size(); ++i) {
            EXPECT_EQ(mean->x[i], double(s.records[i].gstep));
            EXPECT_EQ(mean->y[i], s.records[i].stats.mean);
            EXPECT_EQ(lo->y[i], s.records[i].stats.min);
            EXPECT_EQ(hi->y[i], s.records[i].stats.max);
        }
        // What QCustomPlot draws is the same data (small series are not decimated).
        QCPGraph* g = graphNamed(plot, QStringLiteral("rank %1 mean").arg(s.rank));
        ASSERT_TRUE(g);
        ASSERT_EQ(g->data()->size(), int(s.records.size()));
        EXPECT_EQ(g->data()->at(3)->value, s.records[3].stats.mean);
    }
    const auto marks = plot.lineData("NaN/Inf");
    ASSERT_TRUE(marks);
    EXPECT_EQ(marks->x, (std::vector<double>{3}));

    // Aggregated ranks: the median of the per-rank means (of two, their mean).
    StatPlotOptions o;
    o.aggregateRanks = true;
    plot.setOptions(o);
    const auto agg = plot.lineData("median of ranks");
    ASSERT_TRUE(agg);
    ASSERT_EQ(agg->y.size(), 10u);
    EXPECT_NEAR(agg->y[0],
                ((*series)[0].records[0].stats.mean + (*series)[1].records[0].stats.mean) / 2,
                1e-12);
}

// A run of `ranks` ranks with one scalar key "loss" over 5 gsteps.
// `steps` records of `rank` at gsteps 0.. of scalar float keys: values(g) gives a value per key.
void writeScalarRun(const std::string& dir, const std::vector<std::string>& keys,
                    std::int64_t steps,
                    const std::function<std::vector<float>(std::int64_t)>& values, int rank = 0) {
    xdl::WriterOptions o;
    o.outputDir = dir;
    o.rank = rank;
    auto w = xdl::FileSeriesWriter::create(o, keys);
    ASSERT_TRUE(w.isOk()) << w.status().toString();
    xdl::RecordEncoder enc;
    for (std::int64_t g = 0; g < steps; ++g) {
        enc.begin(g, g);
        const std::vector<float> v = values(g);
        for (const float& x : v)
            enc.addColumn(xdl::Dtype::Float, {},
                          xdl::Bytes(reinterpret_cast<const std::uint8_t*>(&x), 4));
        ASSERT_TRUE(enc.finish(1700000000000 + g).isOk());
        ASSERT_TRUE((*w)->write(enc.framed(), g, g, 1700000000000 + g).isOk());
    }
    ASSERT_TRUE((*w)->close().isOk());
}

void writeManyRanks(const std::string& dir, int ranks) {
    for (int rank = 0; rank < ranks; ++rank) {
        xdl::WriterOptions o;
        o.outputDir = dir;
        o.rank = rank;
        auto w = xdl::FileSeriesWriter::create(o, {"loss"});
        ASSERT_TRUE(w.isOk()) << w.status().toString();
        xdl::RecordEncoder enc;
        for (std::int64_t g = 0; g < 5; ++g) {
            enc.begin(g, g + 1);
            const float loss = float(rank) + 1.0f / float(g + 1);
            enc.addColumn(xdl::Dtype::Float, {},
                          xdl::Bytes(reinterpret_cast<const std::uint8_t*>(&loss), 4));
            ASSERT_TRUE(enc.finish(1700000000000 + g).isOk());
            ASSERT_TRUE((*w)->write(enc.framed(), g, g + 1, 1700000000000 + g).isOk());
        }
        ASSERT_TRUE((*w)->close().isOk());
    }
}

TEST(RankStepHeatmap, IsBuiltWhenItsTabIsShownNotWhileHidden) {
    app();
    TempDir dir;
    writeManyRanks(dir.str() + "/a", 12);
    writeManyRanks(dir.str() + "/b", 10);
    LoadResult a = load(dir.str() + "/a"), b = load(dir.str() + "/b");
    ASSERT_EQ(a.runs.size(), 1u);
    ASSERT_EQ(b.runs.size(), 1u);
    KeyView view;
    view.resize(900, 600);
    view.show();
    view.setData(a.runs[0], "loss");
    view.lowerTabs()->setCurrentIndex(1);
    RankStepHeatmap* map = view.rankHeatmap();
    auto* cells = qobject_cast<QCPColorMap*>(map->plot()->plottable(0));
    ASSERT_TRUE(cells);
    EXPECT_EQ(cells->data()->valueSize(), 12); // on screen: built at once

    // Behind another tab, new data waits (the grid is a pass over every record)...
    view.lowerTabs()->setCurrentIndex(0);
    map->setData(b.runs[0], "loss");
    EXPECT_EQ(cells->data()->valueSize(), 12);
    // ...until the tab is shown, or a cell is asked for.
    view.lowerTabs()->setCurrentIndex(1);
    EXPECT_EQ(cells->data()->valueSize(), 10);
    EXPECT_FLOAT_EQ(float(map->cellValue(9, 1)), 9.5f);
    EXPECT_TRUE(std::isnan(map->cellValue(11, 1)));
    view.lowerTabs()->setCurrentIndex(0);
    map->setData(a.runs[0], "loss");
    EXPECT_FLOAT_EQ(float(map->cellValue(11, 3)), 11.25f);
    EXPECT_EQ(cells->data()->valueSize(), 12);
}

TEST(RankStepHeatmap, TheGridOfALargeSeriesIsBuiltInTheBackground) {
    app();
    TempDir dir;
    const std::int64_t n = std::int64_t(StatPlot::kBackgroundBuildRecords) / 2 + 5000; // a rank
    auto lossAt = [](int rank, std::int64_t g) { return float(rank) + float(g % 7) / 10; };
    for (int rank : {0, 1})
        writeScalarRun(
            dir.str(), {"loss", "lr"}, n,
            [&](std::int64_t g) {
                return std::vector<float>{lossAt(rank, g), 2 * lossAt(rank, g)};
            },
            rank);
    LoadResult r = load(dir.str());
    ASSERT_EQ(r.runs.size(), 1u);
    KeyView view;
    view.resize(900, 600);
    view.show();
    RankStepHeatmap* map = view.rankHeatmap();
    // The mean of a column's records: kMaxColumns columns over the n steps.
    const double width = double(n) / RankStepHeatmap::kMaxColumns;
    auto columnMean = [&](int rank, std::int64_t g) {
        const int c = int(double(g) / width);
        double sum = 0, count = 0;
        for (std::int64_t k = 0; k < n; ++k)
            if (int(double(k) / width) == c) sum += lossAt(rank, k), ++count;
        return sum / count;
    };
    view.setData(r.runs[0], "lr");
    view.lowerTabs()->setCurrentIndex(1);
    EXPECT_TRUE(map->isBuilding());
    EXPECT_TRUE(view.isBusy());
    EXPECT_TRUE(std::isnan(map->cellValue(0, 0))); // nothing until it is built
    // The build of lr is superseded (KeyView shows the histograms tab again for two ranks).
    view.setData(r.runs[0], "loss");
    view.lowerTabs()->setCurrentIndex(1);
    EXPECT_TRUE(map->isBuilding());
    ASSERT_TRUE(QTest::qWaitFor([&] { return !view.isBusy(); }, 60000));
    for (int rank : {0, 1})
        for (std::int64_t g : {std::int64_t(0), n / 2, n - 1})
            EXPECT_NEAR(map->cellValue(rank, g), columnMean(rank, g), 1e-6) << rank << " " << g;
    QTest::qWait(300); // time for the superseded build to end
    EXPECT_NEAR(map->cellValue(1, n / 2), columnMean(1, n / 2), 1e-6);
    auto* cells = qobject_cast<QCPColorMap*>(map->plot()->plottable(0));
    ASSERT_TRUE(cells);
    EXPECT_EQ(cells->data()->keySize(), RankStepHeatmap::kMaxColumns);
    EXPECT_EQ(cells->data()->valueSize(), 2);
}

// One rank, 20 000 gsteps of a scalar "loss" near 1, with a spike to 100 and a dip to -50.
LoadResult loadSpikedScalarRun(const TempDir& dir) {
    writeScalarRun(dir.str(), {"loss"}, 20000, [](std::int64_t g) {
        return std::vector<float>{g == 12345 ? 100.0f
                                  : g == 777 ? -50.0f
                                             : 1.0f + float(g % 7) / 10};
    });
    return load(dir.str());
}

TEST(StatPlot, FitsEveryPointOfALongSeriesWhileDrawingItDecimated) {
    app();
    TempDir dir;
    LoadResult r = loadSpikedScalarRun(dir);
    ASSERT_EQ(r.runs.size(), 1u);
    StatPlot plot;
    plot.resize(800, 500);
    StatPlotOptions o;
    o.minMaxBand = o.stdBand = false;
    plot.setOptions(o);
    plot.setData(r.runs[0], "loss");
    QCPGraph* mean = graphNamed(plot, QStringLiteral("rank 0 mean"));
    ASSERT_TRUE(mean);
    EXPECT_EQ(plot.lineData(QStringLiteral("rank 0 mean"))->x.size(), 20000u);
    EXPECT_LT(mean->data()->size(), 2000); // drawn decimated
    const QCPRange x = plot.plot()->xAxis->range(), y = plot.plot()->yAxis->range();
    EXPECT_LE(x.lower, 0);
    EXPECT_GE(x.upper, 19999);
    EXPECT_LT(y.lower, -50); // the fit sees the dip and the spike, not only what was kept
    EXPECT_GT(y.upper, 100);
    EXPECT_LT(y.upper, 120);

    o.logY = true; // nothing at y <= 0: the dip is left out of the fit
    plot.setOptions(o);
    EXPECT_GT(plot.plot()->yAxis->range().lower, 0);
    EXPECT_LT(plot.plot()->yAxis->range().lower, 1);
    EXPECT_GT(plot.plot()->yAxis->range().upper, 100);
}

// With a point or more per pixel, lines are drawn without antialiasing and a pixel wide (Qt
// strokes wider pens as outlines, half of a replot's time); zoomed in, as they were built.
TEST(StatPlot, DenseLinesAreDrawnAPixelWideAndSparseOnesAsBuilt) {
    app();
    TempDir dir;
    LoadResult r = loadSpikedScalarRun(dir);
    ASSERT_EQ(r.runs.size(), 1u);
    StatPlot plot;
    plot.resize(800, 500);
    plot.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&plot));
    plot.setData(r.runs[0], "loss");
    QCPGraph* mean = graphNamed(plot, QStringLiteral("rank 0 mean"));
    ASSERT_TRUE(mean);
    ASSERT_GT(plot.plot()->axisRect()->width(), 500);
    EXPECT_GT(mean->data()->size(), plot.plot()->axisRect()->width());
    EXPECT_EQ(mean->pen().widthF(), 1.0);
    EXPECT_TRUE(plot.plot()->notAntialiasedElements() & QCP::aePlottables);
    plot.plot()->xAxis->setRange(0, 100);
    QTest::qWait(100); // the decimation follows the range
    EXPECT_LT(mean->data()->size(), plot.plot()->axisRect()->width());
    EXPECT_GT(mean->pen().widthF(), 1.0);
    EXPECT_FALSE(plot.plot()->notAntialiasedElements() & QCP::aePlottables);
}

// A band's edges are filled between, not drawn: decimated to a bucket per two pixels, the lower
// edge to each bucket's lowest point and the upper to its highest (a quarter of the points of a
// line, and edges that do not zigzag across the band: the paint's cost), so the band still covers
// every value and spike.
TEST(StatPlot, BandEdgesAreDrawnWithAQuarterOfThePointsOfALineAndKeepItsSpikes) {
    app();
    TempDir dir;
    LoadResult r = loadSpikedScalarRun(dir);
    ASSERT_EQ(r.runs.size(), 1u);
    StatPlot plot;
    plot.resize(800, 500);
    StatPlotOptions o;
    o.minMaxBand = true;
    o.stdBand = false;
    plot.setOptions(o);
    plot.setData(r.runs[0], "loss");
    QCPGraph* mean = graphNamed(plot, QStringLiteral("rank 0 mean"));
    QCPGraph* lower = graphNamed(plot, QStringLiteral("rank 0 min-max lower"));
    QCPGraph* upper = graphNamed(plot, QStringLiteral("rank 0 min-max upper"));
    ASSERT_TRUE(mean && lower && upper);
    const int buckets = std::max(200, plot.plot()->axisRect()->width());
    EXPECT_GT(mean->data()->size(), buckets); // min and max of most buckets
    EXPECT_LE(mean->data()->size(), 2 * buckets);
    EXPECT_LE(upper->data()->size(), buckets / 2 + 2); // half the buckets, a point each
    EXPECT_LE(lower->data()->size(), buckets / 2 + 2);
    EXPECT_GT(upper->data()->size(), buckets / 4);
    EXPECT_GT(lower->data()->size(), buckets / 4);
    // The edges are the line's envelope, bucket by bucket at the same keys (the band is filled
    // as a rectangle a bucket).
    ASSERT_EQ(upper->data()->size(), lower->data()->size());
    for (int i = 0; i < upper->data()->size(); ++i) {
        EXPECT_EQ(upper->data()->at(i)->key, lower->data()->at(i)->key) << i;
        EXPECT_GE(upper->data()->at(i)->value, lower->data()->at(i)->value) << i;
    }
    const auto extreme = [](QCPGraph* g, bool highest) {
        double v = highest ? -1e300 : 1e300;
        for (const QCPGraphData& p : *g->data())
            v = highest ? std::max(v, p.value) : std::min(v, p.value);
        return v;
    };
    EXPECT_EQ(extreme(upper, true), 100);
    EXPECT_EQ(extreme(lower, false), -50);
    EXPECT_EQ(extreme(mean, true), 100);
}

// The points of each graph of `plot`, as drawn.
std::vector<std::vector<std::pair<double, double>>> drawnPoints(const StatPlot& plot) {
    std::vector<std::vector<std::pair<double, double>>> points;
    for (int i = 0; i < plot.plot()->graphCount(); ++i) {
        points.emplace_back();
        for (const QCPGraphData& p : *plot.plot()->graph(i)->data())
            points.back().emplace_back(p.key, p.value);
    }
    return points;
}

TEST(StatPlot, LinesOfLargeSeriesAreBuiltInTheBackgroundAndTheNewestBuildWins) {
    app();
    TempDir dir;
    const std::int64_t n = std::int64_t(StatPlot::kBackgroundBuildRecords) + 10000;
    auto lossAt = [](std::int64_t g) { return 1.0f + float(g % 7) / 10; };
    auto lrAt = [](std::int64_t g) { return 0.001f * float(1 + g % 3); };
    writeScalarRun(dir.str(), {"loss", "lr"}, n, [&](std::int64_t g) {
        return std::vector<float>{lossAt(g), lrAt(g)};
    });
    LoadResult r = load(dir.str());
    ASSERT_EQ(r.runs.size(), 1u);
    KeyView view;
    view.resize(900, 600);
    StatPlot* plot = view.statPlot();
    auto checkMean = [&](auto valueAt) {
        const auto mean = plot->lineData(QStringLiteral("rank 0 mean"));
        ASSERT_TRUE(mean);
        ASSERT_EQ(mean->y.size(), std::size_t(n));
        for (std::int64_t g : {std::int64_t(0), std::int64_t(1), n / 2, n - 1}) {
            EXPECT_EQ(mean->x[std::size_t(g)], double(g));
            EXPECT_EQ(mean->y[std::size_t(g)], double(valueAt(g)));
        }
    };

    // The GUI thread only starts the build: nothing of it is on screen yet, and the view says
    // it is busy until it is.
    view.setData(r.runs[0], "loss");
    EXPECT_TRUE(plot->isBuilding());
    EXPECT_TRUE(view.isBusy());
    EXPECT_FALSE(plot->lineData(QStringLiteral("rank 0 mean")));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !plot->isBuilding(); }, 60000));
    checkMean(lossAt);
    EXPECT_TRUE(plot->lineData(QStringLiteral("rank 0 min-max upper")));
    // Fitted to all of it, and drawn decimated.
    EXPECT_LE(plot->plot()->xAxis->range().lower, 0);
    EXPECT_GE(plot->plot()->xAxis->range().upper, double(n - 1));
    EXPECT_GT(plot->plot()->yAxis->range().upper, 1.6);
    for (int i = 0; i < plot->plot()->graphCount(); ++i)
        EXPECT_LT(plot->plot()->graph(i)->dataCount(), 4000);
    // The build decimated the lines for that fit: the same points as decimating them here.
    auto drawn = [&] { return drawnPoints(*plot); };
    const auto fromBuild = drawn();
    plot->plot()->xAxis->setRange(10, 20);
    QTest::qWait(100); // decimated for that range
    EXPECT_NE(drawn(), fromBuild);
    plot->resetZoom();
    EXPECT_EQ(drawn(), fromBuild);

    // New options rebuild in the background too; the lines on screen stay until then.
    StatPlotOptions light = plot->options();
    light.minMaxBand = light.stdBand = false;
    plot->setOptions(light);
    EXPECT_TRUE(plot->isBuilding());
    EXPECT_TRUE(plot->lineData(QStringLiteral("rank 0 min-max upper")));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !plot->isBuilding(); }, 60000));
    EXPECT_FALSE(plot->lineData(QStringLiteral("rank 0 min-max upper")));
    checkMean(lossAt);

    // Another key: the lines of the last one leave at once. A slow build (every line) that a
    // quick one (the mean only) supersedes is never shown, even when it ends last.
    StatPlotOptions heavy = light;
    heavy.minMaxBand = heavy.stdBand = heavy.showL2 = true;
    heavy.lines = {analysis::StatField::Min, analysis::StatField::Max, analysis::StatField::Std,
                   analysis::StatField::Zeros};
    plot->setOptionsQuietly(heavy);
    plot->setData(r.runs[0], "lr");
    EXPECT_TRUE(plot->isBuilding());
    EXPECT_FALSE(plot->lineData(QStringLiteral("rank 0 mean")));
    plot->setOptionsQuietly(light);
    plot->setData(r.runs[0], "loss");
    ASSERT_TRUE(QTest::qWaitFor([&] { return !plot->isBuilding(); }, 60000));
    QTest::qWait(500); // time for the superseded build to end
    EXPECT_EQ(plot->plot()->yAxis->label(), QStringLiteral("loss"));
    checkMean(lossAt);
    EXPECT_FALSE(plot->lineData(QStringLiteral("rank 0 l2")));
    EXPECT_FALSE(plot->isBuilding());

    // A followed run updated faster than its lines are built: each build in flight is shown
    // before the next one starts, rather than superseded by every update.
    QSignalSpy applied(plot, &StatPlot::spreadChanged);
    QElapsedTimer clock;
    clock.start();
    while (applied.count() < 2 && clock.elapsed() < 20000) { // updates every 10 ms
        plot->extendRun(r.runs[0]);
        QTest::qWait(10);
    }
    EXPECT_GE(applied.count(), 2);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !plot->isBuilding(); }, 60000));
    checkMean(lossAt);
}

TEST(StatPlot, AShownPlotIsDecimatedAgainOnlyWhenItOutgrowsItsBuckets) {
    // The build decimates the lines for the width the plot has when it starts; the fit's tick
    // labels then move the axis rect's edges. Between one and two buckets a pixel draw the same:
    // the build's points stay, until the plot is made wider than its buckets.
    app();
    TempDir dir;
    const std::int64_t n = std::int64_t(StatPlot::kBackgroundBuildRecords) + 10000;
    writeScalarRun(dir.str(), {"loss"}, n, [](std::int64_t g) {
        return std::vector<float>{1000.5f + float((g * 7919) % 1009) / 7};
    });
    LoadResult r = load(dir.str());
    ASSERT_EQ(r.runs.size(), 1u);
    KeyView view;
    view.resize(900, 600);
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    QTest::qWait(50);
    StatPlot* plot = view.statPlot();
    auto drawn = [&] { return drawnPoints(*plot); };
    const int before = plot->plot()->axisRect()->width();
    view.setData(r.runs[0], "loss");
    ASSERT_TRUE(QTest::qWaitFor([&] { return !plot->isBuilding(); }, 60000));
    const auto fromBuild = drawn();
    ASSERT_FALSE(fromBuild.empty());
    QTest::qWait(150); // replotted, and the range change's decimation timer gone off
    const int width = plot->plot()->axisRect()->width();
    EXPECT_NE(width, before); // the legend and the tick labels took their room
    EXPECT_EQ(drawn(), fromBuild);
    // A tenth narrower: still a bucket a pixel or more.
    view.resize(900 - width / 10, 600);
    QTest::qWait(150);
    EXPECT_LT(plot->plot()->axisRect()->width(), width);
    EXPECT_EQ(drawn(), fromBuild);
    // Wider than its buckets: decimated again, with more points.
    view.resize(900 + width, 600);
    QTest::qWait(150);
    EXPECT_GT(plot->plot()->axisRect()->width(), width);
    const auto wider = drawn();
    ASSERT_EQ(wider.size(), fromBuild.size());
    EXPECT_GT(wider[0].size(), fromBuild[0].size());
}

TEST(StatPlot, LinesAreBuiltWhileEveryThreadOfQtsGlobalPoolIsTaken) {
    // The raster engine hands large fills to Qt's global pool and waits for them: a paint would
    // wait for a build running there. The lines are built elsewhere.
    app();
    TempDir dir;
    const std::int64_t n = std::int64_t(StatPlot::kBackgroundBuildRecords) + 10;
    writeScalarRun(dir.str(), {"loss"}, n,
                   [](std::int64_t g) { return std::vector<float>{float(g % 5)}; });
    LoadResult r = load(dir.str());
    ASSERT_EQ(r.runs.size(), 1u);
    QThreadPool* global = QThreadPool::globalInstance();
    QSemaphore taken, release;
    struct Release { // even when an assertion below fails
        QSemaphore& s;
        int n;
        ~Release() { s.release(n); }
    } releaseAtEnd{release, global->maxThreadCount()};
    for (int i = 0; i < global->maxThreadCount(); ++i)
        global->start([&] {
            taken.release();
            release.acquire();
        });
    taken.acquire(global->maxThreadCount());
    StatPlot plot;
    plot.resize(600, 400);
    plot.setData(r.runs[0], "loss");
    EXPECT_TRUE(plot.isBuilding());
    ASSERT_TRUE(QTest::qWaitFor([&] { return !plot.isBuilding(); }, 60000));
    const auto mean = plot.lineData(QStringLiteral("rank 0 mean"));
    ASSERT_TRUE(mean);
    EXPECT_EQ(mean->y.size(), std::size_t(n));
}

TEST(StatPlot, ManyRanksAreAggregatedByDefaultAndTheLegendStaysShort) {
    app();
    TempDir dir;
    writeManyRanks(dir.str(), 12);
    LoadResult r = load(dir.str());
    ASSERT_EQ(r.runs.size(), 1u);

    KeyView view;
    view.resize(900, 600);
    view.setData(r.runs[0], "loss");
    EXPECT_TRUE(view.statPlot()->options().aggregateRanks);
    EXPECT_TRUE(view.statPlot()->lineData("median of ranks"));

    // Overlaid on request: every rank is drawn, the legend names the first kLegendRanks and
    // counts the others (plus the NaN/Inf entry when there is one).
    StatPlotOptions o = view.statPlot()->options();
    o.aggregateRanks = false;
    view.statPlot()->setOptions(o);
    for (int rank = 0; rank < 12; ++rank)
        EXPECT_TRUE(view.statPlot()->lineData(QStringLiteral("rank %1 mean").arg(rank)));
    QCPLegend* legend = view.statPlot()->plot()->legend;
    ASSERT_EQ(legend->itemCount(), StatPlot::kLegendRanks + 1);
    auto* last = qobject_cast<QCPPlottableLegendItem*>(legend->item(legend->itemCount() - 1));
    ASSERT_TRUE(last);
    EXPECT_EQ(last->plottable()->name(), QStringLiteral("... and 4 more rank(s)"));

    // Two ranks stay overlaid.
    TempDir two;
    writeManyRanks(two.str(), 2);
    LoadResult r2 = load(two.str());
    ASSERT_EQ(r2.runs.size(), 1u);
    KeyView small;
    small.setData(r2.runs[0], "loss");
    EXPECT_FALSE(small.statPlot()->options().aggregateRanks);
}

bool nonBlank(const QImage& img) {
    const QRgb first = img.pixel(0, 0);
    int different = 0;
    for (int y = 0; y < img.height(); y += 3)
        for (int x = 0; x < img.width(); x += 3)
            different += img.pixel(x, y) != first;
    return different > 200;
}

TEST(Export, WritesValidPngPdfSvg) {
    app();
    TempDir dir;
    writeRun(dir.str());
    LoadResult r = load(dir.str());
    ASSERT_EQ(r.runs.size(), 1u);
    StatPlot plot;
    plot.resize(800, 500);
    plot.setData(r.runs[0], "layer/w");
    struct Case {
        const char* name;
        QByteArray magic;
    };
    for (const Case& c : {Case{"p.png", QByteArray("\x89PNG\r\n\x1a\n")},
                          Case{"p.pdf", QByteArray("%PDF-")}, Case{"p.svg", QByteArray("<?xml")}}) {
        QString error;
        ASSERT_TRUE(exportPlot(plot.plot(), qfile(dir, c.name), 800, 500, &error))
            << error.toStdString();
        QFile f(qfile(dir, c.name));
        ASSERT_TRUE(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        EXPECT_TRUE(bytes.startsWith(c.magic)) << c.name;
        EXPECT_GT(bytes.size(), 2000) << c.name;
        if (QByteArray(c.name).endsWith("svg")) EXPECT_TRUE(bytes.contains("<svg"));
    }
    QImage png(qfile(dir, "p.png"));
    ASSERT_FALSE(png.isNull());
    EXPECT_TRUE(nonBlank(png));
    // The room kept above the axes for the line drawn over a plot while its run is read is not
    // exported, and is kept on screen.
    plot.reserveTop(40);
    ASSERT_TRUE(exportPlot(plot.plot(), qfile(dir, "reserved.png"), 800, 500));
    EXPECT_EQ(QImage(qfile(dir, "reserved.png")), png);
    EXPECT_EQ(plot.plot()->plotLayout()->margins().top(), 40);
    QString error;
    EXPECT_FALSE(exportPlot(plot.plot(), qfile(dir, "p.bmp"), 0, 0, &error));
    EXPECT_FALSE(error.isEmpty());
}

TEST(JobTracker, NewestJobWins) {
    app();
    JobTracker tracker;
    std::vector<int> results;
    std::atomic<bool> firstSawCancel{false};
    tracker.startJob(
        [&](JobContext& ctx) {
            for (int i = 0; i < 400 && ctx.callback()({std::uint64_t(i), 400, "slow"}); ++i)
                QThread::msleep(5);
            firstSawCancel = ctx.cancelled.load();
            return 1;
        },
        [&](int v) { results.push_back(v); });
    tracker.startJob([](JobContext&) { return 2; }, [&](int v) { results.push_back(v); });
    EXPECT_TRUE(QTest::qWaitFor([&] { return !tracker.isRunning(); }, 10000));
    QTest::qWait(100);
    EXPECT_EQ(results, std::vector<int>{2});
    EXPECT_TRUE(QTest::qWaitFor([&] { return firstSawCancel.load(); }, 5000));
}

// Jobs run below the GUI thread (a nice of 10 for their thread, and for the threads they start),
// so that a busy background leaves the GUI thread the cores; the GUI thread keeps its own.
TEST(JobTracker, JobsRunBelowTheGuiThread) {
#ifdef __linux__
    app();
    const int gui = ::getpriority(PRIO_PROCESS, id_t(::gettid()));
    JobTracker tracker;
    std::pair<int, int> seen{-100, -100};
    tracker.startJob(
        [&](JobContext&) {
            std::pair<int, int> nice;
            nice.first = ::getpriority(PRIO_PROCESS, id_t(::gettid()));
            std::thread([&] {
                nice.second = ::getpriority(PRIO_PROCESS, id_t(::gettid()));
            }).join();
            return nice;
        },
        [&](std::pair<int, int> nice) { seen = nice; });
    EXPECT_TRUE(QTest::qWaitFor([&] { return seen.first != -100; }, 10000));
    EXPECT_EQ(seen.first, std::min(19, gui + 10));
    EXPECT_EQ(seen.second, seen.first);
    EXPECT_EQ(::getpriority(PRIO_PROCESS, id_t(::gettid())), gui);
#else
    GTEST_SKIP() << "thread priorities are set on Linux only";
#endif
}

TEST(MainWindow, LoadsARunAndRendersTheExpectedElements) {
    app();
    TempDir dir;
    writeRun(dir.str());
    MainWindow w(qfile(dir, "settings.ini"));
    w.resize(1400, 900);
    w.show();
    w.openPaths({QString::fromStdString(dir.str())});
    ASSERT_TRUE(QTest::qWaitFor([&] { return w.hasLoaded() && !w.isBusy(); }, 30000));
    ASSERT_EQ(w.runs().size(), 1u);
    QStringList keys = collectKeys(*w.keyTree()->model());
    keys.sort();
    EXPECT_EQ(keys, (QStringList{"layer/b", "layer/w", "loss"}));
    ASSERT_TRUE(w.currentKeyView());
    EXPECT_EQ(w.currentKeyView()->key(), "layer/w");
    EXPECT_TRUE(w.currentKeyView()->histogramView()->matrix());
    QStringList docks;
    for (auto* d : w.findChildren<QDockWidget*>())
        if (d->isVisible()) docks << d->windowTitle();
    docks.sort();
    EXPECT_EQ(docks, (QStringList{"Diagnostics", "Keys: train.trace", "Meta summary", "Notes",
                                  "Runs", "Value inspector"}));
    QTest::qWait(200);
    const QImage shot = w.grab().toImage();
    EXPECT_EQ(shot.width(), 1400);
    EXPECT_TRUE(nonBlank(shot));
    // A bad path ends in the diagnostics panel, not in a crash.
    w.closeAll();
    w.openPaths({qfile(dir, "does-not-exist")});
    ASSERT_TRUE(QTest::qWaitFor([&] { return !w.isBusy(); }, 30000));
    EXPECT_GE(w.diagnosticsModel()->errorCount(), 1u);
}

// One openPaths call with a Kineto trace that starts with a line feed and spaces, an XDL run
// directory and a part summary: the trace opens in a timeline tab, the run in the run loader,
// and the summary nowhere.
TEST(MainWindow, OpenPathsSortsRunsAndTimelinesByContent) {
    app();
    TempDir dir;
    writeRun(dir.file("run"));
    {
        std::ofstream(dir.file("run/train.trace.0.1.xts")) << "summary";
        std::ofstream(dir.file("kineto.json"))
            << "\n   {\n  \"traceEvents\": [\n  {\"ph\": \"X\", \"name\": \"aten::mm\", "
               "\"pid\": 1, \"tid\": 1, \"ts\": 10, \"dur\": 5}\n]}\n";
    }
    MainWindow w(qfile(dir, "settings.ini"));
    w.openPaths({qfile(dir, "kineto.json"), qfile(dir, "run")});
    auto pages = [&] { return w.findChildren<TimelinePage*>(); };
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return w.runs().size() == 1 && pages().size() == 1 && !w.isBusy(); }, 30000));
    TimelinePage* page = pages()[0];
    ASSERT_EQ(page->view()->layers().size(), 1u) << page->lastError().toStdString();
    EXPECT_EQ(page->view()->layers()[0].store->sliceCount(), 1u);
    EXPECT_EQ(w.runs()[0]->reader->ranks().size(), 2u);
    EXPECT_EQ(w.diagnosticsModel()->errorCount(), 0u);
}

// XDG_CACHE_HOME set to `dir` while the object lives (summaries and the demo run go there).
class CacheHomeIn {
public:
    explicit CacheHomeIn(const std::string& dir) : m_before(qgetenv("XDG_CACHE_HOME")) {
        qputenv("XDG_CACHE_HOME", QByteArray::fromStdString(dir));
    }
    ~CacheHomeIn() {
        if (m_before.isNull())
            qunsetenv("XDG_CACHE_HOME");
        else
            qputenv("XDG_CACHE_HOME", m_before);
    }

private:
    QByteArray m_before;
};

// The demo run is written in-process (core/demo), without any other program, then opened; a
// second request opens the cached copy.
TEST(MainWindow, WritesAndOpensTheDemoRunItself) {
    app();
    TempDir dir;
    const CacheHomeIn cacheHome(dir.file("cache"));
    const QString demo = MainWindow::demoDirectory();
    EXPECT_TRUE(demo.startsWith(qfile(dir, "cache"))) << demo.toStdString();
    {
        MainWindow w(qfile(dir, "settings.ini"));
        w.openDemoRun();
        ASSERT_TRUE(QTest::qWaitFor([&] { return w.runs().size() == 1 && !w.isBusy(); }, 60000));
        EXPECT_EQ(w.runs()[0]->reader->ranks().size(), 4u);
        EXPECT_EQ(w.diagnosticsModel()->errorCount(), 0u);
        EXPECT_TRUE(QDir(demo).exists());
        EXPECT_FALSE(QDir(demo + ".partial").exists());
        const QDateTime written = QFileInfo(demo + "/train.trace.0.1").lastModified();
        w.closeAll();
        w.openDemoRun();
        ASSERT_TRUE(QTest::qWaitFor([&] { return w.runs().size() == 1 && !w.isBusy(); }, 60000));
        EXPECT_EQ(QFileInfo(demo + "/train.trace.0.1").lastModified(), written);
    }
}

// The sizes of the series of `key`, rank by rank.
std::vector<std::size_t> seriesSizes(const RunSnapshot& run, const std::string& key) {
    std::vector<std::size_t> n;
    for (const auto* s : run->seriesOf(key))
        n.push_back(s->records.size());
    return n;
}

// What a followed run gains is kept in the cache folder, not on the heap: the chunks of its
// series sealed as it grows (and its finished parts' records, below).
TEST(RunLoader, AFollowedRunsSeriesKeepTheirNewChunksInTheCacheFolder) {
    app();
    TempDir dir;
    const CacheHomeIn cacheHome(dir.file("cache"));
    xdl::WriterOptions o;
    o.outputDir = dir.file("run");
    auto w = xdl::FileSeriesWriter::create(o, {"loss"});
    ASSERT_TRUE(w.isOk());
    xdl::RecordEncoder enc;
    auto write = [&](std::int64_t from, std::int64_t to) {
        for (std::int64_t g = from; g < to; ++g) {
            const float x = float(g % 37) / 8.0f;
            enc.begin(g, g);
            enc.addColumn(xdl::Dtype::Float, {},
                          xdl::Bytes(reinterpret_cast<const std::uint8_t*>(&x), 4));
            ASSERT_TRUE(enc.finish(1700000000000 + 10 * g).isOk());
            ASSERT_TRUE((*w)->write(enc.framed(), g, g, 1700000000000 + 10 * g).isOk());
        }
        ASSERT_TRUE((*w)->sync().isOk());
    };
    write(0, 100);
    LoadResult r = load(dir.file("run"));
    ASSERT_EQ(r.runs.size(), 1u);
    write(100, 3000);
    CompleteResult grown = extendRun(r.runs[0]);
    ASSERT_TRUE(grown.after);
    LoadResult fresh = load(dir.file("run"));
    const auto followed = grown.after->seriesOf("loss"), read = fresh.runs[0]->seriesOf("loss");
    ASSERT_EQ(followed.size(), 1u);
    ASSERT_EQ(read.size(), 1u);
    ASSERT_EQ(followed[0]->records.size(), 3000u);
    ASSERT_EQ(read[0]->records.size(), 3000u);
    for (std::size_t i = 0; i < 3000; ++i)
        ASSERT_EQ(followed[0]->records[i].stats.mean, read[0]->records[i].stats.mean) << i;
    // Five chunks of 512 records: on the heap ~4 KB each when read whole, their layouts only
    // when followed.
    EXPECT_GT(read[0]->records.heldBytes(), followed[0]->records.heldBytes() + 5 * 2048);
    ASSERT_TRUE((*w)->close().isOk());
}

TEST(RunLoader, PartExtentsGrowWithAFollowedRun) {
    app();
    TempDir dir;
    // Rank 0 starts a new part every few records: its new parts come before rank 1's.
    std::vector<std::unique_ptr<xdl::FileSeriesWriter>> writers;
    for (int rank : {0, 1}) {
        xdl::WriterOptions o;
        o.outputDir = dir.str();
        o.rank = rank;
        if (rank == 0) o.maxFileMB = 0.00006;
        auto w = xdl::FileSeriesWriter::create(o, {"loss"});
        ASSERT_TRUE(w.isOk());
        writers.push_back(std::move(w.value()));
    }
    xdl::RecordEncoder enc;
    auto write = [&](int rank, std::int64_t from, std::int64_t to) {
        auto& w = writers[std::size_t(rank)];
        for (std::int64_t g = from; g < to; ++g) {
            const float x = float(g);
            enc.begin(g, 100 + g);
            enc.addColumn(xdl::Dtype::Float, {},
                          xdl::Bytes(reinterpret_cast<const std::uint8_t*>(&x), 4));
            ASSERT_TRUE(enc.finish(1700000000000 + 10 * g).isOk());
            ASSERT_TRUE(w->write(enc.framed(), g, 100 + g, 1700000000000 + 10 * g).isOk());
        }
        ASSERT_TRUE(w->sync().isOk());
    };
    write(0, 3, 8);
    write(1, 3, 4); // one record: what a new part of rank 0 must not take for its own
    LoadResult r = load(dir.str());
    ASSERT_EQ(r.runs.size(), 1u);
    const std::vector<PartExtent>& a = r.runs[0]->partExtents;
    ASSERT_GE(a.size(), 3u);
    const PartExtent& rank0 = a.front();
    EXPECT_GE(rank0.records, 1u);
    EXPECT_EQ(rank0.g0, 3);
    EXPECT_EQ(rank0.l0, 103);
    EXPECT_EQ(rank0.t0, 1700000000030);
    EXPECT_EQ(a.back().records, 1u);
    EXPECT_EQ(a.back().g1, 3);
    write(0, 8, 12);
    write(1, 4, 12);
    CompleteResult grown = extendRun(r.runs[0]);
    ASSERT_TRUE(grown.after);
    const std::vector<PartExtent>& b = grown.after->partExtents;
    ASSERT_GT(b.size(), a.size()); // rank 0 has new parts
    // Rank 0's finished parts are shared with the snapshot before, not opened again.
    const auto& oldParts = r.runs[0]->reader->rank(0)->parts();
    const auto& newParts = grown.after->reader->rank(0)->parts();
    ASSERT_GT(newParts.size(), oldParts.size());
    std::size_t shared = 0;
    for (std::size_t p = 0; p < oldParts.size(); ++p) {
        EXPECT_EQ(oldParts[p] == newParts[p], oldParts[p]->finished()) << p;
        shared += oldParts[p] == newParts[p];
    }
    EXPECT_GE(shared, 1u);
    // Those finished since are read from one file of the cache folder, not held in memory.
    std::size_t inFile = 0;
    for (std::size_t p = 0; p < newParts.size(); ++p)
        if (newParts[p]->finished() && (p >= oldParts.size() || oldParts[p] != newParts[p])) {
            const void* records = newParts[p]->index().records().data();
            EXPECT_EQ(xt::test::smapsKbAt(records, "Anonymous"), 0u) << p;
            ++inFile;
        }
    EXPECT_GE(inFile, 2u);
    EXPECT_EQ(b.back().records, 9u); // rank 1's part, grown
    EXPECT_EQ(b.back().g1, 11);
    EXPECT_EQ(b.back().t0, 1700000000030);
    // Carried over and extended, they are what a fresh read of the run gives.
    LoadResult fresh = load(dir.str());
    ASSERT_EQ(fresh.runs.size(), 1u);
    EXPECT_EQ(b, fresh.runs[0]->partExtents);
    MetaSummaryModel meta;
    meta.setRun(grown.after);
    EXPECT_EQ(meta.index(meta.rowCount() - 1, MetaSummaryModel::GstepColumn).data().toString(),
              "3 .. 11"); // rank 1's total
    for (auto& w : writers)
        ASSERT_TRUE(w->close().isOk());
}

// A large run opened without summaries: the first key's statistics come in doubling stages,
// each snapshot's series a prefix of the whole, the last one equal to one pass over the run.
TEST(RunLoader, ReadsTheFirstKeyOfALargeRunInStages) {
    app();
    TempDir dir;
    writeRun(dir.str(), 40);
    LoadOptions options;
    options.lazyAboveBytes = 0; // every run counts as large
    options.firstKey = "layer/b";
    options.firstStageBytes = 1; // a record per rank
    options.store.cacheDir = dir.file("cache");
    options.store.save = false;
    LoadResult r = loadRuns({dir.str()}, {}, options);
    ASSERT_TRUE(r.status.isOk()) << r.status.toString();
    ASSERT_EQ(r.runs.size(), 1u);
    RunSnapshot run = r.runs[0];
    EXPECT_FALSE(run->complete);
    EXPECT_EQ(run->partialKey, "layer/b");
    EXPECT_TRUE(run->hasSeries("layer/b"));
    EXPECT_FALSE(run->hasSeries("layer/w"));
    EXPECT_TRUE(run->seriesOf("layer/w").empty());
    EXPECT_EQ(seriesSizes(run, "layer/b"), (std::vector<std::size_t>{1, 1}));
    int stages = 1;
    while (!run->partialKey.empty()) {
        const auto before = seriesSizes(run, "layer/b");
        CompleteResult c = addKeySeries(run, run->partialKey, {});
        ASSERT_TRUE(c.status.isOk()) << c.status.toString();
        ASSERT_TRUE(c.after);
        run = c.after;
        ++stages;
        const auto now = seriesSizes(run, "layer/b");
        ASSERT_EQ(now.size(), 2u);
        for (std::size_t i = 0; i < now.size(); ++i) {
            EXPECT_GT(now[i], before[i]); // every stage reads more of each rank
            EXPECT_LE(now[i], 2 * before[i] + 1);
        }
        ASSERT_LT(stages, 20);
    }
    EXPECT_EQ(stages, 7); // 1, 2, 4, 8, 16, 32, then the last 8 records of each rank
    EXPECT_TRUE(run->hasSeries("layer/b"));
    EXPECT_FALSE(run->hasSeries("loss"));
    EXPECT_TRUE(run->partialUntil.empty());

    Diagnostics diag;
    analysis::CpuBackend backend;
    analysis::KeyStatsOptions opts;
    opts.keyFilter = [](std::string_view k) { return k == "layer/b"; };
    auto whole = analysis::computeKeyStats(*run->reader, backend, opts, diag);
    ASSERT_TRUE(whole.isOk());
    const auto staged = run->seriesOf("layer/b");
    ASSERT_EQ(staged.size(), whole->size());
    for (std::size_t i = 0; i < staged.size(); ++i) {
        const auto& a = staged[i]->records;
        const auto& b = (*whole)[i].records;
        ASSERT_EQ(a.size(), 40u);
        ASSERT_EQ(a.size(), b.size());
        for (std::size_t k = 0; k < a.size(); ++k) {
            EXPECT_EQ(a[k].record, b[k].record);
            EXPECT_EQ(a[k].gstep, b[k].gstep);
            EXPECT_EQ(a[k].stats.mean, b[k].stats.mean);
            EXPECT_EQ(a[k].stats.min, b[k].stats.min);
            EXPECT_EQ(a[k].stats.max, b[k].stats.max);
        }
    }
}

// Summarising a run in the background keeps the series already read whole (their chunks
// shared, not read again), goes on with the key read in stages from where it stopped and counts
// the keys: the result is a run read whole, series for series, in the same order.
TEST(RunLoader, CompletingARunKeepsTheSeriesAlreadyReadAndFinishesTheStagedKey) {
    app();
    TempDir dir;
    writeRun(dir.str(), 1500); // 2 full chunks of records per rank
    LoadOptions options;
    options.lazyAboveBytes = 0;
    options.firstKey = "layer/b";
    options.firstStageBytes = 280'000; // about 1100 records of each rank
    options.store.cacheDir = dir.file("cache");
    LoadResult r = loadRuns({dir.str()}, {}, options);
    ASSERT_TRUE(r.status.isOk()) << r.status.toString();
    RunSnapshot run = r.runs[0];
    ASSERT_EQ(run->partialKey, "layer/b");
    // Its keys are counted with the summaries: their dtypes and shapes are there, their counts not.
    EXPECT_FALSE(run->keysCounted);
    KeyTreeModel model;
    model.setRun(run);
    const QModelIndex w = model.indexOfKey(QStringLiteral("layer/w"));
    ASSERT_TRUE(w.isValid());
    EXPECT_EQ(model.index(w.row(), KeyTreeModel::DtypeColumn, w.parent()).data().toString(),
              QStringLiteral("float32"));
    EXPECT_EQ(model.index(w.row(), KeyTreeModel::ShapeColumn, w.parent()).data().toString(),
              QStringLiteral("[4, 4]"));
    EXPECT_EQ(model.index(w.row(), KeyTreeModel::RecordsColumn, w.parent()).data().toString(),
              QStringLiteral("\u2026"));
    const auto staged = seriesSizes(run, "layer/b");
    ASSERT_EQ(staged.size(), 2u);
    EXPECT_GT(staged[0], 2 * analysis::RecordSeries::kChunk);
    EXPECT_LT(staged[0], 1500u);
    CompleteResult l = addKeySeries(run, "loss", {});
    ASSERT_TRUE(l.after) << l.status.toString();
    run = l.after;
    ASSERT_EQ(seriesSizes(run, "loss"), (std::vector<std::size_t>{1500, 1500}));

    CompleteResult done = completeRun(run, options.store, {});
    ASSERT_TRUE(done.after) << done.status.toString();
    const RunSnapshot after = done.after;
    EXPECT_TRUE(after->complete);
    EXPECT_TRUE(after->partialKey.empty());
    for (const std::string key : {"loss", "layer/b"})
        for (std::size_t i = 0; i < 2; ++i) // rank i's series shares the chunks read before
            EXPECT_EQ(after->seriesOf(key)[i]->records.sharedChunks(),
                      run->seriesOf(key)[i]->records.size() / analysis::RecordSeries::kChunk)
                << key;

    options.lazyAboveBytes = UINT64_MAX;
    LoadResult whole = loadRuns({dir.str()}, {}, options);
    ASSERT_TRUE(whole.status.isOk());
    const RunSnapshot full = whole.runs[0];
    EXPECT_TRUE(after->keysCounted);
    ASSERT_EQ(after->keys.size(), full->keys.size());
    for (std::size_t k = 0; k < full->keys.size(); ++k) {
        EXPECT_EQ(after->keys[k].key, full->keys[k].key);
        EXPECT_EQ(after->keys[k].records, full->keys[k].records);
        EXPECT_EQ(after->keys[k].records, 3000u);
        EXPECT_EQ(after->keys[k].dtype, full->keys[k].dtype);
    }
    model.setRun(after);
    const QModelIndex counted = model.indexOfKey(QStringLiteral("layer/w"));
    EXPECT_EQ(model.index(counted.row(), KeyTreeModel::RecordsColumn, counted.parent())
                  .data()
                  .toULongLong(),
              3000u);
    ASSERT_EQ(after->series.size(), full->series.size());
    for (std::size_t i = 0; i < full->series.size(); ++i) {
        const auto &a = after->series[i], &b = full->series[i];
        EXPECT_EQ(a.rank, b.rank);
        EXPECT_EQ(a.key, b.key);
        ASSERT_EQ(a.records.size(), b.records.size()) << a.key << " " << a.rank;
        for (std::size_t k = 0; k < a.records.size(); ++k) {
            const auto x = a.records[k], y = b.records[k];
            ASSERT_EQ(x.record, y.record);
            ASSERT_EQ(x.gstep, y.gstep);
            ASSERT_EQ(x.stats.mean, y.stats.mean);
            ASSERT_EQ(x.stats.max, y.stats.max);
            ASSERT_EQ(x.stats.nan, y.stats.nan);
        }
    }
}

// A snapshot whose last reference goes on the GUI thread is destroyed on another thread (the
// release of a run's mappings and indexes is not the GUI's to wait for); elsewhere, at once.
TEST(RunLoader, ASnapshotLetGoOnTheGuiThreadIsDestroyedOnAnother) {
    app();
    std::atomic<QThread*> where{nullptr};
    auto watched = [&] {
        auto snapshot = newSnapshot();
        snapshot->summaries = std::shared_ptr<const summary::RunSummaries>(
            new summary::RunSummaries, [&](const summary::RunSummaries* s) {
                where = QThread::currentThread();
                delete s;
            });
        return RunSnapshot(std::move(snapshot));
    };
    RunSnapshot run = watched();
    RunSnapshot copy = newSnapshot(*run); // shares the summaries
    run.reset();
    EXPECT_EQ(where.load(), nullptr);
    copy.reset();
    ASSERT_TRUE(QTest::qWaitFor([&] { return where.load() != nullptr; }, 5000));
    EXPECT_NE(where.load(), QThread::currentThread());

    where = nullptr;
    run = watched();
    QThread* worker = nullptr;
    std::thread([&] {
        worker = QThread::currentThread();
        run.reset();
    }).join();
    EXPECT_EQ(where.load(), worker);
}

// Once summarised, a run opened without summaries reads its records from the summaries' files,
// as a re-open does: the index its first scan built goes with the snapshot before.
TEST(RunLoader, ACompletedRunReadsItsRecordsFromTheSummaryFiles) {
    app();
    TempDir dir;
    writeRun(dir.str(), 4000); // 12 000 columns a part: its summary keeps them in its file
    LoadOptions options;
    options.lazyAboveBytes = 0;
    options.firstKey = "layer/b";
    options.store.cacheDir = dir.file("cache");
    LoadResult r = loadRuns({dir.str()}, {}, options);
    ASSERT_TRUE(r.status.isOk()) << r.status.toString();
    const RunSnapshot run = r.runs[0];
    ASSERT_FALSE(run->complete);
    CompleteResult done = completeRun(run, options.store, {});
    ASSERT_TRUE(done.after) << done.status.toString();
    const RunSnapshot after = done.after;
    EXPECT_NE(after->reader, run->reader);
    ASSERT_EQ(after->reader->ranks().size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        const auto &now = after->reader->ranks()[i], &was = run->reader->ranks()[i];
        ASSERT_EQ(now.parts().size(), was.parts().size());
        ASSERT_EQ(now.recordCount(), 4000u);
        const auto& part = *now.parts()[0];
        const summary::PartSummary* s = after->summaries->find(part);
        ASSERT_TRUE(s && s->records.file());
        EXPECT_EQ(part.index().records().data(), s->records.view().data());
        EXPECT_NE(was.parts()[0]->index().records().data(), s->records.view().data());
        for (std::size_t k = 0; k < now.recordCount(); k += 97) {
            EXPECT_EQ(now.entry(k).offset, was.entry(k).offset);
            EXPECT_EQ(now.entry(k).gstep, was.entry(k).gstep);
        }
        EXPECT_EQ(now.keys(), was.keys());
    }
    EXPECT_EQ(seriesSizes(after, "layer/b"), (std::vector<std::size_t>{4000, 4000}));
    EXPECT_EQ(after->seriesOf("layer/b")[1]->records[3999].gstep, 3999);
}

// A first open keeps the index of a part of over 64 Ki records in an unlinked file in the cache
// folder, mapped (IndexOptions::spillDir): not in the process's memory. The summaries built from
// it and the series read through it are those of every record.
TEST(RunLoader, AFirstOpenKeepsALargeIndexInTheCacheFolderNotInMemory) {
    app();
    TempDir dir;
    writeRun(dir.str(), 66000);
    LoadOptions options;
    options.lazyAboveBytes = 0;
    options.firstKey = "layer/b";
    options.store.cacheDir = dir.file("cache");
    LoadResult r = loadRuns({dir.str()}, {}, options);
    ASSERT_TRUE(r.status.isOk()) << r.status.toString();
    const RunSnapshot run = r.runs[0];
    for (const auto& rank : run->reader->ranks()) {
        const xdl::RecordIndex& index = rank.parts()[0]->index();
        ASSERT_EQ(index.records().size(), 66000u);
        EXPECT_TRUE(index.spilled());
        EXPECT_EQ(xt::test::smapsKbAt(index.records().data(), "Anonymous"), 0u);
    }
    CompleteResult done = completeRun(run, options.store, {});
    ASSERT_TRUE(done.after) << done.status.toString();
    EXPECT_EQ(seriesSizes(done.after, "layer/b"), (std::vector<std::size_t>{66000, 66000}));
    EXPECT_EQ(seriesSizes(done.after, "layer/w"), (std::vector<std::size_t>{66000, 66000}));
    EXPECT_EQ(done.after->seriesOf("layer/b")[1]->records[65999].gstep, 65999);
    for (const auto& rank : done.after->reader->ranks()) {
        const summary::PartSummary* s = done.after->summaries->find(*rank.parts()[0]);
        ASSERT_TRUE(s);
        EXPECT_EQ(s->recordCount(), 66000u);
    }
    for (const auto& entry : std::filesystem::directory_iterator(options.store.cacheDir))
        EXPECT_EQ(entry.path().extension(), ".xts") << entry.path(); // the spills are unlinked
}

// A summarised run with more key records than LoadOptions::seriesOnDemandAbove holds the series
// of the keys shown only; what it shows (series, NaN/Inf, the statistics CSV) is what a run
// holding every key's series shows.
TEST(RunLoader, ALargeSummarisedRunHoldsTheSeriesOfTheKeysShownOnly) {
    app();
    TempDir dir;
    writeRun(dir.str(), 30);
    LoadOptions options;
    options.store.cacheDir = dir.file("cache");
    options.firstKey = "layer/b";
    // First open, no summaries: completeRun summarises; the run is then "large".
    options.lazyAboveBytes = 0;
    options.seriesOnDemandAbove = 100; // 2 ranks x 30 records x 3 keys = 180 key records
    LoadResult first = loadRuns({dir.str()}, {}, options);
    ASSERT_TRUE(first.status.isOk()) << first.status.toString();
    EXPECT_FALSE(first.runs[0]->seriesOnDemand);
    CompleteResult done = completeRun(first.runs[0], options.store, {});
    ASSERT_TRUE(done.after) << done.status.toString();
    EXPECT_TRUE(done.after->seriesOnDemand);
    EXPECT_TRUE(done.after->hasSeries("layer/b"));
    EXPECT_FALSE(done.after->hasSeries("loss"));
    EXPECT_EQ(seriesSizes(done.after, "layer/b"), (std::vector<std::size_t>{30, 30}));

    options.lazyAboveBytes = UINT64_MAX;
    options.seriesOnDemandAbove = UINT64_MAX;
    LoadResult whole = loadRuns({dir.str()}, {}, options);
    options.seriesOnDemandAbove = 100;
    LoadResult lazy = loadRuns({dir.str()}, {}, options);
    ASSERT_TRUE(whole.status.isOk() && lazy.status.isOk());
    const RunSnapshot full = whole.runs[0];
    RunSnapshot run = lazy.runs[0];
    EXPECT_FALSE(full->seriesOnDemand);
    EXPECT_TRUE(full->hasSeries("loss"));
    ASSERT_TRUE(run->seriesOnDemand);
    EXPECT_TRUE(run->complete); // nothing to summarise: no background job
    EXPECT_TRUE(run->hasSeries("layer/b"));
    EXPECT_FALSE(run->hasSeries("layer/w"));
    EXPECT_TRUE(run->seriesOf("loss").empty());
    // NaN/Inf from the summaries, as from every series.
    ASSERT_EQ(full->nonFinite.count("layer/w"), 1u);
    ASSERT_EQ(run->nonFinite.size(), full->nonFinite.size());
    EXPECT_EQ(run->nonFinite.at("layer/w").nanRank, 1);
    EXPECT_EQ(run->nonFinite.at("layer/w").nan->gstep, full->nonFinite.at("layer/w").nan->gstep);

    auto sameSeries = [&](const RunSnapshot& r, const std::string& key) {
        const auto a = r->seriesOf(key), b = full->seriesOf(key);
        ASSERT_EQ(a.size(), b.size()) << key;
        for (std::size_t i = 0; i < a.size(); ++i) {
            ASSERT_EQ(a[i]->records.size(), b[i]->records.size()) << key;
            for (std::size_t k = 0; k < a[i]->records.size(); ++k) {
                EXPECT_EQ(a[i]->records[k].gstep, b[i]->records[k].gstep);
                EXPECT_EQ(a[i]->records[k].stats.mean, b[i]->records[k].stats.mean);
                EXPECT_EQ(a[i]->records[k].stats.max, b[i]->records[k].stats.max);
            }
        }
    };
    // A key asked for comes with its series; keys neither asked for nor kept are let go.
    CompleteResult w = addKeySeries(run, "layer/w", {}, {});
    ASSERT_TRUE(w.after) << w.status.toString();
    run = w.after;
    EXPECT_TRUE(run->hasSeries("layer/w"));
    EXPECT_FALSE(run->hasSeries("layer/b"));
    EXPECT_TRUE(run->seriesOf("layer/b").empty());
    sameSeries(run, "layer/w");
    CompleteResult l = addKeySeries(run, "loss", {}, {"layer/w"});
    ASSERT_TRUE(l.after) << l.status.toString();
    run = l.after;
    EXPECT_TRUE(run->hasSeries("layer/w"));
    EXPECT_TRUE(run->hasSeries("loss"));
    sameSeries(run, "layer/w");
    sameSeries(run, "loss");
    EXPECT_EQ(run->nonFinite.size(), full->nonFinite.size());

    // The statistics CSV of every key, without holding their series: the same bytes.
    const std::string a = dir.file("full.csv"), b = dir.file("lazy.csv");
    auto rowsA = writeStatsCsv(*full, a, {});
    auto rowsB = writeStatsCsv(*run, b, {});
    ASSERT_TRUE(rowsA.isOk() && rowsB.isOk());
    EXPECT_EQ(*rowsA, 180u);
    EXPECT_EQ(*rowsB, *rowsA);
    auto bytes = [](const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    };
    EXPECT_GT(bytes(a).size(), 1000u);
    EXPECT_EQ(bytes(b), bytes(a));
}

// A run of 2 ranks x 9000 records (3 blocks of the overviews a rank) in a TempDir, summarised
// into the cache of `options` (by a first open that summarises in the background), and the
// run a full open of it gives. `options` show it from its overviews (above 1000 key records).
struct SummarisedRun {
    TempDir dir;
    LoadOptions options;
    RunSnapshot full;
};

std::unique_ptr<SummarisedRun> summarisedRun() {
    auto r = std::make_unique<SummarisedRun>();
    writeRun(r->dir.str(), 9000);
    LoadOptions first;
    first.store.cacheDir = r->dir.file("cache");
    first.lazyAboveBytes = 0;
    first.overviewAbove = UINT64_MAX;
    LoadResult opened = loadRuns({r->dir.str()}, {}, first);
    EXPECT_TRUE(opened.status.isOk()) << opened.status.toString();
    if (opened.runs.empty()) return r;
    CompleteResult done = completeRun(opened.runs[0], first.store, {});
    EXPECT_TRUE(done.after) << done.status.toString();
    first.lazyAboveBytes = UINT64_MAX;
    LoadResult again = loadRuns({r->dir.str()}, {}, first);
    EXPECT_TRUE(again.status.isOk()) << again.status.toString();
    if (!again.runs.empty()) r->full = again.runs[0];
    r->options = first;
    r->options.overviewAbove = 1000;
    return r;
}

// Each record of `exact` lies in the envelope of its block in `shown` (LoadedRun::overview):
// two records a block, the least then the greatest value of each statistic.
void expectInEnvelope(const analysis::KeySeries& exact, const analysis::KeySeries& shown) {
    const std::size_t blocks = (exact.records.size() + 4095) / 4096;
    ASSERT_EQ(shown.records.size(), 2 * blocks) << exact.key;
    for (std::size_t k = 0; k < exact.records.size(); ++k) {
        const auto e = exact.records[k];
        const auto lo = shown.records[2 * (k / 4096)], hi = shown.records[2 * (k / 4096) + 1];
        EXPECT_LE(lo.record, e.record);
        EXPECT_GE(hi.record, e.record);
        for (auto f : {&analysis::TensorStats::mean, &analysis::TensorStats::min,
                       &analysis::TensorStats::max, &analysis::TensorStats::std,
                       &analysis::TensorStats::l2}) {
            if (!e.stats.finite) continue;
            EXPECT_LE(lo.stats.*f, e.stats.*f) << exact.key << " record " << k;
            EXPECT_GE(hi.stats.*f, e.stats.*f) << exact.key << " record " << k;
        }
        EXPECT_LE(lo.stats.nan, e.stats.nan);
        EXPECT_GE(hi.stats.nan, e.stats.nan);
    }
}

// A large run whose parts all have valid summaries is shown at once from their overviews: its
// keys, extents and NaN/Inf are those of a full open, every key's envelope holds its records'
// statistics, and openExact gives what a full open gives.
TEST(RunLoader, ALargeSummarisedRunIsShownFromItsOverviewsThenOpenedInFull) {
    app();
    const auto summarised = summarisedRun();
    const RunSnapshot full = summarised->full;
    ASSERT_TRUE(full);
    ASSERT_FALSE(full->overview);
    LoadResult shown = loadRuns({summarised->dir.str()}, {}, summarised->options);
    ASSERT_TRUE(shown.status.isOk()) << shown.status.toString();
    const RunSnapshot run = shown.runs[0];
    ASSERT_TRUE(run->overview);
    EXPECT_TRUE(run->summaries->size() == 0); // no columns: nothing reads them
    ASSERT_EQ(run->keys.size(), full->keys.size());
    for (std::size_t k = 0; k < run->keys.size(); ++k) {
        EXPECT_EQ(run->keys[k].key, full->keys[k].key);
        EXPECT_EQ(run->keys[k].records, full->keys[k].records);
        EXPECT_EQ(run->keys[k].dtype, full->keys[k].dtype);
        EXPECT_EQ(run->keys[k].shape, full->keys[k].shape);
    }
    EXPECT_EQ(run->partExtents, full->partExtents);
    ASSERT_EQ(run->nonFinite.size(), full->nonFinite.size());
    ASSERT_EQ(run->nonFinite.count("layer/w"), 1u);
    EXPECT_EQ(run->nonFinite.at("layer/w").nanRank, 1);
    EXPECT_EQ(run->nonFinite.at("layer/w").nan->gstep, 3);
    for (const std::string key : {"layer/w", "layer/b", "loss"}) {
        EXPECT_TRUE(run->hasSeries(key));
        const auto a = full->seriesOf(key), b = run->seriesOf(key);
        ASSERT_EQ(a.size(), 2u);
        ASSERT_EQ(b.size(), 2u);
        for (std::size_t r = 0; r < 2; ++r)
            expectInEnvelope(*a[r], *b[r]);
    }
    // Tensors are read from the unchecked records all the same.
    auto tensor = run->reader->rank(1)->tensor(5000, "loss");
    ASSERT_TRUE(tensor.isOk()) << tensor.status().toString();

    CompleteResult exact = openExact(run, "layer/b", {});
    ASSERT_TRUE(exact.after) << exact.status.toString();
    EXPECT_EQ(exact.before, run);
    EXPECT_FALSE(exact.after->overview);
    EXPECT_EQ(exact.diagnostics.errorCount(), 0u);
    EXPECT_EQ(exact.after->partExtents, full->partExtents);
    for (const std::string key : {"layer/w", "layer/b", "loss"}) {
        const auto a = full->seriesOf(key), b = exact.after->seriesOf(key);
        ASSERT_EQ(a.size(), b.size());
        for (std::size_t r = 0; r < a.size(); ++r) {
            ASSERT_EQ(a[r]->records.size(), b[r]->records.size());
            for (std::size_t k = 0; k < a[r]->records.size(); k += 97) {
                const auto x = a[r]->records[k].stats, y = b[r]->records[k].stats;
                EXPECT_EQ(std::memcmp(&x, &y, sizeof x), 0) << key << " record " << k;
            }
        }
    }
}

// A summary whose overview is intact but whose other bytes are damaged: the run is shown from
// the overview, and the full open finds the damage, reports it where it is and reads the part.
TEST(RunLoader, DamageBesideAnIntactOverviewIsFoundByTheFullOpen) {
    app();
    const auto summarised = summarisedRun();
    const RunSnapshot full = summarised->full;
    ASSERT_TRUE(full);
    const LoadOptions& options = summarised->options;
    std::vector<std::string> summaries;
    for (const auto& e : std::filesystem::directory_iterator(options.store.cacheDir))
        summaries.push_back(e.path().string());
    ASSERT_EQ(summaries.size(), 2u);
    std::sort(summaries.begin(), summaries.end());
    std::ifstream in(summaries[0], std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    in.close();
    bytes[bytes.size() / 2] ^= 0x10; // in the columns
    {
        std::ofstream out(summaries[0], std::ios::binary | std::ios::trunc);
        out << bytes;
    }
    LoadResult shown = loadRuns({summarised->dir.str()}, {}, options);
    ASSERT_TRUE(shown.status.isOk());
    ASSERT_TRUE(shown.runs[0]->overview);
    EXPECT_TRUE(shown.diagnostics.empty());
    CompleteResult exact = openExact(shown.runs[0], "", {});
    ASSERT_TRUE(exact.after) << exact.status.toString();
    EXPECT_FALSE(exact.after->overview);
    bool reported = false;
    for (const auto& d : exact.diagnostics.items())
        reported = reported || (d.code == "summary-corrupt" && d.file == summaries[0]);
    EXPECT_TRUE(reported);
    const auto a = full->seriesOf("loss"), b = exact.after->seriesOf("loss");
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t r = 0; r < a.size(); ++r) {
        ASSERT_EQ(a[r]->records.size(), b[r]->records.size());
        EXPECT_EQ(a[r]->records[8999].stats.mean, b[r]->records[8999].stats.mean);
    }
}

// A large run without summaries is shown at once from the first records of each rank: the first
// key's statistics over them are those a full open gives, nothing is reported yet (a damaged
// tail further on is the full open's to report), and openExact opens it in full. A run whose
// first part has a summary is not previewed; a small one is not either.
TEST(RunLoader, ALargeRunWithoutSummariesIsShownFromItsFirstRecordsThenInFull) {
    app();
    TempDir dir;
    writeRun(dir.str(), 3000);
    std::string rank1;
    for (const auto& e : std::filesystem::directory_iterator(dir.str()))
        if (e.path().filename().string().find(".1.") != std::string::npos &&
            e.path().extension() != ".meta")
            rank1 = e.path().string();
    ASSERT_FALSE(rank1.empty());
    {
        std::ofstream out(rank1, std::ios::binary | std::ios::app);
        out << "\x07\x00"; // the file ends inside a length prefix
    }
    LoadOptions options;
    options.previewAboveBytes = 100'000;
    options.firstStageBytes = 160'000; // a preview of ~20 kB of each rank's records
    options.firstKey = "layer/w";
    options.store.cacheDir = dir.file("cache");
    LoadResult shown = loadRuns({dir.str()}, {}, options);
    ASSERT_TRUE(shown.status.isOk()) << shown.status.toString();
    ASSERT_EQ(shown.runs.size(), 1u);
    const RunSnapshot preview = shown.runs[0];
    EXPECT_TRUE(preview->preview);
    EXPECT_FALSE(preview->complete);
    EXPECT_FALSE(preview->keysCounted);
    EXPECT_TRUE(shown.diagnostics.empty());
    EXPECT_TRUE(preview->hasSeries("layer/w"));
    EXPECT_FALSE(preview->hasSeries("loss"));
    EXPECT_NE(preview->summaryOf("loss"), nullptr);
    ASSERT_EQ(preview->reader->ranks().size(), 2u);
    for (const auto& rank : preview->reader->ranks()) {
        EXPECT_GT(rank.recordCount(), 50u);
        EXPECT_LT(rank.recordCount(), 500u);
        EXPECT_LE(rank.recordBytes(0, rank.recordCount()), 20'000u);
    }

    CompleteResult exact = openExact(preview, "layer/w", {});
    ASSERT_TRUE(exact.after) << exact.status.toString();
    EXPECT_FALSE(exact.after->preview);
    EXPECT_EQ(exact.after->recordCount(), 6000u);
    bool reported = false;
    for (const auto& d : exact.diagnostics.items())
        reported = reported || (d.code == "truncated-record" && d.file == rank1);
    EXPECT_TRUE(reported);
    // Meanwhile the meta table lists every part with the ranges of its .meta file, which the
    // full open finds in the records; their records are still being counted.
    MetaSummaryModel during, after;
    during.setRun(preview);
    after.setRun(exact.after);
    ASSERT_EQ(during.rowCount(), 4); // two parts and two rank totals
    ASSERT_EQ(during.rowCount(), after.rowCount());
    using M = MetaSummaryModel;
    for (int row = 0; row < during.rowCount(); ++row) {
        for (int c : {M::RankColumn, M::PartColumn, M::GstepColumn, M::LstepColumn, M::TimeColumn,
                      M::DurationColumn, M::SizeColumn, M::FinalisedColumn})
            EXPECT_EQ(during.index(row, c).data(), after.index(row, c).data()) << row << ":" << c;
        EXPECT_EQ(during.index(row, M::RecordsColumn).data().toString(), "\u2026");
    }
    EXPECT_EQ(after.index(0, M::RecordsColumn).data().toULongLong(), 3000u);
    EXPECT_EQ(after.index(0, M::GstepColumn).data().toString(), "0 .. 2999");

    LoadOptions whole = options;
    whole.previewAboveBytes = UINT64_MAX;
    LoadResult full = loadRuns({dir.str()}, {}, whole);
    ASSERT_TRUE(full.status.isOk());
    EXPECT_FALSE(full.runs[0]->preview);
    const auto a = preview->seriesOf("layer/w"), b = full.runs[0]->seriesOf("layer/w");
    ASSERT_EQ(a.size(), 2u);
    ASSERT_EQ(b.size(), 2u);
    for (std::size_t r = 0; r < 2; ++r) {
        ASSERT_EQ(a[r]->records.size(), preview->reader->ranks()[r].recordCount());
        ASSERT_EQ(b[r]->records.size(), 3000u);
        for (std::size_t k = 0; k < a[r]->records.size(); ++k) {
            EXPECT_EQ(a[r]->records[k].gstep, b[r]->records[k].gstep);
            EXPECT_EQ(a[r]->records[k].stats.mean, b[r]->records[k].stats.mean);
            EXPECT_EQ(a[r]->records[k].stats.nan, b[r]->records[k].stats.nan);
        }
    }
    EXPECT_EQ(preview->nonFinite.count("layer/w"), 1u); // rank 1's NaN at step 3

    // Another key, read from the preview's records while the full open runs: a preview still,
    // on the same reader, which that open's result replaces.
    CompleteResult loss = addKeySeries(preview, "loss", {});
    ASSERT_TRUE(loss.after) << loss.status.toString();
    EXPECT_TRUE(loss.after->preview);
    EXPECT_EQ(loss.after->reader, preview->reader);
    const auto c = loss.after->seriesOf("loss"), d = full.runs[0]->seriesOf("loss");
    ASSERT_EQ(c.size(), 2u);
    ASSERT_EQ(d.size(), 2u);
    for (std::size_t r = 0; r < 2; ++r) {
        ASSERT_EQ(c[r]->records.size(), preview->reader->ranks()[r].recordCount());
        for (std::size_t k = 0; k < c[r]->records.size(); ++k)
            EXPECT_EQ(c[r]->records[k].stats.mean, d[r]->records[k].stats.mean);
    }
    EXPECT_EQ(shownSnapshotOf({loss.after}, preview), loss.after);
    EXPECT_EQ(shownSnapshotOf({preview}, preview), preview);
    EXPECT_EQ(shownSnapshotOf({exact.after}, preview), nullptr);
    EXPECT_EQ(shownSnapshotOf({exact.after}, loss.after), nullptr);
    const RunSnapshot fullFirst = full.runs[0];
    CompleteResult fullLoss = addKeySeries(fullFirst, "layer/b", {});
    ASSERT_TRUE(fullLoss.after);
    EXPECT_EQ(shownSnapshotOf({fullLoss.after}, fullFirst), nullptr); // not a preview: its own

    CompleteResult summarised = completeRun(exact.after, options.store, {});
    ASSERT_TRUE(summarised.after) << summarised.status.toString();
    LoadResult again = loadRuns({dir.str()}, {}, options);
    ASSERT_TRUE(again.status.isOk());
    EXPECT_FALSE(again.runs[0]->preview); // its parts have summaries now
    LoadOptions small = options;
    small.previewAboveBytes = 10'000'000;
    small.store.cacheDir = dir.file("another cache");
    LoadResult smallRun = loadRuns({dir.str()}, {}, small);
    ASSERT_TRUE(smallRun.status.isOk());
    EXPECT_FALSE(smallRun.runs[0]->preview);
}

// Summaries written before the overview section: the run opens in full, and writeOverviews
// writes them again with one, so that the next open shows it from them.
TEST(RunLoader, SummariesWithoutAnOverviewAreWrittenAgainWithOne) {
    app();
    const auto summarised = summarisedRun();
    ASSERT_TRUE(summarised->full);
    LoadOptions options = summarised->options;
    // As an older writer left them: section 9 absent (here: an id readers skip).
    for (const auto& e : std::filesystem::directory_iterator(options.store.cacheDir)) {
        std::ifstream in(e.path(), std::ios::binary);
        std::string b((std::istreambuf_iterator<char>(in)), {});
        in.close();
        const auto sections = xt::test::summarySections(b);
        ASSERT_EQ(sections.count(9), 1u);
        const std::uint32_t id = 77;
        std::memcpy(b.data() + sections.at(9), &id, 4);
        xt::test::resealSummary(b);
        std::ofstream(e.path(), std::ios::binary | std::ios::trunc) << b;
    }
    LoadResult opened = loadRuns({summarised->dir.str()}, {}, options);
    ASSERT_TRUE(opened.status.isOk());
    RunSnapshot run = opened.runs[0];
    EXPECT_FALSE(run->overview);
    ASSERT_TRUE(run->overviewsToWrite);
    CompleteResult written = writeOverviews(run, {});
    ASSERT_TRUE(written.after) << written.status.toString();
    EXPECT_FALSE(written.after->overviewsToWrite);
    EXPECT_TRUE(written.diagnostics.empty());
    // The snapshot reads its old files all the same.
    EXPECT_TRUE(written.after->reader->rank(0)->tensor(8000, "loss").isOk());
    LoadResult again = loadRuns({summarised->dir.str()}, {}, options);
    ASSERT_TRUE(again.status.isOk());
    EXPECT_TRUE(again.runs[0]->overview);
    EXPECT_TRUE(again.diagnostics.empty());
}

// In the viewer, such a run is drawn from its overviews first (said so above the plot; the
// histograms wait for the full open), then exactly, without being asked.
TEST(MainWindow, ShowsALargeSummarisedRunFromItsOverviewsThenExactly) {
    app();
    TempDir dir;
    writeRun(dir.str(), 9000);
    const CacheHomeIn cacheHome(dir.file("cache"));
    {
        QSettings settings(qfile(dir, "settings.ini"), QSettings::IniFormat);
        settings.setValue("open/lazyAboveMB", 0); // the first open summarises the run
        settings.setValue("open/overviewAbove", 1000);
    }
    for (int open = 0; open < 2; ++open) {
        MainWindow w(qfile(dir, "settings.ini"));
        w.resize(1200, 800);
        w.show();
        bool overviewAtLoad = false;
        QString readingAtLoad, histogramAtLoad;
        std::size_t pointsAtLoad = 0;
        QSize plotAtLoad, histogramsAtLoad;
        QObject::connect(&w, &MainWindow::loadFinished, [&] {
            ASSERT_TRUE(w.currentKeyView());
            overviewAtLoad = w.runs()[0]->overview;
            plotAtLoad = w.currentKeyView()->statPlot()->plot()->size();
            histogramsAtLoad = w.currentKeyView()->findChild<HistogramView*>()->size();
            const auto* reading = w.currentKeyView()->findChild<QLabel*>("readingKey");
            readingAtLoad = reading->isHidden() ? QString() : reading->text();
            for (const auto* l :
                 w.currentKeyView()->findChild<HistogramView*>()->findChildren<QLabel*>())
                if (l->text().contains("waiting")) histogramAtLoad = l->text();
            const auto mean = w.currentKeyView()->statPlot()->lineData("rank 0 mean");
            pointsAtLoad = mean ? mean->x.size() : 0;
        });
        w.openPaths({QString::fromStdString(dir.str())});
        ASSERT_TRUE(QTest::qWaitFor([&] { return w.hasLoaded() && !w.isBusy(); }, 30000));
        EXPECT_EQ(overviewAtLoad, open == 1) << open;
        if (open == 1) {
            EXPECT_TRUE(readingAtLoad.contains("Approximate")) << readingAtLoad.toStdString();
            EXPECT_FALSE(histogramAtLoad.isEmpty());
            EXPECT_EQ(pointsAtLoad, 6u); // 3 blocks, 2 records each
        }
        ASSERT_EQ(w.runs().size(), 1u);
        EXPECT_FALSE(w.runs()[0]->overview);
        KeyView* v = w.currentKeyView();
        ASSERT_TRUE(v);
        // The plots keep their heights as the line above the curves and the status bar's
        // progress go: resized, each would be drawn again. (Their widths are set once, when the
        // docks beside them are arranged for the first run.)
        EXPECT_EQ(v->statPlot()->plot()->height(), plotAtLoad.height());
        EXPECT_EQ(v->findChild<HistogramView*>()->height(), histogramsAtLoad.height());
        EXPECT_TRUE(v->findChild<QLabel*>("readingKey")->isHidden());
        const auto mean = v->statPlot()->lineData("rank 0 mean");
        ASSERT_TRUE(mean);
        EXPECT_EQ(mean->x.size(), 9000u);
        for (const auto* l : w.findChildren<QLabel*>()) // the meta summary's is current
            EXPECT_FALSE(!l->isHidden() && l->text().contains("overviews"))
                << l->text().toStdString();
    }
}

// In the viewer, a large run without summaries is drawn at once from its first records (said so
// above the plot; exports wait), then in full, without being asked.
TEST(MainWindow, ShowsALargeRunFromItsFirstRecordsWhileItIsIndexed) {
    app();
    TempDir dir;
    writeRun(dir.str(), 3000);
    const CacheHomeIn cacheHome(dir.file("cache"));
    {
        QSettings settings(qfile(dir, "settings.ini"), QSettings::IniFormat);
        settings.setValue("open/previewAboveMB", 0);
        settings.setValue("open/firstStageMB", 0.16);
    }
    MainWindow w(qfile(dir, "settings.ini"));
    w.resize(1200, 800);
    w.show();
    bool previewAtLoad = false, exportRefused = false;
    QString readingAtLoad, statusAtLoad, runStatusAtLoad, runRecordsAtLoad;
    bool lossSeriesAtLoad = true;
    std::size_t pointsAtLoad = 0;
    const auto status = [&] {
        for (const auto* l : w.statusBar()->findChildren<QLabel*>())
            if (l->text().contains("index")) return l->text();
        return QString();
    };
    QObject::connect(&w, &MainWindow::loadFinished, [&] {
        ASSERT_TRUE(w.currentKeyView());
        previewAtLoad = w.runs()[0]->preview;
        const auto* reading = w.currentKeyView()->findChild<QLabel*>("readingKey");
        readingAtLoad = reading->isHidden() ? QString() : reading->text();
        const auto mean = w.currentKeyView()->statPlot()->lineData("rank 0 mean");
        pointsAtLoad = mean ? mean->x.size() : 0;
        exportRefused = w.showExportHdf5Dialog() == nullptr;
        statusAtLoad = status();
        runStatusAtLoad = w.runModel()->index(0, RunBrowserModel::StatusColumn).data().toString();
        runRecordsAtLoad = w.runModel()->index(0, RunBrowserModel::RecordsColumn).data().toString();
        if (const QString shots = qEnvironmentVariable("XT_SCREENSHOT_DIR"); !shots.isEmpty())
            w.grab().save(shots + QStringLiteral("/preview.png"));
        w.showKey("loss", true); // a key the preview has no series of yet: read in a job
        lossSeriesAtLoad = w.runs()[0]->hasSeries("loss");
    });
    w.openPaths({QString::fromStdString(dir.str())});
    ASSERT_TRUE(QTest::qWaitFor([&] { return w.hasLoaded() && !w.isBusy(); }, 30000));
    EXPECT_TRUE(previewAtLoad);
    EXPECT_TRUE(readingAtLoad.contains("while the rest is indexed")) << readingAtLoad.toStdString();
    EXPECT_GT(pointsAtLoad, 50u);
    EXPECT_LT(pointsAtLoad, 500u);
    EXPECT_TRUE(exportRefused);
    EXPECT_TRUE(statusAtLoad.contains("waits until")) << statusAtLoad.toStdString();
    EXPECT_EQ(runStatusAtLoad, "indexing"); // the Runs dock: the count is of the records so far
    EXPECT_EQ(runRecordsAtLoad, QString("%1...").arg(2 * pointsAtLoad));
    EXPECT_EQ(w.runModel()->index(0, RunBrowserModel::StatusColumn).data().toString(), "finalised");
    EXPECT_EQ(w.runModel()->index(0, RunBrowserModel::RecordsColumn).data().toString(), "6000");
    EXPECT_FALSE(lossSeriesAtLoad);
    ASSERT_EQ(w.runs().size(), 1u);
    EXPECT_FALSE(w.runs()[0]->preview);
    const auto views = w.findChildren<KeyView*>();
    ASSERT_EQ(views.size(), 2);
    for (KeyView* v : views) {
        EXPECT_TRUE(v->findChild<QLabel*>("readingKey")->isHidden());
        const auto mean = v->statPlot()->lineData("rank 0 mean");
        ASSERT_TRUE(mean) << v->key().toStdString();
        EXPECT_EQ(mean->x.size(), 3000u) << v->key().toStdString();
    }
    Hdf5ExportDialog* dialog = w.showExportHdf5Dialog();
    EXPECT_TRUE(dialog);
    if (dialog) dialog->close();
}

// In the viewer, a run with series on demand draws each key shown, and holds the series of the
// keys its tabs show only.
TEST(MainWindow, ShowsTheKeysOfARunWithSeriesOnDemand) {
    app();
    TempDir dir;
    writeRun(dir.str(), 30);
    const CacheHomeIn cacheHome(dir.file("cache"));
    {
        QSettings settings(qfile(dir, "settings.ini"), QSettings::IniFormat);
        settings.setValue("open/seriesOnDemandAbove", 100);
        settings.setValue("open/lazyAboveMB", 0); // the first open summarises the run
    }
    for (int open = 0; open < 2; ++open) { // the first open summarises the run
        MainWindow w(qfile(dir, "settings.ini"));
        w.resize(1200, 800);
        w.show();
        w.openPaths({QString::fromStdString(dir.str())});
        ASSERT_TRUE(QTest::qWaitFor([&] { return w.hasLoaded() && !w.isBusy(); }, 30000));
        ASSERT_EQ(w.runs().size(), 1u);
        EXPECT_TRUE(w.runs()[0]->seriesOnDemand) << open;
        const auto points = [&](const QString& line) {
            const auto s = w.currentKeyView()->statPlot()->lineData(line);
            return s ? s->x.size() : 0;
        };
        ASSERT_TRUE(w.currentKeyView());
        EXPECT_EQ(w.currentKeyView()->key(), "layer/w"); // the first key
        EXPECT_EQ(points("rank 1 mean"), 30u);
        w.showKey("loss"); // in the same tab: layer/w is no longer shown
        ASSERT_TRUE(QTest::qWaitFor([&] { return !w.isBusy(); }, 30000));
        EXPECT_EQ(w.currentKeyView()->key(), "loss");
        EXPECT_EQ(points("rank 1 mean"), 30u);
        EXPECT_TRUE(w.runs()[0]->hasSeries("loss"));
        EXPECT_FALSE(w.runs()[0]->hasSeries("layer/w"));
        w.showKey("layer/b", true); // a second tab: loss stays
        ASSERT_TRUE(QTest::qWaitFor([&] { return !w.isBusy(); }, 30000));
        EXPECT_EQ(w.currentKeyView()->key(), "layer/b");
        EXPECT_EQ(points("rank 0 mean"), 30u);
        EXPECT_TRUE(w.runs()[0]->hasSeries("loss"));
        EXPECT_TRUE(w.runs()[0]->hasSeries("layer/b"));
        EXPECT_EQ(w.runs()[0]->series.size(), 4u); // 2 keys x 2 ranks
    }
}

// The viewer shows the first stage of such a key at once, then follows its curves to the end
// without being asked, and summarises the other keys after that.
TEST(MainWindow, ShowsAKeyReadInStagesAndFollowsItToTheEnd) {
    app();
    TempDir dir;
    writeRun(dir.str(), 40);
    const CacheHomeIn cacheHome(dir.file("cache"));
    {
        QSettings settings(qfile(dir, "settings.ini"), QSettings::IniFormat);
        settings.setValue("open/lazyAboveMB", 0);
        settings.setValue("open/firstStageMB", 0.000001);
    }
    {
        MainWindow w(qfile(dir, "settings.ini"));
        w.resize(1200, 800);
        w.show();
        std::size_t pointsAtLoad = 0;
        std::set<std::size_t> pointsDrawn; // each replot's points on rank 0's curve
        QObject::connect(&w, &MainWindow::loadFinished, [&] {
            ASSERT_TRUE(w.currentKeyView());
            StatPlot* plot = w.currentKeyView()->statPlot();
            const auto mean = plot->lineData(QStringLiteral("rank 0 mean"));
            pointsAtLoad = mean ? mean->x.size() : 0;
            const auto* reading = w.currentKeyView()->findChild<QLabel*>("readingKey");
            ASSERT_TRUE(reading);
            EXPECT_FALSE(reading->isHidden());
            EXPECT_TRUE(reading->text().contains("2% of the records"))
                << reading->text().toStdString();
            QObject::connect(plot->plot(), &QCustomPlot::afterReplot, plot, [&, plot] {
                if (const auto m = plot->lineData(QStringLiteral("rank 0 mean")))
                    pointsDrawn.insert(m->x.size());
            });
        });
        w.openPaths({QString::fromStdString(dir.str())});
        ASSERT_TRUE(QTest::qWaitFor([&] { return w.hasLoaded() && !w.isBusy(); }, 30000));
        EXPECT_EQ(pointsAtLoad, 1u);
        // Stages were drawn on the way, not only the first and the whole key.
        EXPECT_GE(pointsDrawn.size(), 4u);
        EXPECT_EQ(pointsDrawn.count(40), 1u);
        ASSERT_EQ(w.runs().size(), 1u);
        EXPECT_TRUE(w.runs()[0]->complete);
        EXPECT_TRUE(w.runs()[0]->partialKey.empty());
        KeyView* v = w.currentKeyView();
        ASSERT_TRUE(v);
        EXPECT_EQ(v->key(), "layer/w");
        const auto mean = v->statPlot()->lineData(QStringLiteral("rank 0 mean"));
        ASSERT_TRUE(mean);
        EXPECT_EQ(mean->x.size(), 40u);
        // The view followed the growing curves: the last step is in sight.
        EXPECT_GE(v->statPlot()->plot()->xAxis->range().upper, 39.0);
        EXPECT_FALSE(v->isFollowing());
        EXPECT_TRUE(v->findChild<QLabel*>("readingKey")->isHidden());
    }
}

} // namespace
} // namespace xt::widgets

namespace xt::widgets {
namespace {

// The loader reads hdfs:// URLs through the local mirror, off the GUI thread like any path.
TEST(RunLoader, OpensHdfsUrlsThroughTheMirror) {
    if (!std::filesystem::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
    TempDir remote, cache;
    writeRun(remote.str() + "/exp", 6);
    test::WebHdfsTestServer server(remote.str());
    ASSERT_GT(server.port(), 0) << "the WebHDFS test server did not start";
    ::setenv("XT_HDFS_CACHE_DIR", cache.str().c_str(), 1);
    LoadResult r = loadRuns({server.url("/exp")}, {});
    ::unsetenv("XT_HDFS_CACHE_DIR");
    ASSERT_TRUE(r.status.isOk()) << r.status.toString();
    ASSERT_EQ(r.runs.size(), 1u);
    const auto& run = *r.runs.front();
    EXPECT_EQ(run.reader->ranks().size(), 2u);
    EXPECT_EQ(run.reader->ranks()[0].recordCount(), 6u);
    EXPECT_NE(run.reader->files().directory.find(cache.str()), std::string::npos);
    EXPECT_EQ(run.seriesOf("layer/w").size(), 2u);
    EXPECT_EQ(run.sourceUrl, server.url("/exp"));

    // The namenode gone, the mirror still opens, with an "offline" diagnostic.
    server.stop();
    ::setenv("XT_HDFS_CACHE_DIR", cache.str().c_str(), 1);
    LoadResult offline = loadRuns({server.url("/exp")}, {});
    ::unsetenv("XT_HDFS_CACHE_DIR");
    ASSERT_TRUE(offline.status.isOk()) << offline.status.toString();
    EXPECT_EQ(offline.runs.size(), 1u);
    EXPECT_EQ(offline.diagnostics.countsByCode().count("hdfs-offline"), 1u);
}

} // namespace
} // namespace xt::widgets
