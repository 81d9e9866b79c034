// The desktop as a newcomer finds it, offscreen: a dock layout per kind of tab with View > Reset
// Layout, many ranks as the median and range with the outlier rank found by the MAD rule and the
// ranks x steps heatmap that opens it, log x, cursors A and B with their deltas and the
// clipboard, notes drawn in every view of their run and left out of exports on request,
// sessions saved and restored whole (and in part when files moved or went), the welcome page
// for both kinds of data, Fit all on a Kineto-like trace and hdfs:// runs shown by their URL.
// With XT_SCREENSHOT_DIR set, the views are also written there as PNGs at 1600x1000.
#include "core/xdl/file_series_writer.h"
#include "temp_dir.h"
#include "webhdfs_test_server.h"
#include "widgets/main_window.h"
#include "widgets/note_dialog.h"
#include "widgets/plot_export.h"
#include "widgets/text_format.h"
#include "widgets/timeline_page.h"
#include "widgets/trace_time_format.h"
#include "xtrace_run.h"

#include "offscreen_app.h"
#include "shared_corpus.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

// Readable QStrings in gtest's messages.
inline void PrintTo(const QString& s, std::ostream* os) {
    *os << '"' << s.toStdString() << '"';
}

namespace xt::widgets {
namespace {
using xt::test::TempDir;
namespace fs = std::filesystem;

QApplication& app() {
    return ::xt::test::offscreenApp();
}

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// Ranks 0..ranks-1, gsteps 0..steps-1 every 100 ms: "layer/w" float32 [4, 4] and "loss" float32
// []; `bias` is added to every value (tells two runs apart).
void writeRun(const std::string& dir, int ranks = 2, int steps = 10, float bias = 0) {
    for (int rank = 0; rank < ranks; ++rank) {
        xdl::WriterOptions o;
        o.outputDir = dir;
        o.rank = rank;
        auto w = xdl::FileSeriesWriter::create(o, {"layer/w", "loss"});
        ASSERT_TRUE(w.isOk()) << w.status().toString();
        xdl::RecordEncoder enc;
        for (std::int64_t g = 0; g < steps; ++g) {
            enc.begin(g, g + 1);
            std::vector<float> wv(16);
            for (int i = 0; i < 16; ++i)
                wv[std::size_t(i)] = bias + float(rank) * 0.01f + float(g) * 0.1f + float(i);
            const float loss = bias + 1.0f / float(g + 1);
            const std::int64_t ws[] = {4, 4};
            enc.addColumn(xdl::Dtype::Float, ws,
                          xdl::Bytes(reinterpret_cast<const std::uint8_t*>(wv.data()), 64));
            enc.addColumn(xdl::Dtype::Float, {},
                          xdl::Bytes(reinterpret_cast<const std::uint8_t*>(&loss), 4));
            const std::int64_t ts = 1700000000000 + g * 100;
            ASSERT_TRUE(enc.finish(ts).isOk());
            ASSERT_TRUE((*w)->write(enc.framed(), g, g + 1, ts).isOk());
        }
        ASSERT_TRUE((*w)->close().isOk());
    }
}

// A Kineto-like trace: five "ProfilerStep#N" of 10 ms from kT0 with an op in each, a memory
// counter at each step start (100, 200, ...) and, 100 ms after the last step, the global
// "Record Window End" marker. Times in microseconds as Kineto writes them; in nanoseconds they
// need more bits than a double has.
constexpr qint64 kT0 = 1623143093496439LL * 1000; // ns
constexpr qint64 kMs = 1000000;

std::string writeTrace(const std::string& path) {
    std::string json = R"({"traceEvents":[
{"ph":"M","name":"process_name","pid":1,"args":{"name":"python"}},
{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"main"}})";
    const qint64 t0 = kT0 / 1000;
    for (int i = 0; i < 5; ++i) {
        const qint64 ts = t0 + i * 10000;
        json += ",\n{\"ph\":\"X\",\"name\":\"ProfilerStep#" + std::to_string(i) +
                "\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(ts) + ",\"dur\":10000}";
        json += ",\n{\"ph\":\"X\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":" +
                std::to_string(ts + 1000) + ",\"dur\":5000}";
        json += ",\n{\"ph\":\"C\",\"name\":\"memory\",\"pid\":1,\"ts\":" + std::to_string(ts) +
                ",\"args\":{\"allocated\":" + std::to_string(100 * (i + 1)) + "}}";
    }
    json += ",\n{\"ph\":\"i\",\"s\":\"g\",\"name\":\"Record Window End\",\"pid\":1,\"tid\":1,"
            "\"ts\":" +
            std::to_string(t0 + 150000) + "}\n]}\n";
    std::ofstream(path) << json;
    return path;
}

bool waitIdle(MainWindow& w, int ms = 60000) {
    return QTest::qWaitFor([&] { return w.hasLoaded() && !w.isBusy(); }, ms);
}

QStringList shownDocks(const MainWindow& w) {
    QStringList out;
    for (auto* d : w.findChildren<QDockWidget*>())
        if (d->isVisibleTo(&w)) out << d->objectName();
    out.sort();
    return out;
}

QDockWidget* dock(const MainWindow& w, const char* name) {
    return w.findChild<QDockWidget*>(QLatin1String(name));
}

// The central tabs (the QTabWidget on the central stack).
QTabWidget* centralTabs(const MainWindow& w) {
    auto* stack = qobject_cast<QStackedWidget*>(w.centralWidget());
    return stack ? qobject_cast<QTabWidget*>(stack->widget(1)) : nullptr;
}

QAction* actionByText(const QWidget& w, const QString& text) {
    for (QAction* a : w.findChildren<QAction*>())
        if (a->text() == text) return a;
    return nullptr;
}

// Where XT_SCREENSHOT_DIR asks for screenshots ("" = none).
QString shotPath(const char* name) {
    const QString dir = qEnvironmentVariable("XT_SCREENSHOT_DIR");
    return dir.isEmpty() ? QString() : dir + QLatin1Char('/') + QLatin1String(name);
}

void saveShot(QWidget& w, const char* name) {
    const QString path = shotPath(name);
    if (!path.isEmpty()) EXPECT_TRUE(w.grab().save(path, "PNG")) << path.toStdString();
}

int diagnosticsWithCode(const MainWindow& w, const char* code) {
    const DiagnosticsModel* m = w.diagnosticsModel();
    int n = 0;
    for (int r = 0; r < m->rowCount(); ++r)
        n += m->index(r, DiagnosticsModel::CodeColumn).data().toString() == QLatin1String(code);
    return n;
}

// Pixels of `img` within `tolerance` of `c` in every channel.
int pixelsNear(const QImage& img, QColor c, int tolerance = 12) {
    int n = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            const QColor p = img.pixelColor(x, y);
            n += std::abs(p.red() - c.red()) <= tolerance &&
                 std::abs(p.green() - c.green()) <= tolerance &&
                 std::abs(p.blue() - c.blue()) <= tolerance;
        }
    return n;
}

// ---- 1. layouts per kind of tab ----

