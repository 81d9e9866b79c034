// The tensor views as a user reads them, offscreen: runs with equal basenames told apart in the
// Runs dock, tab titles, the Keys dock, the compare dialog and tab, and kept over a rename and a
// reload; the heatmap of a strided run without empty columns; tick labels that never overlap on
// any plot, narrow or wide; table columns fitted to their content with tooltips for cut text; and
// screenshots of the main window at 1280x800 and 1920x1080 (written to $XT_SCREENSHOT_DIR when
// it is set).
#include "core/xdl/file_series_writer.h"
#include "temp_dir.h"
#include "webhdfs_test_server.h"
#include "widgets/axis_ticks.h"
#include "widgets/compare_dialog.h"
#include "widgets/compare_view.h"
#include "widgets/diagnostics_model.h"
#include "widgets/histogram_view.h"
#include "widgets/key_view.h"
#include "widgets/main_window.h"
#include "widgets/plot_export.h"
#include "widgets/run_browser_model.h"
#include "widgets/table_columns.h"

#include "offscreen_app.h"

#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QHeaderView>
#include <QHelpEvent>
#include <QLineEdit>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QToolTip>
#include <QTreeView>
#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>

// Readable QString values in failure messages.
inline void PrintTo(const QString& s, std::ostream* os) {
    *os << '"' << s.toStdString() << '"';
}

namespace xt::widgets {
namespace {

namespace fs = std::filesystem;
using xt::test::TempDir;

QApplication& app() {
    return ::xt::test::offscreenApp();
}

constexpr const char* kLongKey = "encoder/layers.11/self_attention/output/dense/kernel";

// A run of `ranks` ranks sharing the gstep axis: rank r records the gsteps g < steps with
// g % ranks == r. "layer/w" float32 [256] spread over about [-0.2, 0.3] (shifted by 1 from
// `divergeFrom` on), "loss" float32 [] and kLongKey float32 [2].
void writeRun(const std::string& dir, int ranks, int steps, int divergeFrom = 1 << 30) {
    for (int rank = 0; rank < ranks; ++rank) {
        xdl::WriterOptions o;
        o.outputDir = dir;
        o.rank = rank;
        auto w = xdl::FileSeriesWriter::create(o, {"layer/w", "loss", kLongKey});
        ASSERT_TRUE(w.isOk()) << w.status().toString();
        xdl::RecordEncoder enc;
        for (std::int64_t g = rank; g < steps; g += ranks) {
            enc.begin(g, g / ranks + 1);
            std::vector<float> wv(256);
            for (std::size_t i = 0; i < wv.size(); ++i)
                wv[i] = float(0.05 + 0.25 * std::sin(double(i) * 0.37 + double(g) * 0.1)) +
                        (g >= divergeFrom ? 1.0f : 0.0f);
            const float loss = 1.0f / float(g + 1);
            const float kernel[] = {float(g), 2.0f};
            const std::int64_t ws[] = {256}, ks[] = {2};
            enc.addColumn(xdl::Dtype::Float, ws,
                          xdl::Bytes(reinterpret_cast<const std::uint8_t*>(wv.data()), 1024));
            enc.addColumn(xdl::Dtype::Float, {},
                          xdl::Bytes(reinterpret_cast<const std::uint8_t*>(&loss), 4));
            enc.addColumn(xdl::Dtype::Float, ks,
                          xdl::Bytes(reinterpret_cast<const std::uint8_t*>(kernel), 8));
            ASSERT_TRUE(enc.finish(1700000000000 + g * 100).isOk());
            ASSERT_TRUE(
                (*w)->write(enc.framed(), g, g / ranks + 1, 1700000000000 + g * 100).isOk());
        }
        ASSERT_TRUE((*w)->close().isOk());
    }
}

bool waitIdle(MainWindow& w) {
    return QTest::qWaitFor([&] { return w.hasLoaded() && !w.isBusy(); }, 30000);
}

QString screenshotPath(const TempDir& tmp, const QString& name) {
    const QString dir = qEnvironmentVariable("XT_SCREENSHOT_DIR");
    return (dir.isEmpty() ? QString::fromStdString(tmp.str()) : dir) + QLatin1Char('/') + name;
}

bool nonBlank(const QImage& img) {
    const QRgb first = img.pixel(0, 0);
    for (int y = 0; y < img.height(); y += 7)
        for (int x = 0; x < img.width(); x += 7)
            if (img.pixel(x, y) != first) return true;
    return false;
}

// --- Run names -------------------------------------------------------------------------------

class TwoRuns : public ::testing::Test {
protected:
    void SetUp() override {
        app();
        writeRun(dir.file("a/run"), 2, 12);
        writeRun(dir.file("b/run"), 2, 12, 5);
        w = std::make_unique<MainWindow>(QString::fromStdString(dir.file("settings.ini")));
        w->resize(1400, 900);
        w->show();
        w->openPaths(
            {QString::fromStdString(dir.file("a/run")), QString::fromStdString(dir.file("b/run"))});
        ASSERT_TRUE(waitIdle(*w));
        ASSERT_EQ(w->runs().size(), 2u);
        for (std::size_t i = 0; i < w->runs().size(); ++i)
            (w->runs()[i]->reader->files().directory == dir.file("a/run") ? ia : ib) = int(i);
        ASSERT_TRUE(ia >= 0 && ib >= 0) << w->runs()[0]->reader->files().directory;
    }
    QString runRowText(int i) const {
        return w->runModel()->index(i, RunBrowserModel::NameColumn).data().toString();
    }
    // The central tabs (the value inspector has tabs too).
    QTabWidget* tabs() const {
        for (auto* t : w->findChildren<QTabWidget*>())
            for (int i = 0; i < t->count(); ++i)
                if (qobject_cast<KeyView*>(t->widget(i))) return t;
        return nullptr;
    }
    QString keysDockTitle() const {
        return w->findChild<QDockWidget*>(QStringLiteral("KeysDock"))->windowTitle();
    }

    TempDir dir;
    std::unique_ptr<MainWindow> w;
    int ia = -1, ib = -1;
};

TEST_F(TwoRuns, EqualBasenamesAreToldApartEverywhere) {
    // Both runs are "train.trace"; their directories end in a/run and b/run.
    EXPECT_EQ(w->runs()[0]->label().substr(w->runs()[0]->label().rfind('/')), "/train.trace");
    EXPECT_EQ(runRowText(ia), "a/run");
    EXPECT_EQ(runRowText(ib), "b/run");
    EXPECT_EQ(w->runModel()->index(ia, 0).data(Qt::ToolTipRole).toString(),
              QString::fromStdString(dir.file("a/run/train.trace")));

    // The key tab and the Keys dock name their run.
    KeyView* keyView = w->currentKeyView();
    ASSERT_TRUE(keyView);
    const QString current = w->runName(keyView->run());
    EXPECT_EQ(tabs()->tabText(tabs()->currentIndex()),
              QStringLiteral("%1 (%2)").arg(keyView->key(), current));
    EXPECT_EQ(keysDockTitle(), QStringLiteral("Keys: %1").arg(current));
    EXPECT_EQ(w->windowTitle(), QStringLiteral("%1 - xtview").arg(current));

    // The compare dialog lists the names; the compare tab and its plot use them.
    QStringList names;
    for (const auto& e : w->runModel()->entries())
        names << e.name();
    CompareDialog dialog(w->runs(), ia, w.get(), names);
    QStringList items;
    for (auto* combo : dialog.findChildren<QComboBox*>())
        if (combo->count() == 2 && combo->itemText(0).contains(QLatin1Char('/')))
            items << combo->itemText(0) << combo->itemText(1);
    ASSERT_EQ(items.size(), 4); // run A and run B
    EXPECT_TRUE(items.contains("a/run") && items.contains("b/run"))
        << items.join(", ").toStdString();
    ASSERT_TRUE(dialog.select(ia, 0, ib, 0));
    EXPECT_EQ(dialog.request().a.name, "a/run");
    CompareView* view = w->openCompare({{w->runs()[std::size_t(ia)], 0},
                                        {w->runs()[std::size_t(ib)], 0},
                                        analysis::StepAlign::Gstep,
                                        1e-8,
                                        1e-5});
    ASSERT_TRUE(waitIdle(*w));
    EXPECT_EQ(tabs()->tabText(tabs()->indexOf(view)), "compare a/run:0 vs b/run:0");
    EXPECT_EQ(view->title(), "a/run rank 0 vs b/run rank 0, aligned by gstep");
    view->showKey("layer/w");
    QStringList legend;
    for (int i = 0; i < view->plot()->legend->itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(view->plot()->legend->item(i)))
            legend << item->plottable()->name();
    EXPECT_EQ(legend, (QStringList{"A mean (a/run rank 0)", "B mean (b/run rank 0)"}));

    // An exported plot carries a title above it.
    const QString svg = QString::fromStdString(dir.file("stats.svg"));
    const QString title = QStringLiteral("layer/w - %1").arg(current);
    ASSERT_TRUE(exportPlot(keyView->statPlot()->plot(), svg, 640, 400, nullptr, title));
    QFile f(svg);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    EXPECT_TRUE(f.readAll().contains(title.toUtf8()));
    EXPECT_EQ(keyView->statPlot()->plot()->plotLayout()->rowCount(), 1)
        << "the title is for the file only";
}

// A run read through the HDFS mirror is named by its URL's host and path, not by the mirror.
TEST(RunNames, RemoteRunsAreNamedByHostAndPath) {
    if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
    app();
    TempDir remote, local, cache;
    writeRun(remote.str() + "/exp/run", 2, 6);
    writeRun(local.str() + "/run", 2, 6);
    test::WebHdfsTestServer server(remote.str());
    ASSERT_GT(server.port(), 0) << "the WebHDFS test server did not start";
    ::setenv("XT_HDFS_CACHE_DIR", cache.str().c_str(), 1);
    LoadResult r = loadRuns({server.url("/exp"), local.str() + "/run"}, {});
    ::unsetenv("XT_HDFS_CACHE_DIR");
    ASSERT_TRUE(r.status.isOk()) << r.status.toString();
    ASSERT_EQ(r.runs.size(), 2u);
    const int remoteRun = r.runs[0]->sourceUrl.empty() ? 1 : 0;
    EXPECT_EQ(r.runs[std::size_t(remoteRun)]->sourceUrl, server.url("/exp/run"));
    EXPECT_TRUE(r.runs[std::size_t(1 - remoteRun)]->sourceUrl.empty());
    const QStringList names = runNames(r.runs);
    EXPECT_EQ(names[remoteRun], QStringLiteral("127.0.0.1:%1/exp/run").arg(server.port()));
    EXPECT_EQ(names[1 - remoteRun], "train.trace");
    RunBrowserModel model;
    model.setRuns(r.runs);
    EXPECT_EQ(model.index(remoteRun, 0).data(Qt::ToolTipRole).toString().section('\n', 0, 0),
              QString::fromStdString(server.url("/exp/run")));
}

TEST_F(TwoRuns, RenamesFollowTheRunThroughTabsAndReloads) {
    CompareView* view = w->openCompare({{w->runs()[std::size_t(ia)], 0},
                                        {w->runs()[std::size_t(ib)], 0},
                                        analysis::StepAlign::Gstep,
                                        1e-8,
                                        1e-5});
    ASSERT_TRUE(waitIdle(*w));
    // F2 in the Runs dock, on a rank row, edits the name of its run.
    QTreeView* tree = w->runTree();
    tree->setCurrentIndex(w->runModel()->index(1, 0, w->runModel()->index(ia, 0)));
    tree->setFocus();
    QTest::keyClick(tree, Qt::Key_F2);
    auto* editor = tree->viewport()->findChild<QLineEdit*>();
    ASSERT_TRUE(editor) << "F2 opened no editor";
    EXPECT_EQ(editor->text(), "a/run");
    editor->selectAll();
    QTest::keyClicks(editor, "baseline");
    QTest::keyClick(editor, Qt::Key_Return); // the delegate commits on the next event loop turn
    EXPECT_TRUE(QTest::qWaitFor([&] { return runRowText(ia) == "baseline"; }, 2000))
        << runRowText(ia).toStdString();
    EXPECT_EQ(w->runModel()->entries()[std::size_t(ia)].customName, "baseline");
    EXPECT_EQ(w->runModel()->entries()[std::size_t(ia)].autoName, "a/run");
    EXPECT_EQ(tabs()->tabText(tabs()->indexOf(view)), "compare baseline:0 vs b/run:0");
    EXPECT_EQ(view->title(), "baseline rank 0 vs b/run rank 0, aligned by gstep");

    // A reload makes new snapshots; the name stays with the run.
    w->reload();
    ASSERT_TRUE(waitIdle(*w));
    ASSERT_EQ(w->runs().size(), 2u);
    for (std::size_t i = 0; i < 2; ++i)
        EXPECT_EQ(runRowText(int(i)), w->runs()[i]->reader->files().directory == dir.file("a/run")
                                          ? "baseline"
                                          : "b/run");
    // An empty name gives the automatic one back.
    const int row = runRowText(0) == "baseline" ? 0 : 1;
    EXPECT_TRUE(w->runModel()->setData(w->runModel()->index(row, 0), QString()));
    EXPECT_EQ(runRowText(row), "a/run");
    EXPECT_TRUE(w->runModel()->entries()[std::size_t(row)].customName.isEmpty());
}

TEST_F(TwoRuns, KeysDockFollowsTheCurrentTab) {
    // One tab per run.
    w->runTree()->setCurrentIndex(w->runModel()->index(ia, 0));
    w->showKey("layer/w");
    KeyView* va = w->currentKeyView();
    ASSERT_TRUE(va);
    w->runTree()->setCurrentIndex(w->runModel()->index(ib, 0));
    w->showKey("loss", true);
    KeyView* vb = w->currentKeyView();
    ASSERT_TRUE(vb && vb != va);
    EXPECT_EQ(vb->run(), w->runs()[std::size_t(ib)]);
    EXPECT_EQ(keysDockTitle(), "Keys: b/run");
    EXPECT_EQ(w->keyModel()->run(), vb->run());

    tabs()->setCurrentWidget(va);
    EXPECT_EQ(keysDockTitle(), "Keys: a/run");
    EXPECT_EQ(w->keyModel()->run(), va->run());
    EXPECT_EQ(w->runTree()->currentIndex().data(RunBrowserModel::RunIndexRole).toInt(), ia);
    EXPECT_EQ(w->keyTree()->currentIndex().data(KeyTreeModel::KeyRole).toString(), "layer/w");
    tabs()->setCurrentWidget(vb);
    EXPECT_EQ(keysDockTitle(), "Keys: b/run");
    EXPECT_EQ(w->keyTree()->currentIndex().data(KeyTreeModel::KeyRole).toString(), "loss");
    EXPECT_EQ(tabs()->count(), 2) << "following a tab opens none";
}

// --- Heatmap of a strided run -----------------------------------------------------------------

QCPColorMap* colorMap(const HistogramView& v) {
    return qobject_cast<QCPColorMap*>(v.heatmapPlot()->plottable(0));
}

// A key with no statistics (yet: a key read later, or none at all) is drawn empty by queued
// replots, as every other change is: not within the call, and once per plot.
TEST(Heatmap, AKeyWithoutDataIsDrawnByQueuedReplots) {
    app();
    TempDir dir;
    writeRun(dir.str(), 2, 10);
    LoadResult r = loadRuns({dir.str()}, {});
    ASSERT_TRUE(r.status.isOk()) << r.status.toString();
    HistogramView view;
    view.resize(900, 300);
    view.show();
    QCoreApplication::processEvents();
    int heatmap = 0, steps = 0;
    QObject::connect(view.heatmapPlot(), &QCustomPlot::afterReplot, [&] { ++heatmap; });
    QObject::connect(view.stepPlot(), &QCustomPlot::afterReplot, [&] { ++steps; });
    view.setData(r.runs.front(), "no/such/key");
    view.setData(r.runs.front(), "another/missing/key");
    EXPECT_EQ(heatmap, 0);
    EXPECT_EQ(steps, 0);
    QCoreApplication::processEvents();
    EXPECT_EQ(heatmap, 1);
    EXPECT_EQ(steps, 1);
    EXPECT_FALSE(view.matrix());
}

TEST(Heatmap, ColumnsOfAStridedRankCoverTheStepAxis) {
    app();
    TempDir dir;
    writeRun(dir.str(), 2, 40); // rank 0: even gsteps 0..38, rank 1: odd gsteps 1..39
    LoadResult r = loadRuns({dir.str()}, {});
    ASSERT_TRUE(r.status.isOk()) << r.status.toString();
    HistogramView view;
    view.resize(900, 300);
    view.show();
    for (int rank : {0, 1}) {
        SCOPED_TRACE(rank);
        bool done = false;
        QMetaObject::Connection c =
            QObject::connect(&view, &HistogramView::finished, [&] { done = true; });
        if (rank == 0) {
            view.setData(r.runs.front(), "layer/w");
        } else {
            auto* combo = view.findChild<QComboBox*>();
            combo->setCurrentIndex(combo->findData(1));
            emit combo->activated(combo->currentIndex());
        }
        ASSERT_TRUE(QTest::qWaitFor([&] { return done; }, 30000));
        QObject::disconnect(c);
        ASSERT_EQ(view.rank(), rank);
        const auto* m = view.matrix();
        ASSERT_TRUE(m);
        ASSERT_EQ(m->steps.size(), 20u);
        EXPECT_EQ(m->steps.front(), rank);
        QCPColorMapData* data = colorMap(view)->data();
        ASSERT_EQ(data->keySize(), 39) << "one column per gstep from the first record to the last";
        // The data range is that of the cells' centres: the cells cover [first, last + 1).
        const QCPRange centres = data->keyRange();
        const double half = centres.size() / (data->keySize() - 1) / 2;
        EXPECT_EQ(centres.lower - half, double(m->steps.front()));
        EXPECT_EQ(centres.upper + half, double(m->steps.back() + 1)) << "the last record's step";
        // No empty column: every cell between the first and the last record has a colour, and
        // the column of a step without a record shows the record before it.
        for (int x = 0; x < data->keySize(); ++x)
            for (int y = 0; y < data->valueSize(); ++y)
                ASSERT_FALSE(std::isnan(data->cell(x, y))) << "column " << x << " bin " << y;
        for (int x = 1; x < data->keySize(); x += 2)
            for (int y = 0; y < data->valueSize(); ++y)
                ASSERT_EQ(data->cell(x, y), data->cell(x - 1, y)) << "column " << x;
        for (int y = 0; y < data->valueSize(); ++y)
            EXPECT_EQ(data->cell(0, y),
                      std::log10(1.0 + double(m->rows[0].counts[std::size_t(y)])));
        // The cursor on a step between two records shows the record whose column it is in.
        view.setStepCursor(rank + 5);
        EXPECT_EQ(view.stepPlot()->xAxis->label(), QStringLiteral("gstep %1").arg(rank + 4));
    }
}

// A run of more steps than the heatmap has columns merges neighbouring steps. Zoomed in, the steps
// in view come again one a column, in the same bins (their sums equal the merged rows), drawn
// over the whole; the cursor shows one step; zoomed out again, the detail goes.
TEST(Heatmap, ZoomedInWhereStepsAreMergedShowsEachStep) {
    app();
    TempDir dir;
    writeRun(dir.str(), 1, 9000); // 9000 gsteps: rows of 3 in at most 4000
    LoadResult r = loadRuns({dir.str()}, {});
    ASSERT_TRUE(r.status.isOk()) << r.status.toString();
    HistogramView view;
    view.resize(900, 300);
    view.show();
    bool done = false;
    QObject::connect(&view, &HistogramView::finished, [&] { done = true; });
    view.setData(r.runs.front(), "layer/w");
    ASSERT_TRUE(QTest::qWaitFor([&] { return done && !view.isBusy(); }, 60000));
    const auto* m = view.matrix();
    ASSERT_TRUE(m);
    ASSERT_EQ(m->steps.size(), 3000u);
    ASSERT_EQ(m->stepCounts[1000], 3u);
    EXPECT_FALSE(view.detail());
    view.setStepCursor(3001);
    EXPECT_EQ(view.stepPlot()->xAxis->label(), QStringLiteral("gsteps 3000-3002"));

    // 3000 steps in view (6000 with the sides): a detail of 2 steps a column; then 100 of them,
    // inside it: one a column.
    view.heatmapPlot()->xAxis->setRange(2000, 5000); // as a zoom with the wheel does
    ASSERT_TRUE(QTest::qWaitFor([&] { return view.detail() && !view.isBusy(); }, 60000));
    EXPECT_EQ(*std::max_element(view.detail()->stepCounts.begin(), view.detail()->stepCounts.end()),
              2u);
    view.heatmapPlot()->xAxis->setRange(3000, 3100);
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return view.detail() && view.detail()->steps.size() < 1000 && !view.isBusy(); },
        60000));
    const auto* d = view.detail();
    EXPECT_EQ(view.matrix(), m) << "the whole matrix stays";
    EXPECT_EQ(d->layout.lo, m->layout.lo);
    EXPECT_EQ(d->layout.hi, m->layout.hi);
    EXPECT_EQ(d->layout.bins, m->layout.bins);
    ASSERT_LE(d->steps.front(), 3000);
    ASSERT_GE(d->lastSteps.back(), 3099);
    for (std::size_t i = 0; i < d->steps.size(); ++i) {
        ASSERT_EQ(d->stepCounts[i], 1u);
        ASSERT_EQ(d->steps[i], d->steps.front() + std::int64_t(i)) << "every step, one a row";
    }
    // Steps 3000-3002 in detail add up to the merged row of the whole matrix.
    const std::size_t at = std::size_t(3000 - d->steps.front());
    for (std::size_t b = 0; b < std::size_t(m->layout.bins); ++b)
        ASSERT_EQ(d->rows[at].counts[b] + d->rows[at + 1].counts[b] + d->rows[at + 2].counts[b],
                  m->rows[1000].counts[b])
            << "bin " << b;
    auto* detailMap = qobject_cast<QCPColorMap*>(view.heatmapPlot()->plottable(1));
    ASSERT_TRUE(detailMap);
    EXPECT_EQ(detailMap->data()->keySize(), int(d->steps.size()));
    EXPECT_EQ(view.stepPlot()->xAxis->label(), QStringLiteral("gstep 3001"));
    QCoreApplication::processEvents();
    const QImage shot = view.grab().toImage();
    EXPECT_TRUE(nonBlank(shot));
    shot.save(screenshotPath(dir, "heatmap-detail.png"));

    view.heatmapPlot()->xAxis->setRange(0, 9000);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !view.detail(); }, 5000));
    EXPECT_EQ(detailMap->data()->keySize(), 0);
    EXPECT_EQ(view.stepPlot()->xAxis->label(), QStringLiteral("gsteps 3000-3002"));
}