TEST(Layouts, EachKindOfTabHasItsOwnDocksKeptUntilResetLayout) {
    app();
    TempDir dir;
    writeRun(dir.str() + "/run");
    const QString trace = q(writeTrace(dir.file("trace.json")));
    const QString settings = q(dir.file("settings.ini"));
    const QStringList tensorDocks{"DiagnosticsDock", "InspectorDock", "KeysDock",
                                  "MetaDock",        "NotesDock",     "RunsDock"};
    {
        MainWindow w(settings);
        w.resize(1600, 1000);
        w.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
        EXPECT_EQ(w.layoutKind(), MainWindow::LayoutKind::Start);
        EXPECT_EQ(shownDocks(w), QStringList());

        w.openPaths({q(dir.str() + "/run")});
        ASSERT_TRUE(waitIdle(w));
        KeyView* plot = w.currentKeyView();
        ASSERT_TRUE(plot);
        EXPECT_EQ(w.layoutKind(), MainWindow::LayoutKind::Tensor);
        EXPECT_EQ(shownDocks(w), tensorDocks);
        QTest::qWait(50);
        const int runsWidth = dock(w, "RunsDock")->width();
        const int inspectorWidth = dock(w, "InspectorDock")->width();
        EXPECT_GE(runsWidth, 300);
        EXPECT_GE(inspectorWidth, 300);

        // A timeline tab: no tensor dock, the timeline takes most of the window's height.
        TimelinePage* page = w.openTimelineFiles({trace});
        ASSERT_TRUE(waitIdle(w));
        EXPECT_EQ(w.layoutKind(), MainWindow::LayoutKind::Timeline);
        EXPECT_EQ(shownDocks(w), QStringList());
        EXPECT_GE(page->view()->height(), 480) << "the timeline is squeezed";
        EXPECT_EQ(w.width(), 1600) << "switching layouts resized the window";
        EXPECT_EQ(w.height(), 1000);

        // A compare tab: the runs and the diagnostics.
        const RunSnapshot run = w.runs().front();
        CompareView* compare = w.openCompare({{run, 0, {}}, {run, 1, {}}});
        ASSERT_TRUE(waitIdle(w));
        ASSERT_EQ(w.currentCompareView(), compare);
        EXPECT_EQ(w.layoutKind(), MainWindow::LayoutKind::Compare);
        EXPECT_EQ(shownDocks(w), (QStringList{"DiagnosticsDock", "RunsDock"}));
        EXPECT_EQ(w.width(), 1600);
        QTest::qWait(50);
        EXPECT_LT(dock(w, "RunsDock")->width(), runsWidth) << "the key table needs the room";

        // The user's change to the tensor layout stays with tensor tabs.
        QTabWidget* tabs = centralTabs(w);
        ASSERT_TRUE(tabs);
        tabs->setCurrentWidget(plot);
        dock(w, "InspectorDock")->toggleViewAction()->trigger();
        QStringList changed = tensorDocks;
        changed.removeAll(QStringLiteral("InspectorDock"));
        EXPECT_EQ(shownDocks(w), changed);
        tabs->setCurrentWidget(page);
        EXPECT_EQ(shownDocks(w), QStringList());
        // Every tab shares the central area's minimum size: a timeline page must not push
        // the docks of plot tabs aside.
        EXPECT_LE(page->minimumSizeHint().width(), 800);
        tabs->setCurrentWidget(plot);
        EXPECT_EQ(shownDocks(w), changed);
        QTest::qWait(50);
        EXPECT_EQ(dock(w, "RunsDock")->width(), runsWidth) << "the docks came back resized";

        // View > Reset Layout puts the tensor docks back, and only for tensor tabs.
        QAction* reset = actionByText(w, QStringLiteral("Reset &Layout"));
        ASSERT_TRUE(reset);
        EXPECT_EQ(reset->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
        reset->trigger();
        EXPECT_EQ(shownDocks(w), tensorDocks);
        QTest::qWait(50);
        EXPECT_EQ(dock(w, "RunsDock")->width(), runsWidth);
        EXPECT_EQ(dock(w, "InspectorDock")->width(), inspectorWidth);
        tabs->setCurrentWidget(compare);
        EXPECT_EQ(shownDocks(w), (QStringList{"DiagnosticsDock", "RunsDock"}));

        // Kept in the settings for the next start.
        tabs->setCurrentWidget(plot);
        dock(w, "InspectorDock")->toggleViewAction()->trigger();
        w.close();
    }
    MainWindow again(settings);
    again.resize(1600, 1000);
    again.show();
    again.openPaths({q(dir.str() + "/run")});
    ASSERT_TRUE(waitIdle(again));
    ASSERT_TRUE(again.currentKeyView());
    EXPECT_FALSE(shownDocks(again).contains(QStringLiteral("InspectorDock")));
    EXPECT_TRUE(shownDocks(again).contains(QStringLiteral("KeysDock")));
}

// ---- 2. many ranks ----

TEST(ManyRanks, TheAggregateFindsTheDivergingRankAndTheHeatmapOpensIt) {
    app();
    TempDir dir;
    const std::string path = dir.str() + "/run";
    const auto demo =
        test::runXtrace("record-demo '" + path + "' --ranks 128 --steps 60 --diverge-rank 77");
    ASSERT_EQ(demo.status, 0) << demo.out;
    LoadResult loaded = loadRuns({path}, {});
    ASSERT_TRUE(loaded.status.isOk()) << loaded.status.toString();
    ASSERT_EQ(loaded.runs.size(), 1u);

    KeyView view;
    view.resize(1600, 1000);
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    view.setData(loaded.runs[0], QStringLiteral("gradient/fc2/weight"));
    StatPlot* plot = view.statPlot();
    EXPECT_TRUE(plot->options().aggregateRanks) << "128 ranks open aggregated";

    // The MAD rule finds rank 77, from the middle of the run on, and only it.
    const auto& outliers = plot->spread().outliers;
    ASSERT_EQ(outliers.size(), 1u);
    EXPECT_EQ(outliers[0].rank, 77);
    EXPECT_GE(outliers[0].firstOutlierStep, 30);
    EXPECT_GT(outliers[0].share(), 0.3);
    EXPECT_EQ(plot->spread().steps.size(), 60u);
    EXPECT_EQ(plot->spread().steps.front().ranks, 128);

    // Drawn: the median, the range, the outlier; no other rank.
    EXPECT_TRUE(plot->lineData(QStringLiteral("median of ranks")));
    EXPECT_TRUE(plot->lineData(QStringLiteral("rank 77 mean")));
    for (int r = 0; r < 128; ++r)
        if (r != 77) EXPECT_FALSE(plot->lineData(QStringLiteral("rank %1 mean").arg(r))) << r;

    // The legend is short, states the rule, and sits beside the axes, inside the plot.
    QCustomPlot* cp = plot->plot();
    cp->replot();
    QCPLegend* legend = cp->legend;
    EXPECT_LE(legend->itemCount(), 6);
    bool rule = false;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i)))
            rule |= item->plottable()->name().contains(QStringLiteral("1.4826 MAD"));
    EXPECT_TRUE(rule) << "the legend does not state the outlier rule";
    const QRect axes = cp->axisRect()->rect();
    const QRect legendRect = legend->outerRect();
    EXPECT_FALSE(legendRect.intersects(axes)) << "the legend covers the data";
    EXPECT_TRUE(cp->rect().contains(legendRect)) << "the legend is cut off";
    auto* listed = view.findChild<QLabel*>(QStringLiteral("outlierRanks"));
    ASSERT_TRUE(listed);
    EXPECT_TRUE(listed->isVisible());
    EXPECT_TRUE(listed->text().contains(QStringLiteral("rank 77")));

    // The ranks x steps heatmap is shown; as robust z-scores, rank 77 stands out late in the run.
    ASSERT_EQ(view.lowerTabs()->currentIndex(), 1);
    RankStepHeatmap* map = view.rankHeatmap();
    map->setDeviation(true);
    int standing = 0;
    for (int r = 0; r < 128; ++r)
        standing += std::abs(map->cellValue(r, 55)) > 3.5;
    EXPECT_EQ(standing, 1);
    EXPECT_GT(std::abs(map->cellValue(77, 55)), 3.5);

    // A click on a cell opens that rank and step.
    saveShot(view, "many-ranks.png");
    QSignalSpy steps(&view, &KeyView::stepSelected);
    QSignalSpy ranks(&view, &KeyView::rankSelected);
    map->plot()->replot();
    const QPoint cell = map->cellPosition(77, 50).toPoint();
    ASSERT_TRUE(map->plot()->axisRect()->rect().contains(cell));
    QTest::mouseClick(map->plot(), Qt::LeftButton, {}, cell);
    ASSERT_EQ(ranks.count(), 1);
    EXPECT_EQ(ranks[0][0].toInt(), 77);
    ASSERT_EQ(steps.count(), 1);
    EXPECT_EQ(steps[0][0].toLongLong(), 50);
    EXPECT_EQ(view.histogramView()->rank(), 77);
    EXPECT_EQ(plot->stepCursor(), 50);
    EXPECT_EQ(plot->options().highlightRank, 77);
    EXPECT_TRUE(plot->lineData(QStringLiteral("rank 77 mean")));
}

// ---- 3. log x ----

// The keys (x) of the drawn graph named `name`.
std::vector<double> drawnX(QCustomPlot* plot, const QString& name) {
    std::vector<double> out;
    for (int i = 0; i < plot->graphCount(); ++i)
        if (plot->graph(i)->name() == name)
            for (auto it = plot->graph(i)->data()->constBegin();
                 it != plot->graph(i)->data()->constEnd(); ++it)
                out.push_back(it->key);
    return out;
}

TEST(LogX, StepsAndSecondsOnALogarithmicAxisFromTheMenuAndTheKeyboard) {
    app();
    TempDir dir;
    writeRun(dir.str() + "/run");
    MainWindow w(q(dir.file("settings.ini")));
    w.resize(1600, 1000);
    w.show();
    w.openPaths({q(dir.str() + "/run")});
    ASSERT_TRUE(waitIdle(w));
    w.showKey(QStringLiteral("loss"));
    KeyView* view = w.currentKeyView();
    ASSERT_TRUE(view);
    QCustomPlot* plot = view->statPlot()->plot();
    EXPECT_EQ(plot->xAxis->scaleType(), QCPAxis::stLinear);

    // Plot > Log X Axis (Ctrl+L).
    QAction* logX = actionByText(w, QStringLiteral("Log &X Axis"));
    ASSERT_TRUE(logX);
    EXPECT_EQ(logX->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_L));
    ASSERT_TRUE(logX->isEnabled());
    logX->trigger();
    EXPECT_TRUE(view->statPlot()->options().logX);
    QCheckBox* box = nullptr;
    for (auto* c : view->findChildren<QCheckBox*>())
        if (c->text() == QStringLiteral("log x")) box = c;
    ASSERT_TRUE(box);
    EXPECT_TRUE(box->isChecked()) << "the plot's control does not follow the menu";
    EXPECT_EQ(plot->xAxis->scaleType(), QCPAxis::stLogarithmic);
    EXPECT_GT(plot->xAxis->range().lower, 0);
    EXPECT_GE(plot->xAxis->range().upper, 9);
    // gstep 0 has no place on a log axis; 1..9 are drawn.
    const auto steps = drawnX(plot, QStringLiteral("rank 0 mean"));
    ASSERT_EQ(steps.size(), 9u);
    for (std::size_t i = 0; i < steps.size(); ++i)
        EXPECT_NEAR(steps[i], double(i + 1), 1e-9);
    EXPECT_EQ(view->statPlot()->lineData(QStringLiteral("rank 0 mean"))->x.size(), 10u);

    // On the wall-time axis: seconds since the first record.
    StatPlotOptions o = view->statPlot()->options();
    o.xAxis = view::XAxisMode::WallTime;
    view->setOptions(o);
    EXPECT_EQ(plot->xAxis->label(), QStringLiteral("seconds since the first record"));
    const auto seconds = drawnX(plot, QStringLiteral("rank 0 mean"));
    ASSERT_EQ(seconds.size(), 9u);
    EXPECT_NEAR(seconds.front(), 0.1, 1e-6);
    EXPECT_NEAR(seconds.back(), 0.9, 1e-6);

    // And back, from the keyboard.
    view->statPlot()->setFocus();
    QTest::keyClick(&w, Qt::Key_L, Qt::ControlModifier);
    EXPECT_FALSE(view->statPlot()->options().logX);
    EXPECT_EQ(plot->xAxis->scaleType(), QCPAxis::stLinear);

    // The rest of the Plot menu: ranks aggregated (Ctrl+G), the ranks x steps heatmap
    // (Ctrl+Shift+H).
    ASSERT_FALSE(view->statPlot()->options().aggregateRanks);
    QTest::keyClick(&w, Qt::Key_G, Qt::ControlModifier);
    EXPECT_TRUE(view->statPlot()->options().aggregateRanks);
    EXPECT_TRUE(view->statPlot()->lineData(QStringLiteral("median of ranks")));
    ASSERT_EQ(view->lowerTabs()->currentIndex(), 0);
    QTest::keyClick(&w, Qt::Key_H, Qt::ControlModifier | Qt::ShiftModifier);
    EXPECT_EQ(view->lowerTabs()->currentIndex(), 1);
}

// ---- 4. cursors ----

TEST(Cursors, PlotCursorsShowStepsTimesValuesAndDeltasAndCopyThem) {
    app();
    TempDir dir;
    writeRun(dir.str() + "/run");
    MainWindow w(q(dir.file("settings.ini")));
    w.resize(1600, 1000);
    w.show();
    w.openPaths({q(dir.str() + "/run")});
    ASSERT_TRUE(waitIdle(w));
    w.showKey(QStringLiteral("loss"));
    KeyView* view = w.currentKeyView();
    ASSERT_TRUE(view);
    StatPlot* plot = view->statPlot();

    // Measure > Set Cursor A / B (Ctrl+1, Ctrl+2) away from the plot: at the step cursor.
    view->setStepCursor(2);
    QTest::keyClick(&w, Qt::Key_1, Qt::ControlModifier);
    view->setStepCursor(7);
    QTest::keyClick(&w, Qt::Key_2, Qt::ControlModifier);
    ASSERT_EQ(plot->cursorAt(Cursor::A), 2);
    ASSERT_EQ(plot->cursorAt(Cursor::B), 7);

    const QStringList rows = plot->cursorText().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    ASSERT_GE(rows.size(), 5);
    EXPECT_EQ(rows[0], QStringLiteral("key: loss\tA\tB\tB - A"));
    EXPECT_EQ(rows[1], QStringLiteral("gstep\t2\t7\t5"));
    EXPECT_EQ(rows[2], QStringLiteral("lstep\t3\t8\t5"));
    EXPECT_TRUE(rows[3].startsWith(QStringLiteral("time (UTC)\t")));
    EXPECT_TRUE(rows[3].endsWith(QStringLiteral("\t0.500 s"))) << rows[3].toStdString();
    const double a = double(1.0f / 3.0f), b = double(1.0f / 8.0f);
    EXPECT_TRUE(rows.contains(QStringLiteral("rank 0 mean\t%1\t%2\t%3")
                                  .arg(formatValue(a), formatValue(b), formatValue(b - a))))
        << rows.join(QLatin1Char('\n')).toStdString();
    // The one-line readout under the plot.
    QLabel* readout = plot->cursorReadout();
    EXPECT_TRUE(readout->isVisible());
    EXPECT_TRUE(readout->text().contains(QStringLiteral("5 step(s)")));
    EXPECT_TRUE(readout->text().contains(formatValue(b - a)));

    // Measure > Copy Cursor Values (Ctrl+Shift+C).
    QApplication::clipboard()->clear();
    QTest::keyClick(&w, Qt::Key_C, Qt::ControlModifier | Qt::ShiftModifier);
    EXPECT_EQ(QApplication::clipboard()->text(), plot->cursorText());

    // Measure > Clear Cursors (Ctrl+0).
    QTest::keyClick(&w, Qt::Key_0, Qt::ControlModifier);
    EXPECT_FALSE(plot->cursorAt(Cursor::A));
    EXPECT_FALSE(plot->cursorAt(Cursor::B));
    EXPECT_TRUE(plot->cursorText().isEmpty());
    EXPECT_FALSE(readout->isVisible());
}