// --- Tick labels ------------------------------------------------------------------------------

// The tick labels of `axis` overlap: boxes from the axis' tick vector and its font's metrics,
// centred on their ticks along the axis, in pixel order.
bool labelsOverlap(const QCPAxis* axis, QString* why) {
    const QFontMetricsF fm(axis->tickLabelFont());
    const QVector<double> ticks = axis->tickVector();
    const QVector<QString> labels = axis->tickVectorLabels();
    std::vector<std::pair<double, double>> spans; // [begin, end) along the axis
    for (int i = 0; i < ticks.size(); ++i) {
        const double p = axis->coordToPixel(ticks[i]);
        const QRectF box = fm.boundingRect(labels[i]);
        const double half =
            axis->orientation() == Qt::Horizontal ? box.width() / 2 : fm.height() / 2;
        spans.emplace_back(p - half, p + half);
    }
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i)
        if (spans[i].first < spans[i - 1].second) {
            if (why)
                *why = QStringLiteral("labels %1 of an axis %2 px long overlap")
                           .arg(QStringList(labels.begin(), labels.end()).join(QLatin1Char(' ')))
                           .arg(axis->orientation() == Qt::Horizontal ? axis->axisRect()->width()
                                                                      : axis->axisRect()->height());
            return true;
        }
    return false;
}