TEST(Cursors, TimelineCursorsMeasureTimeStepsAndCounters) {
    app();
    TempDir dir;
    const QString trace = q(writeTrace(dir.file("trace.json")));
    MainWindow w(q(dir.file("settings.ini")));
    w.resize(1600, 1000);
    w.show();
    TimelinePage* page = w.openTimelineFiles({trace});
    ASSERT_TRUE(waitIdle(w));
    TimelineView* view = page->view();
    ASSERT_EQ(view->layers().size(), 1u);
    EXPECT_EQ(view->traceBegin(), kT0);

    // Ctrl+1 and Ctrl+2 away from the tracks: at the view's centre; then exactly.
    QTest::keyClick(&w, Qt::Key_1, Qt::ControlModifier);
    ASSERT_TRUE(view->cursorAt(Cursor::A));
    EXPECT_NEAR(double(*view->cursorAt(Cursor::A)),
                double(view->viewStart() + (view->viewEnd() - view->viewStart()) / 2), 1e3);
    view->setCursorAt(Cursor::A, kT0 + 5 * kMs);
    view->setCursorAt(Cursor::B, kT0 + 32 * kMs);
    const QStringList rows = view->cursorText().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    ASSERT_GE(rows.size(), 4) << view->cursorText().toStdString();
    EXPECT_EQ(rows[1], QStringLiteral("time from start\t%1\t%2\t%3")
                           .arg(formatTraceDuration(5e6), formatTraceDuration(32e6),
                                formatTraceDuration(27e6)));
    EXPECT_TRUE(rows[2].startsWith(QStringLiteral("step (trace.json)\tProfilerStep#0\t"
                                                  "ProfilerStep#3\t3 step(s)")))
        << rows[2].toStdString();
    EXPECT_TRUE(rows[3].startsWith(QStringLiteral("memory")));
    EXPECT_TRUE(rows[3].endsWith(QStringLiteral("\t100\t400\t300"))) << rows[3].toStdString();
    EXPECT_TRUE(page->cursorLabel()->text().contains(formatTraceDuration(27e6)))
        << page->cursorLabel()->text().toStdString();

    QApplication::clipboard()->clear();
    QTest::keyClick(&w, Qt::Key_C, Qt::ControlModifier | Qt::ShiftModifier);
    EXPECT_EQ(QApplication::clipboard()->text(), view->cursorText());
    QTest::keyClick(&w, Qt::Key_0, Qt::ControlModifier);
    EXPECT_FALSE(view->cursorAt(Cursor::A));
    EXPECT_TRUE(view->cursorText().isEmpty());
}

// ---- 5. notes ----

TEST(Notes, DrawnInEveryViewOfTheirRunListedAndLeftOutOfExportsOnRequest) {
    app();
    TempDir dir;
    writeRun(dir.str() + "/run");
    const QString trace = q(writeTrace(dir.file("trace.json")));
    const QString settings = q(dir.file("settings.ini"));
    MainWindow w(settings);
    w.resize(1600, 1000);
    w.show();
    w.openPaths({q(dir.str() + "/run")});
    ASSERT_TRUE(waitIdle(w));
    const RunSnapshot run = w.runs().front();
    w.showKey(QStringLiteral("layer/w"));
    KeyView* first = w.currentKeyView();
    w.showKey(QStringLiteral("loss"), true);
    KeyView* second = w.currentKeyView();
    ASSERT_NE(first, second);
    CompareView* compare = w.openCompare({{run, 0, {}}, {run, 1, {}}});
    ASSERT_TRUE(waitIdle(w));
    compare->showKey(QStringLiteral("loss"));
    TimelinePage* page = w.openTimelineFiles({trace});
    ASSERT_TRUE(waitIdle(w));

    Note n;
    n.target = runIdentity(*run);
    n.kind = Note::Kind::StepRange;
    n.begin = 3;
    n.end = 5;
    n.text = QStringLiteral("warm restart");
    n.colour = QColor(0xd0, 0x28, 0x28);
    w.notes()->add(n);
    centralTabs(w)->setCurrentWidget(first);
    saveShot(w, "plot-note.png");
    for (KeyView* v : {first, second}) {
        EXPECT_EQ(v->statPlot()->noteItemCount(), 2u) << "a band and its text";
        EXPECT_EQ(v->statPlot()->notes().size(), 1u);
    }
    EXPECT_EQ(compare->noteItemCount(), 4u) << "the curves and the delta panels";
    EXPECT_TRUE(page->view()->notes().empty()) << "a run's note on a timeline";

    Note t;
    t.target = page->identity();
    t.onTimeline = true;
    t.kind = Note::Kind::TimeRange;
    t.begin = kT0 + 12 * kMs;
    t.end = kT0 + 18 * kMs;
    t.text = QStringLiteral("data loader stall");
    t.colour = QColor(0x20, 0x90, 0x40);
    w.notes()->add(t);
    ASSERT_EQ(page->view()->notes().size(), 1u);
    EXPECT_EQ(first->statPlot()->notes().size(), 1u);
    // Drawn over the tracks: the note's band has its colour (on white, 40/255 of it).
    centralTabs(w)->setCurrentWidget(page);
    page->view()->setViewWindow(kT0, kT0 + 50 * kMs);
    const QImage tl = page->view()->grab().toImage();
    saveShot(w, "timeline-note.png");
    EXPECT_GT(pixelsNear(tl, t.colour.darker(140), 30), 20) << "no note label on the timeline";

    // The Notes dock lists both.
    auto* tree = w.findChild<QTreeWidget*>(QStringLiteral("notesTree"));
    ASSERT_TRUE(tree);
    ASSERT_EQ(tree->topLevelItemCount(), 2);
    EXPECT_EQ(tree->topLevelItem(0)->text(1), QStringLiteral("steps 3..5"));
    EXPECT_EQ(tree->topLevelItem(0)->text(2), QStringLiteral("warm restart"));
    EXPECT_EQ(tree->topLevelItem(1)->text(0), QStringLiteral("trace.json"));
    EXPECT_EQ(dock(w, "NotesDock")->windowTitle(), QStringLiteral("Notes (2)"));

    // Exported images: with the notes by default, without when unticked (kept in the settings).
    centralTabs(w)->setCurrentWidget(first);
    ASSERT_TRUE(w.exportsNotes());
    const QString with = q(dir.file("with.png")), without = q(dir.file("without.png"));
    QString error;
    ASSERT_TRUE(w.exportCurrentPlot(with, false, &error)) << error.toStdString();
    QAction* include = actionByText(w, QStringLiteral("Include Notes in &Exported Images"));
    ASSERT_TRUE(include);
    include->setChecked(false);
    ASSERT_TRUE(w.exportCurrentPlot(without, false, &error)) << error.toStdString();
    const QColor label = n.colour.darker(140);
    EXPECT_GT(pixelsNear(QImage(with), label, 30), 30);
    EXPECT_EQ(pixelsNear(QImage(without), label, 30), 0);
    EXPECT_EQ(first->statPlot()->noteItemCount(), 2u) << "the export removed the notes";
    const QString compareWithout = q(dir.file("compare.png"));
    ASSERT_TRUE(compare->exportImage(compareWithout, 900, 600, &error, false));
    EXPECT_EQ(pixelsNear(QImage(compareWithout), label, 30), 0);
    ASSERT_TRUE(compare->exportImage(compareWithout, 900, 600, &error, true));
    EXPECT_GT(pixelsNear(QImage(compareWithout), label, 30), 30);
    w.close();
    MainWindow again(settings);
    EXPECT_FALSE(again.exportsNotes());

    // Removed: gone from every view.
    w.notes()->remove(w.notes()->all().front().id);
    EXPECT_EQ(first->statPlot()->noteItemCount(), 0u);
    EXPECT_EQ(compare->noteItemCount(), 0u);
    EXPECT_EQ(tree->topLevelItemCount(), 1);
}

// Answers the next note dialog: `text`, the place at index `place`, the colour at `colour`.
void answerNoteDialog(const QString& text, int place, int colour, bool* answered) {
    auto* timer = new QTimer;
    QObject::connect(timer, &QTimer::timeout, timer, [=] {
        auto* dialog = qobject_cast<NoteDialog*>(QApplication::activeModalWidget());
        if (!dialog) return;
        timer->deleteLater();
        *answered = true;
        dialog->textEdit()->setText(text);
        const auto boxes = dialog->findChildren<QComboBox*>(); // the places, the colours
        boxes.at(0)->setCurrentIndex(place);
        boxes.at(1)->setCurrentIndex(colour);
        dialog->accept();
    });
    timer->start(20);
}

TEST(Notes, AddedFromTheMeasureMenuOnAPlotAndATimeline) {
    app();
    TempDir dir;
    writeRun(dir.str() + "/run");
    MainWindow w(q(dir.file("settings.ini")));
    w.resize(1600, 1000);
    w.show();
    w.openPaths({q(dir.str() + "/run")});
    ASSERT_TRUE(waitIdle(w));
    KeyView* view = w.currentKeyView();
    ASSERT_TRUE(view);
    view->setStepCursor(4);
    view->statPlot()->setCursorAt(Cursor::A, 2);
    view->statPlot()->setCursorAt(Cursor::B, 6);
    // Measure > Add Note (Ctrl+M): offered the step cursor, the cursors' range (in steps and in
    // time) and each cursor; the second, in red.
    bool answered = false;
    answerNoteDialog(QStringLiteral("spike"), 1, 1, &answered);
    QTest::keyClick(&w, Qt::Key_M, Qt::ControlModifier);
    ASSERT_TRUE(answered);
    ASSERT_EQ(w.notes()->all().size(), 1u);
    const Note& n = w.notes()->all()[0];
    EXPECT_EQ(n.target, runIdentity(*view->run()));
    EXPECT_EQ(n.kind, Note::Kind::StepRange);
    EXPECT_EQ(n.begin, 2);
    EXPECT_EQ(n.end, 6);
    EXPECT_EQ(n.text, QStringLiteral("spike"));
    EXPECT_EQ(n.colour, QColor(0xd0, 0x28, 0x28));
    EXPECT_EQ(view->statPlot()->noteItemCount(), 2u);

    // On a timeline: the cursors' time range first.
    TimelinePage* page = w.openTimelineFiles({q(writeTrace(dir.file("trace.json")))});
    ASSERT_TRUE(waitIdle(w));
    page->view()->setCursorAt(Cursor::A, kT0 + 5 * kMs);
    page->view()->setCursorAt(Cursor::B, kT0 + 32 * kMs);
    w.activateWindow(); // the closed dialog had it (a window manager gives it back)
    ASSERT_TRUE(QTest::qWaitForWindowActive(&w));
    answered = false;
    answerNoteDialog(QStringLiteral("slow steps"), 0, 0, &answered);
    QTest::keyClick(&w, Qt::Key_M, Qt::ControlModifier);
    ASSERT_TRUE(answered);
    ASSERT_EQ(w.notes()->all().size(), 2u);
    const Note& t = w.notes()->all()[1];
    EXPECT_TRUE(t.onTimeline);
    EXPECT_EQ(t.target, page->identity());
    EXPECT_EQ(t.kind, Note::Kind::TimeRange);
    EXPECT_EQ(t.begin, kT0 + 5 * kMs);
    EXPECT_EQ(t.end, kT0 + 32 * kMs);
    EXPECT_EQ(page->view()->notes().size(), 1u);
    EXPECT_EQ(dock(w, "NotesDock")->windowTitle(), QStringLiteral("Notes (2)"));
}

TEST(Notes, SurviveJsonWithTheirExactTimes) {
    NoteStore store;
    Note a;
    a.target = QStringLiteral("/traces/worker0.pt.trace.json.gz");
    a.onTimeline = true;
    a.kind = Note::Kind::TimeRange;
    a.begin = kT0 + 123;
    a.end = kT0 + 456789;
    a.text = QStringLiteral("stall \u2013 \"quoted\"");
    a.colour = QColor(0x12, 0x34, 0x56);
    Note b;
    b.target = QStringLiteral("hdfs://nn:9870/exp/train.trace");
    b.kind = Note::Kind::Step;
    b.begin = b.end = 42;
    store.add(a);
    store.add(b);
    const QByteArray bytes = QJsonDocument(store.toJson()).toJson();
    int skipped = -1;
    const auto back = NoteStore::fromJson(QJsonDocument::fromJson(bytes).array(), &skipped);
    EXPECT_EQ(skipped, 0);
    ASSERT_EQ(back.size(), 2u);
    EXPECT_EQ(back[0], (Note{0, a.target, a.kind, a.begin, a.end, a.text, a.colour, true}));
    EXPECT_EQ(back[1].begin, 42);
    EXPECT_EQ(back[1].end, 42);
    EXPECT_FALSE(back[1].onTimeline);
    // A malformed entry is skipped and counted.
    QJsonArray bad = QJsonDocument::fromJson(bytes).array();
    bad.append(QJsonObject{{QStringLiteral("kind"), QStringLiteral("nonsense")}});
    EXPECT_EQ(NoteStore::fromJson(bad, &skipped).size(), 2u);
    EXPECT_EQ(skipped, 1);
}

// ---- 6. sessions ----

struct Desk {
    std::string root; // the folder with the runs, the trace and the session
    QString session;  // the session file
    QString baseId;   // runIdentity of the runs
    QString candId;
    QString traceFile; // the timeline's file
};

// Waits until a session opened in `w` is restored (and its tabs are idle); its problems.
QStringList restore(MainWindow& w, const QString& session) {
    QSignalSpy restored(&w, &MainWindow::sessionRestored);
    EXPECT_TRUE(w.openSession(session));
    EXPECT_TRUE(QTest::qWaitFor([&] { return restored.count() == 1; }, 60000));
    EXPECT_TRUE(waitIdle(w));
    QTest::qWait(50);
    return restored.isEmpty() ? QStringList{QStringLiteral("not restored")}
                              : restored[0][0].toStringList();
}