// Every visible axis with tick labels of every visible plot under `root`: no overlap, and at
// least two labels where there is room for them.
void expectReadableAxes(QWidget* root, const std::string& where) {
    int axes = 0;
    for (QCustomPlot* plot : root->findChildren<QCustomPlot*>()) {
        if (!plot->isVisible()) continue;
        plot->replot();
        QList<QCPAxis*> all;
        for (QCPLayoutElement* e : plot->plotLayout()->elements(true)) {
            if (auto* rect = qobject_cast<QCPAxisRect*>(e)) all << rect->axes();
            if (auto* scale = qobject_cast<QCPColorScale*>(e)) all << scale->axis();
        }
        for (QCPAxis* a : all) {
            if (!a->visible() || !a->tickLabels() || a->range().size() <= 0) continue;
            ++axes;
            QString why;
            EXPECT_FALSE(labelsOverlap(a, &why)) << where << ": " << why.toStdString();
            const int length = a->orientation() == Qt::Horizontal ? a->axisRect()->width()
                                                                  : a->axisRect()->height();
            if (length > 150) EXPECT_GE(a->tickVector().size(), 2) << where << " " << length;
        }
    }
    EXPECT_GT(axes, 0) << where;
}

TEST(Ticks, TheCheckSeesOverlapOnAPlotLeftAlone) {
    app();
    QCustomPlot plot;
    plot.resize(150, 120);
    plot.xAxis->setRange(-0.25, 0.35);
    plot.xAxis->ticker()->setTickCount(8);
    plot.show();
    plot.replot();
    EXPECT_TRUE(labelsOverlap(plot.xAxis, nullptr)) << "the test would not see the bug";
}

TEST(Ticks, NoTwoLabelsOverlapOnTheKeyViewAtAnyWidth) {
    app();
    TempDir dir;
    writeRun(dir.str(), 2, 600);
    LoadResult r = loadRuns({dir.str()}, {});
    ASSERT_TRUE(r.status.isOk());
    KeyView view;
    view.show();
    for (QSize size : {QSize(520, 420), QSize(700, 520), QSize(1000, 640), QSize(1500, 900)}) {
        view.resize(size);
        bool done = false;
        QMetaObject::Connection c =
            QObject::connect(view.histogramView(), &HistogramView::finished, [&] { done = true; });
        view.setData(r.runs.front(), "layer/w");
        ASSERT_TRUE(QTest::qWaitFor([&] { return done; }, 30000));
        QObject::disconnect(c);
        view.setStepCursor(301);
        QTest::qWait(50);
        expectReadableAxes(
            &view,
            QStringLiteral("key view %1x%2").arg(size.width()).arg(size.height()).toStdString());
        // The histogram at the cursor is the narrow one.
        EXPECT_LT(view.histogramView()->stepPlot()->width(), size.width() / 3);
    }
}

TEST(Ticks, WideValuesOnNarrowPlotsKeepApart) {
    app();
    for (int width : {90, 140, 220, 400, 900})
        for (QCPRange range : {QCPRange(-5, 5), QCPRange(-0.2, 0.3), QCPRange(1e6, 9e6),
                               QCPRange(1700000000, 1700086400), QCPRange(-1e-7, 3e-7)}) {
            QCustomPlot plot;
            adaptTicks(&plot);
            plot.resize(width, width);
            plot.xAxis->setRange(range);
            plot.yAxis->setRange(range);
            plot.show();
            plot.replot();
            for (QCPAxis* a : {plot.xAxis, plot.yAxis}) {
                QString why;
                EXPECT_FALSE(labelsOverlap(a, &why)) << width << ": " << why.toStdString();
            }
        }
}