TEST(Sessions, SaveAndRestoreRunsTabsKeysZoomCursorsNotesAndLayouts) {
    app();
    TempDir dir;
    Desk d;
    d.root = dir.str() + "/work";
    writeRun(d.root + "/base");
    writeRun(d.root + "/cand", 2, 10, 0.5f);
    d.traceFile = q(writeTrace(d.root + "/trace.json"));
    d.session = q(d.root + "/desk.xtview");

    // What the restored desktop must show.
    QCPRange xRange;
    QByteArray tensorLayout;
    {
        MainWindow w(q(dir.file("a.ini")));
        w.resize(1600, 1000);
        w.show();
        w.openPaths({q(d.root + "/base"), q(d.root + "/cand")});
        ASSERT_TRUE(waitIdle(w));
        ASSERT_EQ(w.runs().size(), 2u);
        int baseRow = 0;
        for (int i = 0; i < 2; ++i)
            if (runIdentity(*w.runs()[std::size_t(i)]).contains(QStringLiteral("/base/")))
                baseRow = i;
        const RunSnapshot base = w.runs()[std::size_t(baseRow)];
        const RunSnapshot cand = w.runs()[std::size_t(1 - baseRow)];
        d.baseId = runIdentity(*base);
        d.candId = runIdentity(*cand);
        w.runModel()->renameRun(1 - baseRow, QStringLiteral("candidate"));

        // Tab 1: layer/w of base, log y, smoothing, zoomed, step cursor, cursors, the heatmap.
        w.runTree()->setCurrentIndex(w.runModel()->index(baseRow, 0));
        w.showKey(QStringLiteral("layer/w"));
        KeyView* v1 = w.currentKeyView();
        ASSERT_TRUE(v1 && v1->run() == base);
        StatPlotOptions o = v1->statPlot()->options();
        o.logY = true;
        o.smoothing = 0.5;
        v1->setOptions(o);
        v1->setStepCursor(4);
        v1->statPlot()->setCursorAt(Cursor::A, 2);
        v1->statPlot()->setCursorAt(Cursor::B, 6);
        v1->lowerTabs()->setCurrentIndex(1);
        v1->rankHeatmap()->setDeviation(true);
        v1->statPlot()->plot()->xAxis->setRange(2.25, 7.5);
        xRange = v1->statPlot()->plot()->xAxis->range();
        // The tensor layout without the value inspector.
        dock(w, "InspectorDock")->toggleViewAction()->trigger();

        // Tab 2: loss of the candidate on the wall-time axis.
        w.runTree()->setCurrentIndex(w.runModel()->index(1 - baseRow, 0));
        w.showKey(QStringLiteral("loss"), true);
        KeyView* v2 = w.currentKeyView();
        ASSERT_TRUE(v2 && v2 != v1 && v2->run() == cand);
        o = v2->statPlot()->options();
        o.xAxis = view::XAxisMode::WallTime;
        v2->setOptions(o);

        // Tab 3: the timeline, zoomed, with cursors; its layout shows the Notes dock.
        TimelinePage* page = w.openTimelineFiles({d.traceFile});
        ASSERT_TRUE(waitIdle(w));
        page->view()->setViewWindow(kT0 + kMs + 123, kT0 + 25 * kMs + 7);
        page->view()->setCursorAt(Cursor::A, kT0 + 5 * kMs + 1);
        page->view()->setCursorAt(Cursor::B, kT0 + 32 * kMs + 3);
        dock(w, "NotesDock")->toggleViewAction()->trigger();

        // Tab 4: base rank 0 against candidate rank 1, the max, at a step.
        CompareView* c = w.openCompare({{base, 0, {}}, {cand, 1, {}}});
        ASSERT_TRUE(waitIdle(w));
        c->setStatistic(analysis::StatField::Max);
        c->showKey(QStringLiteral("layer/w"));
        c->setCursorStep(3);

        Note n;
        n.target = d.baseId;
        n.kind = Note::Kind::StepRange;
        n.begin = 3;
        n.end = 5;
        n.text = QStringLiteral("warm restart");
        w.notes()->add(n);
        Note t;
        t.target = page->identity();
        t.onTimeline = true;
        t.kind = Note::Kind::TimeRange;
        t.begin = kT0 + 12 * kMs + 1;
        t.end = kT0 + 18 * kMs + 1;
        t.text = QStringLiteral("stall");
        w.notes()->add(t);
        for (auto* e : dock(w, "KeysDock")->findChildren<QLineEdit*>())
            e->setText(QStringLiteral("layer"));

        QString error;
        ASSERT_TRUE(w.saveSession(d.session, &error)) << error.toStdString();
        EXPECT_EQ(w.sessionPath(), d.session);
        centralTabs(w)->setCurrentWidget(v1);
        tensorLayout = w.saveState();
    }

    // The file: documented JSON with exact nanoseconds.
    {
        QFile f(d.session);
        ASSERT_TRUE(f.open(QIODevice::ReadOnly));
        const QJsonObject json = QJsonDocument::fromJson(f.readAll()).object();
        EXPECT_EQ(json.value(QStringLiteral("format")).toString(),
                  QStringLiteral("xtview-session"));
        EXPECT_EQ(json.value(QStringLiteral("version")).toInt(), 1);
        const QJsonArray tabs = json.value(QStringLiteral("tabs")).toArray();
        ASSERT_EQ(tabs.size(), 4);
        EXPECT_EQ(tabs[2].toObject().value(QStringLiteral("window")).toArray()[0].toInteger(),
                  kT0 + kMs + 123);
        EXPECT_EQ(json.value(QStringLiteral("currentTab")).toInt(), 3);
        for (const QJsonValue& r : json.value(QStringLiteral("runs")).toArray())
            EXPECT_FALSE(r.toObject().value(QStringLiteral("relative")).toString().isEmpty());
    }

    auto check = [&](MainWindow& w, const Desk& at) {
        ASSERT_EQ(w.runs().size(), 2u);
        QTabWidget* tabs = centralTabs(w);
        ASSERT_TRUE(tabs);
        ASSERT_EQ(tabs->count(), 4);
        auto* v1 = qobject_cast<KeyView*>(tabs->widget(0));
        auto* v2 = qobject_cast<KeyView*>(tabs->widget(1));
        auto* page = qobject_cast<TimelinePage*>(tabs->widget(2));
        auto* c = qobject_cast<CompareView*>(tabs->widget(3));
        ASSERT_TRUE(v1 && v2 && page && c);
        EXPECT_EQ(tabs->currentWidget(), c);

        EXPECT_EQ(v1->key(), QStringLiteral("layer/w"));
        EXPECT_EQ(runIdentity(*v1->run()), at.baseId);
        const StatPlotOptions& o1 = v1->statPlot()->options();
        EXPECT_TRUE(o1.logY);
        EXPECT_DOUBLE_EQ(o1.smoothing, 0.5);
        EXPECT_EQ(v1->statPlot()->stepCursor(), 4);
        EXPECT_EQ(v1->statPlot()->cursorAt(Cursor::A), 2);
        EXPECT_EQ(v1->statPlot()->cursorAt(Cursor::B), 6);
        EXPECT_EQ(v1->lowerTabs()->currentIndex(), 1);
        EXPECT_TRUE(v1->rankHeatmap()->deviation());
        EXPECT_DOUBLE_EQ(v1->statPlot()->plot()->xAxis->range().lower, xRange.lower);
        EXPECT_DOUBLE_EQ(v1->statPlot()->plot()->xAxis->range().upper, xRange.upper);
        EXPECT_EQ(v1->statPlot()->noteItemCount(), 2u) << "the run's note is not drawn";

        EXPECT_EQ(v2->key(), QStringLiteral("loss"));
        EXPECT_EQ(runIdentity(*v2->run()), at.candId);
        EXPECT_EQ(v2->statPlot()->options().xAxis, view::XAxisMode::WallTime);
        EXPECT_EQ(w.runName(v2->run()), QStringLiteral("candidate"));

        ASSERT_EQ(page->view()->layers().size(), 1u);
        EXPECT_EQ(page->paths(), QStringList{at.traceFile});
        EXPECT_EQ(page->view()->viewStart(), kT0 + kMs + 123);
        EXPECT_EQ(page->view()->viewEnd(), kT0 + 25 * kMs + 7);
        EXPECT_EQ(page->view()->cursorAt(Cursor::A), kT0 + 5 * kMs + 1);
        EXPECT_EQ(page->view()->cursorAt(Cursor::B), kT0 + 32 * kMs + 3);
        ASSERT_EQ(page->view()->notes().size(), 1u);
        EXPECT_EQ(page->view()->notes()[0].begin, kT0 + 12 * kMs + 1);
        EXPECT_EQ(page->view()->notes()[0].text, QStringLiteral("stall"));

        EXPECT_EQ(runIdentity(*c->request().a.run), at.baseId);
        EXPECT_EQ(runIdentity(*c->request().b.run), at.candId);
        EXPECT_EQ(c->request().b.rank, 1);
        EXPECT_EQ(c->statistic(), analysis::StatField::Max);
        EXPECT_EQ(c->key(), QStringLiteral("layer/w"));
        EXPECT_EQ(c->cursorStep(), 3);
        EXPECT_EQ(c->noteItemCount(), 4u);

        ASSERT_EQ(w.notes()->all().size(), 2u);
        EXPECT_EQ(w.notes()->all()[0].target, at.baseId);
        EXPECT_EQ(w.notes()->all()[0].text, QStringLiteral("warm restart"));
        EXPECT_EQ(w.notes()->all()[1].target, at.traceFile);

        bool filtered = false;
        for (auto* e : dock(w, "KeysDock")->findChildren<QLineEdit*>())
            filtered |= e->text() == QStringLiteral("layer");
        EXPECT_TRUE(filtered);

        // The layouts of the session: the tensor one without the inspector, the timeline one
        // with the notes.
        EXPECT_EQ(shownDocks(w), (QStringList{"DiagnosticsDock", "RunsDock"}));
        tabs->setCurrentWidget(v1);
        EXPECT_FALSE(shownDocks(w).contains(QStringLiteral("InspectorDock")));
        EXPECT_TRUE(shownDocks(w).contains(QStringLiteral("KeysDock")));
        tabs->setCurrentWidget(page);
        EXPECT_EQ(shownDocks(w), QStringList{QStringLiteral("NotesDock")});
    };

    const QString fresh = q(dir.file("b.ini"));
    {
        MainWindow w(fresh);
        w.resize(1600, 1000);
        w.show();
        EXPECT_EQ(restore(w, d.session), QStringList());
        check(w, d);
        EXPECT_EQ(w.sessionPath(), d.session);
        // Listed in the recent sessions of the welcome page.
        auto* recent = w.findChild<QListWidget*>(QStringLiteral("recentSessions"));
        ASSERT_TRUE(recent);
        ASSERT_GE(recent->count(), 1);
        EXPECT_EQ(recent->item(0)->data(Qt::UserRole).toString(), d.session);
    }

    // The folder moved with its session: the relative paths find everything.
    Desk moved = d;
    moved.root = dir.str() + "/moved";
    fs::rename(d.root, moved.root);
    moved.session = q(moved.root + "/desk.xtview");
    moved.baseId = q(moved.root) + d.baseId.mid(int(d.root.size()));
    moved.candId = q(moved.root) + d.candId.mid(int(d.root.size()));
    moved.traceFile = q(moved.root + "/trace.json");
    {
        MainWindow w(fresh);
        w.resize(1600, 1000);
        w.show();
        EXPECT_EQ(restore(w, moved.session), QStringList());
        check(w, moved);
    }

    // A file gone: the rest opens, and the user is told what is missing.
    fs::remove(moved.root + "/trace.json");
    {
        MainWindow w(fresh);
        w.resize(1600, 1000);
        w.show();
        const QStringList problems = restore(w, moved.session);
        ASSERT_EQ(problems.size(), 1) << problems.join(QLatin1Char('\n')).toStdString();
        EXPECT_TRUE(problems[0].contains(QStringLiteral("trace.json")));
        EXPECT_EQ(centralTabs(w)->count(), 3);
        EXPECT_EQ(diagnosticsWithCode(w, "session-incomplete"), 1);
        EXPECT_TRUE(w.findChild<QMessageBox*>(QStringLiteral("sessionProblems")));
    }

    // Not a session: an error, and nothing is closed.
    const QString junk = q(dir.file("junk.xtview"));
    std::ofstream(junk.toStdString()) << "{\"format\": \"something else\"}";
    MainWindow w(fresh);
    w.openPaths({q(moved.root + "/base")});
    ASSERT_TRUE(waitIdle(w));
    EXPECT_FALSE(w.openSession(junk));
    EXPECT_EQ(w.runs().size(), 1u);
    EXPECT_EQ(diagnosticsWithCode(w, "session-unreadable"), 1);
}