// --- Table columns ----------------------------------------------------------------------------

TEST(TableColumns, WidestColumnsGiveWayFirst) {
    EXPECT_EQ(fittedColumnWidths({100, 50, 30}, {40, 40, 30}, 400), (QList<int>{100, 50, 30}));
    // 130 px for 180: the 100 px column is cut to 50, the others keep their width.
    EXPECT_EQ(fittedColumnWidths({100, 50, 30}, {40, 40, 30}, 130), (QList<int>{50, 50, 30}));
    EXPECT_EQ(fittedColumnWidths({300, 120, 60}, {50, 50, 50}, 300), (QList<int>{120, 120, 60}));
    // Not even the floors fit: the floors (the view scrolls).
    EXPECT_EQ(fittedColumnWidths({100, 50, 30}, {40, 40, 30}, 60), (QList<int>{40, 40, 30}));
}

TEST_F(TwoRuns, CompareKeyTableFitsItsColumnsToTheirContent) {
    CompareView* view = w->openCompare({{w->runs()[std::size_t(ia)], 0},
                                        {w->runs()[std::size_t(ib)], 0},
                                        analysis::StepAlign::Gstep,
                                        1e-8,
                                        1e-5});
    ASSERT_TRUE(waitIdle(*w));
    QTableView* table = view->keyTable();
    auto* hint = static_cast<QAbstractItemView*>(table);
    const int status = KeyDivergenceModel::StatusColumn, key = KeyDivergenceModel::KeyColumn;
    QStringList statuses;
    for (int r = 0; r < table->model()->rowCount(); ++r)
        statuses << table->model()->index(r, status).data().toString();
    EXPECT_TRUE(statuses.contains("beyond tolerance") && statuses.contains("identical"))
        << statuses.join(", ").toStdString();
    for (int width : {1400, 380, 130}) {
        SCOPED_TRACE(width);
        table->setFixedWidth(width);
        QTest::qWait(50);
        // Every column but the key column shows all of its content at any width (the table
        // scrolls when they do not fit); the key column takes what is left, or gives way.
        for (int c = 0; c < table->model()->columnCount(); ++c)
            if (c != key) EXPECT_GE(table->columnWidth(c), hint->sizeHintForColumn(c)) << c;
        if (width > 1000)
            EXPECT_GE(table->columnWidth(key), hint->sizeHintForColumn(key));
        else
            EXPECT_LT(table->columnWidth(key), hint->sizeHintForColumn(key));
    }
    const int row = view->model()->rowOfKey(kLongKey);
    ASSERT_GE(row, 0);
    EXPECT_TRUE(table->model()
                    ->index(row, key)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .startsWith(QString::fromLatin1(kLongKey)));
}

TEST(TableColumns, CutTextShowsWholeInItsTooltip) {
    app();
    const QString path = QStringLiteral("/a/long/directory/of/runs/experiment-42/train.trace.0.1");
    QStandardItemModel model(1, 3);
    model.setHorizontalHeaderLabels({"Reason", "File", "Message"});
    model.setItem(0, 0, new QStandardItem("missing-parts"));
    model.setItem(0, 1, new QStandardItem(path));
    model.setItem(0, 2, new QStandardItem("rank 1 has no part file with index 2"));
    QTableView table;
    table.setModel(&model);
    fitColumnsToContents(&table, 2);
    table.resize(360, 160);
    table.show();
    QTest::qWait(50);
    auto* hint = static_cast<QAbstractItemView*>(&table);
    EXPECT_GE(table.columnWidth(0), hint->sizeHintForColumn(0)) << "short text is never cut";
    ASSERT_LT(table.columnWidth(1), hint->sizeHintForColumn(1));
    auto tooltipAt = [&](int column) {
        QToolTip::hideText();
        EXPECT_TRUE(QTest::qWaitFor([] { return !QToolTip::isVisible(); }, 2000));
        const QRect rect = table.visualRect(model.index(0, column));
        QHelpEvent help(QEvent::ToolTip, rect.center(),
                        table.viewport()->mapToGlobal(rect.center()));
        QApplication::sendEvent(table.viewport(), &help);
        return QToolTip::isVisible() ? QToolTip::text() : QString();
    };
    EXPECT_EQ(tooltipAt(1), path);
    EXPECT_EQ(tooltipAt(0), QString()) << "text that fits needs no tooltip";
    QToolTip::hideText();
}