// ---- 7. the welcome page ----

TEST(WelcomePage, OffersRunsTimelinesAndSessionsAndWritesTheSampleTimeline) {
    app();
    TempDir dir;
    const QByteArray oldCache = qgetenv("XDG_CACHE_HOME");
    qputenv("XDG_CACHE_HOME", QByteArray::fromStdString(dir.str() + "/cache"));
    // The demo run is there already (the app writes it with xtrace record-demo).
    writeRun(MainWindow::demoDirectory().toStdString());
    {
        MainWindow w(q(dir.file("settings.ini")));
        w.resize(1600, 1000);
        w.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
        auto* welcome = w.findChild<QWidget*>(QStringLiteral("WelcomePage"));
        ASSERT_TRUE(welcome && welcome->isVisible());
        QStringList text;
        for (auto* l : welcome->findChildren<QLabel*>())
            text << l->text();
        EXPECT_TRUE(text.join(QLatin1Char(' ')).contains(QStringLiteral("timelines")));
        for (const char* name : {"openDemo", "openSampleTimeline", "openFiles", "openDirectory",
                                 "openTimeline", "openSession"}) {
            auto* b = welcome->findChild<QPushButton*>(QLatin1String(name));
            ASSERT_TRUE(b) << name;
            EXPECT_TRUE(b->isVisible()) << name;
        }
        EXPECT_TRUE(welcome->findChild<QListWidget*>(QStringLiteral("recentFiles")));
        EXPECT_TRUE(welcome->findChild<QListWidget*>(QStringLiteral("recentSessions")));
        saveShot(w, "welcome.png");

        QTest::mouseClick(welcome->findChild<QPushButton*>(QStringLiteral("openSampleTimeline")),
                          Qt::LeftButton);
        ASSERT_TRUE(QTest::qWaitFor([&] { return w.currentTimelinePage() != nullptr; }, 30000));
        ASSERT_TRUE(waitIdle(w));
        TimelinePage* page = w.currentTimelinePage();
        ASSERT_EQ(page->view()->layers().size(), 1u) << page->lastError().toStdString();
        EXPECT_EQ(page->view()->layers()[0].store->sliceCount(), 18u) << "2 ranks x 9 steps";
        EXPECT_TRUE(QFileInfo::exists(MainWindow::sampleTimelinePath()));
        EXPECT_EQ(w.layoutKind(), MainWindow::LayoutKind::Timeline);
    }
    // Listed among the recent files of the welcome page.
    MainWindow again(q(dir.file("settings.ini")));
    auto* recent = again.findChild<QListWidget*>(QStringLiteral("recentFiles"));
    ASSERT_TRUE(recent && recent->count() >= 1);
    EXPECT_EQ(recent->item(0)->data(Qt::UserRole).toStringList(),
              QStringList{MainWindow::sampleTimelinePath()});
    if (oldCache.isNull())
        qunsetenv("XDG_CACHE_HOME");
    else
        qputenv("XDG_CACHE_HOME", oldCache);
}

// ---- 8. Fit all, hdfs runs ----

TEST(FitAll, FitsTheDataNotTheTraceMarkersAfterIt) {
    app();
    TempDir dir;
    auto layer = loadTimelineLayer(writeTrace(dir.file("trace.json")));
    ASSERT_TRUE(layer.isOk()) << layer.status().toString();
    TimelineView view;
    view.resize(1600, 800);
    view.setLayers({std::move(*layer)});
    // The data's extent comes with the layer's cache, built in the background; the first fit
    // (the whole span) is redone once it is known, as the view was not moved meanwhile.
    QTRY_VERIFY_WITH_TIMEOUT(!view.isIndexing(), 10000);
    const auto [lo, hi] = view.dataExtent();
    EXPECT_EQ(lo, kT0);
    EXPECT_EQ(hi, kT0 + 50 * kMs) << "the trailing marker counted as data";
    EXPECT_LE(view.viewStart(), lo);
    EXPECT_GE(view.viewEnd(), hi);
    EXPECT_LE(view.viewEnd() - view.viewStart(), (hi - lo) * 103 / 100);
}