// --- Screenshots ------------------------------------------------------------------------------

TEST_F(TwoRuns, ScreenshotsAt1280x800And1920x1080HaveReadableAxes) {
    w->openCompare({{w->runs()[std::size_t(ia)], 0},
                    {w->runs()[std::size_t(ib)], 0},
                    analysis::StepAlign::Gstep,
                    1e-8,
                    1e-5})
        ->showKey("layer/w");
    ASSERT_TRUE(waitIdle(*w));
    // The diagnostics table on top, with a message longer than it is wide.
    w->diagnosticsModel()->addMessage(
        codes::kMissingParts,
        QStringLiteral("rank 1 of %1 has no part file with index 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, "
                       "12, 13, 14, 15, 16, 17, 18, 19, 20; the steps they held are not shown")
            .arg(QString::fromStdString(dir.file("a/run/train.trace"))));
    w->findChild<QDockWidget*>(QStringLiteral("DiagnosticsDock"))->raise();
    for (QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
        w->resize(size);
        for (int tab = 0; tab < tabs()->count(); ++tab) {
            tabs()->setCurrentIndex(tab);
            ASSERT_TRUE(waitIdle(*w));
            QTest::qWait(100);
            const QString name = QStringLiteral("tensor_views_%1x%2_tab%3.png")
                                     .arg(size.width())
                                     .arg(size.height())
                                     .arg(tab);
            const QImage shot = w->grab().toImage();
            EXPECT_EQ(shot.size(), size);
            EXPECT_TRUE(nonBlank(shot));
            EXPECT_TRUE(shot.save(screenshotPath(dir, name)));
            expectReadableAxes(tabs()->currentWidget(), name.toStdString());
        }
    }
}

} // namespace
} // namespace xt::widgets