TEST(FitAll, AKinetoTraceFillsTheView) {
    app();
    const std::string path =
        test::chromeCorpus("kineto/samples__resnet50_num_workers_0__worker0.1623143566756.pt."
                           "trace.json.gz");
    if (!fs::exists(path)) GTEST_SKIP() << "no shared corpus at " << path;
    MainWindow w(QString::fromStdString(TempDir().file("settings.ini")));
    w.resize(1600, 1000);
    w.show();
    TimelinePage* page = w.openTimelineFiles({q(path)});
    ASSERT_TRUE(waitIdle(w));
    TimelineView* view = page->view();
    ASSERT_EQ(view->layers().size(), 1u);
    view->fitAll();
    const auto& s = *view->layers()[0].store;
    std::int64_t lastSliceEnd = 0;
    for (std::uint32_t i = 0; i < s.sliceCount(); ++i)
        lastSliceEnd = std::max(lastSliceEnd, s.sliceEnd(i));
    // The last slice ends near the right edge, not a third of the way across.
    const double x = view->axis().toPx(lastSliceEnd + view->layers()[0].offsetNs);
    EXPECT_GT(x, 0.9 * view->axis().width());
    EXPECT_LE(x, view->axis().width());
    saveShot(w, "kineto-fit.png");
}

// hdfs:// runs: by their URL in the Runs dock, the meta summary, the Keys dock, tab tooltips,
// the compare dialog and the step timeline, never by the path of their local mirror.
TEST(HdfsRuns, AreShownByTheirUrl) {
    app();
    if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
    TempDir remote, cache, dir;
    writeRun(remote.str() + "/exp", 2, 6);
    test::WebHdfsTestServer server(remote.str());
    ASSERT_GT(server.port(), 0) << "the WebHDFS test server did not start";
    ::setenv("XT_HDFS_CACHE_DIR", cache.str().c_str(), 1);
    const QString url = q(server.url("/exp"));
    MainWindow w(q(dir.file("settings.ini")));
    w.resize(1600, 1000);
    w.show();
    w.openPaths({url});
    ASSERT_TRUE(waitIdle(w));
    ::unsetenv("XT_HDFS_CACHE_DIR");
    ASSERT_EQ(w.runs().size(), 1u);
    const RunSnapshot run = w.runs().front();
    const QString identity = url + QStringLiteral("/train.trace");
    EXPECT_EQ(runIdentity(*run), identity);
    const QString mirror = q(cache.str());
    ASSERT_TRUE(q(run->reader->files().directory).startsWith(mirror))
        << "not read through the mirror";
    EXPECT_EQ(q(run->label()), identity);

    EXPECT_TRUE(w.runModel()
                    ->index(0, 0)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .startsWith(identity.left(identity.lastIndexOf(QLatin1Char('/')))));
    EXPECT_EQ(dock(w, "KeysDock")->toolTip(), identity);
    QTabWidget* tabs = centralTabs(w);
    ASSERT_TRUE(tabs && tabs->count() == 1);
    EXPECT_TRUE(tabs->tabToolTip(0).contains(identity));
    EXPECT_FALSE(tabs->tabToolTip(0).contains(mirror));
    bool metaShowsUrl = false;
    for (auto* l : dock(w, "MetaDock")->findChildren<QLabel*>()) {
        metaShowsUrl |= l->text().contains(identity);
        EXPECT_FALSE(l->text().contains(mirror)) << l->text().toStdString();
    }
    EXPECT_TRUE(metaShowsUrl);
    w.showStepTimeline();
    ASSERT_TRUE(waitIdle(w));
    ASSERT_TRUE(w.currentTimelinePage());
    ASSERT_EQ(w.currentTimelinePage()->view()->layers().size(), 1u);
    EXPECT_TRUE(w.currentTimelinePage()->view()->layers()[0].title.startsWith(identity));
}

// ---- screenshots of the new views ----

TEST(Screenshots, ACompareTabAndATimelineWithCursorsAndANote) {
    app();
    TempDir dir;
    writeRun(dir.str() + "/base");
    writeRun(dir.str() + "/cand", 2, 10, 0.25f);
    MainWindow w(q(dir.file("settings.ini")));
    w.resize(1600, 1000);
    w.show();
    w.openPaths({q(dir.str() + "/base"), q(dir.str() + "/cand")});
    ASSERT_TRUE(waitIdle(w));
    const auto runs = w.runs();
    CompareView* c = w.openCompare({{runs[0], 0, {}}, {runs[1], 0, {}}});
    ASSERT_TRUE(waitIdle(w));
    c->showKey(QStringLiteral("layer/w"));
    Note n;
    n.target = runIdentity(*runs[0]);
    n.kind = Note::Kind::Step;
    n.begin = n.end = 6;
    n.text = QStringLiteral("lr drop");
    w.notes()->add(n);
    ASSERT_TRUE(waitIdle(w));
    QTest::qWait(100);
    saveShot(w, "compare.png");
    // The note's line is drawn over both step panels (under the curves, over the background).
    EXPECT_GT(pixelsNear(c->plot()->grab().toImage(), n.colour, 20), 150);
    // Nothing of the compare plot is clipped: its axes fit in the widget.
    QCustomPlot* plot = c->plot();
    plot->replot();
    // The legend is not over the curves; the delta axis' labels read differently although
    // B - A is 0.25 give or take a float's rounding.
    QCPAxisRect* curves = c->xAxis(CompareView::Panel::Curves)->axisRect();
    EXPECT_FALSE(plot->legend->outerRect().intersects(curves->rect()));
    const QVector<QString> labels =
        c->xAxis(CompareView::Panel::Delta)->axisRect()->axis(QCPAxis::atLeft)->tickVectorLabels();
    ASSERT_GE(labels.size(), 2);
    for (int i = 1; i < labels.size(); ++i)
        EXPECT_NE(labels[i], labels[i - 1]);
    for (auto* rect : plot->axisRects())
        EXPECT_TRUE(plot->rect().adjusted(0, 0, 1, 1).contains(rect->outerRect()))
            << "an axis rect is cut off: " << rect->outerRect().x() << "," << rect->outerRect().y()
            << " " << rect->outerRect().width() << "x" << rect->outerRect().height() << " in "
            << plot->width() << "x" << plot->height();

    const QString trace = q(writeTrace(dir.file("trace.json")));
    TimelinePage* page = w.openTimelineFiles({trace});
    ASSERT_TRUE(waitIdle(w));
    page->view()->setCursorAt(Cursor::A, kT0 + 5 * kMs);
    page->view()->setCursorAt(Cursor::B, kT0 + 32 * kMs);
    Note t;
    t.target = page->identity();
    t.onTimeline = true;
    t.kind = Note::Kind::TimeRange;
    t.begin = kT0 + 12 * kMs;
    t.end = kT0 + 18 * kMs;
    t.text = QStringLiteral("data loader stall");
    w.notes()->add(t);
    QTest::qWait(100);
    saveShot(w, "timeline-cursors.png");
    // The cursors' summary is whole in the toolbar.
    QLabel* summary = page->cursorLabel();
    EXPECT_GE(summary->width(), summary->fontMetrics().horizontalAdvance(summary->text()))
        << summary->text().toStdString();
    const QImage shot = page->view()->grab().toImage();
    EXPECT_GT(pixelsNear(shot, cursorColour(Cursor::A), 10), 50) << "cursor A is not drawn";
    EXPECT_GT(pixelsNear(shot, cursorColour(Cursor::B), 10), 50) << "cursor B is not drawn";
}

} // namespace
} // namespace xt::widgets
