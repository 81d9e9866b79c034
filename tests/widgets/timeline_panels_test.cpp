// The timeline analysis panels, offscreen, on corpus traces: op summary panel rows equal core
// opSummary (whole trace, a step range, by category, in the background), the step chart has one
// stacked bar per step with the bottleneck named and emits a step's window on click, the memory
// panel lists memoryPeaks and the objects alive at a peak, the trace diff panel shows the core
// diff in regression order with coloured deltas; each panel renders to a non-blank image.
#include "core/export/op_summary_csv.h"
#include "core/timeline/chrome_trace_reader.h"
#include "core/timeline/memory_peaks.h"
#include "core/timeline/op_summary.h"
#include "core/timeline/op_summary_diff.h"
#include "core/timeline/step_breakdown.h"
#include "temp_dir.h"
#include "widgets/memory_panel.h"
#include "widgets/op_summary_diff_panel.h"
#include "widgets/op_summary_panel.h"
#include "widgets/step_breakdown_chart.h"
#include "widgets/text_format.h"
#include "widgets/trace_time_format.h"

#include "offscreen_app.h"
#include "shared_corpus.h"
#include <QAbstractItemModelTester>

#include <QApplication>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <fstream>
#include <gtest/gtest.h>
#include <qcustomplot.h>
#include <sstream>

namespace xt::widgets {
namespace {

using timeline::TraceStore;

QApplication& app() {
    return ::xt::test::offscreenApp();
}

std::string corpus(const std::string& rel) {
    return xt::test::chromeCorpus(rel);
}

const char* kResnet =
    "kineto/samples__resnet50_num_workers_0__worker0.1623143566756.pt.trace.json.gz";
const char* kTfMemory = "tf-timeline/seasonyc__timeline.tf.json";
const char* kNoSteps = "catapult/x_event_trace.json";

std::shared_ptr<const TraceStore> load(const std::string& rel) {
    static std::map<std::string, std::shared_ptr<const TraceStore>> cache;
    auto& s = cache[rel];
    if (!s) {
        auto r = timeline::importChromeTrace(corpus(rel));
        EXPECT_TRUE(r.isOk()) << r.status().toString();
        if (!r) return std::make_shared<TraceStore>();
        s = std::make_shared<const TraceStore>(std::move(r.value()));
    }
    return s;
}

// Renders `w`; with XT_PANEL_SHOTS=DIR set also saves it there for a look.
QImage shot(QWidget& w, const char* name) {
    const QImage img = w.grab().toImage();
    if (const QByteArray dir = qgetenv("XT_PANEL_SHOTS"); !dir.isEmpty())
        img.save(QString::fromUtf8(dir) + "/" + name + ".png");
    return img;
}

bool nonBlank(const QImage& img) {
    const QRgb first = img.pixel(0, 0);
    int different = 0;
    for (int y = 0; y < img.height(); y += 3)
        for (int x = 0; x < img.width(); x += 3)
            different += img.pixel(x, y) != first;
    return different > 200;
}

void expectSameStats(const TraceStore& st, const std::vector<timeline::OpStat>& got,
                     const std::vector<timeline::OpStat>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(st.str(got[i].name), st.str(want[i].name)) << i;
        EXPECT_EQ(got[i].cat, want[i].cat) << i;
        EXPECT_EQ(got[i].count, want[i].count) << i;
        EXPECT_EQ(got[i].totalNs, want[i].totalNs) << i;
        EXPECT_EQ(got[i].selfNs, want[i].selfNs) << i;
        EXPECT_EQ(got[i].minNs, want[i].minNs) << i;
        EXPECT_EQ(got[i].maxNs, want[i].maxNs) << i;
    }
}

std::string slurp(const std::string& path) {
    std::stringstream ss;
    ss << std::ifstream(path).rdbuf();
    return ss.str();
}

} // namespace

TEST(TraceTimeFormat, UnitsAndRanges) {
    EXPECT_EQ(formatTraceDuration(0), "0 ns");
    EXPECT_EQ(formatTraceDuration(812), "812 ns");
    EXPECT_EQ(formatTraceDuration(12345), QString::fromUtf8("12.345 \u00b5s"));
    EXPECT_EQ(formatTraceDuration(1234000), "1.234 ms");
    EXPECT_EQ(formatTraceDuration(-3456000000.0), "-3.456 s");
    EXPECT_EQ(formatTraceRange(1'234'000 + 10, 5'678'000 + 10, 10),
              QString::fromUtf8("Range 1.234 ms \u2013 5.678 ms (4.444 ms)"));
    EXPECT_TRUE(looksLikeBytes("GPU_0_bfc GPU_0_bfc", "Allocators"));
    EXPECT_TRUE(looksLikeBytes("Memory usage", ""));
    EXPECT_FALSE(looksLikeBytes("fps", "renderer"));
    EXPECT_EQ(formatCounterValue(80056472, true), "80.1 MB");
    EXPECT_EQ(formatCounterValue(2.5, true), "2.5");
}

TEST(OpSummaryPanel, RowsEqualTheCoreSummaryForTheTraceAndARange) {
    XT_REQUIRE_SHARED_CORPUS();
    app();
    auto st = load(kResnet);
    ASSERT_GT(st->sliceCount(), 10000u);
    OpSummaryPanel panel;
    QAbstractItemModelTester tester(panel.model(),
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSignalSpy ready(&panel, &OpSummaryPanel::summaryReady);
    panel.setStore(st);
    EXPECT_EQ(ready.count(), 1); // small enough to be done at once
    EXPECT_EQ(panel.scopeText(), "Whole trace");
    expectSameStats(*st, panel.rows(), timeline::opSummary(*st));
    // The view shows the largest total first, formatted with a unit.
    const QModelIndex first = panel.proxy()->index(0, OpSummaryModel::TotalColumn);
    EXPECT_EQ(first.data().toString(), formatTraceDuration(double(panel.rows()[0].totalNs)));
    EXPECT_EQ(panel.proxy()->index(0, OpSummaryModel::NameColumn).data().toString().toStdString(),
              st->str(panel.rows()[0].name));

    // A step's window.
    const auto w = timeline::findStepWindow(*st, "ProfilerStep#18");
    ASSERT_TRUE(w);
    panel.setRange(w->t0, w->t1);
    timeline::OpSummaryOptions o;
    o.t0 = w->t0;
    o.t1 = w->t1;
    const auto inStep = timeline::opSummary(*st, o);
    expectSameStats(*st, panel.rows(), inStep);
    EXPECT_LT(panel.rows().size(), timeline::opSummary(*st).size() + 1);
    EXPECT_TRUE(panel.scopeText().startsWith("Range ")) << panel.scopeText().toStdString();
    EXPECT_TRUE(panel.scopeText().endsWith("(" + formatTraceDuration(double(w->t1 - w->t0)) + ")"));

    // By category, in the background (threshold 0): the GUI thread does not compute it.
    panel.setBackgroundThreshold(0);
    panel.setGroupByCategory(true);
    EXPECT_TRUE(panel.isBusy());
    ASSERT_TRUE(QTest::qWaitFor([&] { return !panel.isBusy(); }, 20000));
    o.byCategory = true;
    expectSameStats(*st, panel.rows(), timeline::opSummary(*st, o));
    EXPECT_FALSE(panel.view()->isColumnHidden(OpSummaryModel::CategoryColumn));
    panel.clearRange();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !panel.isBusy(); }, 20000));
    EXPECT_EQ(panel.scopeText(), "Whole trace");
    o.t0 = o.t1 = timeline::kNoTime;
    expectSameStats(*st, panel.rows(), timeline::opSummary(*st, o));

    // Filter, signals, CSV of the rows shown.
    panel.filterEdit()->setText("conv");
    ASSERT_GT(panel.proxy()->rowCount(), 0);
    EXPECT_LT(panel.proxy()->rowCount(), int(panel.rows().size()));
    for (int r = 0; r < panel.proxy()->rowCount(); ++r)
        EXPECT_TRUE(
            panel.proxy()->index(r, 0).data().toString().contains("conv", Qt::CaseInsensitive));
    QSignalSpy activated(&panel, &OpSummaryPanel::nameActivated);
    const QModelIndex cell = panel.proxy()->index(0, OpSummaryModel::CountColumn);
    emit panel.view()->doubleClicked(cell);
    ASSERT_EQ(activated.count(), 1);
    const auto id = activated[0][0].value<quint32>();
    EXPECT_EQ(QString::fromStdString(std::string(st->str(id))),
              panel.proxy()->index(0, 0).data().toString());
    QSignalSpy selected(&panel, &OpSummaryPanel::nameSelected);
    panel.view()->setCurrentIndex(panel.proxy()->index(1, 0));
    ASSERT_EQ(selected.count(), 1);

    xt::test::TempDir dir;
    ASSERT_TRUE(panel.exportCsv(QString::fromStdString(dir.file("ops.csv"))).isOk());
    const std::string csv = slurp(dir.file("ops.csv"));
    EXPECT_EQ(csv.rfind("name,category,count,total_us", 0), 0u);
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), panel.proxy()->rowCount() + 1);

    panel.filterEdit()->clear();
    panel.resize(900, 500);
    EXPECT_TRUE(nonBlank(shot(panel, "op_summary")));
}

TEST(StepBreakdownChart, OneStackedBarPerStepWithItsBottleneck) {
    XT_REQUIRE_SHARED_CORPUS();
    app();
    auto st = load(kResnet);
    const auto want = timeline::stepBreakdown(*st);
    ASSERT_EQ(want.size(), 6u);
    StepBreakdownChart chart;
    chart.resize(1000, 700);
    chart.setStore(st);
    ASSERT_EQ(chart.steps().size(), want.size());
    EXPECT_TRUE(chart.message().isEmpty());
    EXPECT_EQ(chart.plot()->plottableCount(), int(timeline::kStepCategoryCount));
    ASSERT_EQ(chart.table()->rowCount(), int(want.size()));
    for (int i = 0; i < int(want.size()); ++i) {
        const auto& s = want[std::size_t(i)];
        EXPECT_EQ(chart.steps()[std::size_t(i)].name, s.name);
        EXPECT_EQ(chart.steps()[std::size_t(i)].ns, s.ns);
        EXPECT_EQ(chart.table()->item(i, 0)->text().toStdString(), s.name);
        EXPECT_EQ(chart.table()->item(i, 2)->text(),
                  StepBreakdownChart::categoryLabel(s.bottleneck));
        EXPECT_TRUE(chart.barLabel(i).startsWith(StepBreakdownChart::categoryLabel(s.bottleneck)));
        // The stacked bars add up to the step: the top bar's stacked value is the duration.
        double sum = 0;
        for (int c = 0; c < chart.plot()->plottableCount(); ++c) {
            auto* bars = qobject_cast<QCPBars*>(chart.plot()->plottable(c));
            ASSERT_NE(bars, nullptr);
            sum += bars->data()->at(i)->value;
        }
        EXPECT_NEAR(sum, double(s.end - s.start) / 1e6, 1e-9);
    }

    // Clicking the third bar emits its window.
    chart.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&chart));
    chart.plot()->replot();
    QSignalSpy activated(&chart, &StepBreakdownChart::stepActivated);
    QTest::mouseClick(chart.plot(), Qt::LeftButton, {}, chart.barCenter(2));
    ASSERT_EQ(activated.count(), 1);
    EXPECT_EQ(activated[0][0].toLongLong(), want[2].start);
    EXPECT_EQ(activated[0][1].toLongLong(), want[2].end);
    // Far above the bars: nothing.
    QTest::mouseClick(chart.plot(), Qt::LeftButton, {},
                      QPoint(chart.barCenter(2).x(), chart.plot()->axisRect()->top() + 2));
    EXPECT_EQ(activated.count(), 1);
    EXPECT_TRUE(nonBlank(shot(chart, "step_breakdown")));

    // Another prefix without markers, and a trace without any: a message, no bars.
    chart.setMarkerPrefix("NoSuchStep#");
    EXPECT_TRUE(chart.steps().empty());
    EXPECT_TRUE(chart.message().contains("NoSuchStep#"));
    chart.setMarkerPrefix("ProfilerStep#");
    EXPECT_EQ(chart.steps().size(), 6u);
    chart.setStore(load(kNoSteps));
    EXPECT_TRUE(chart.steps().empty());
    EXPECT_TRUE(chart.message().startsWith("No step markers"));

    // In the background.
    chart.setBackgroundThreshold(0);
    chart.setStore(st);
    EXPECT_TRUE(chart.isBusy());
    ASSERT_TRUE(QTest::qWaitFor([&] { return !chart.isBusy(); }, 20000));
    EXPECT_EQ(chart.steps().size(), 6u);
}

TEST(MemoryPanel, PeaksAndTheObjectsAliveAtThem) {
    XT_REQUIRE_SHARED_CORPUS();
    app();
    auto st = load(kTfMemory);
    const auto want = timeline::memoryPeaks(*st);
    ASSERT_GE(want.size(), 2u);
    MemoryPanel panel;
    panel.setStore(st);
    ASSERT_EQ(panel.peaks().size(), want.size());
    ASSERT_EQ(panel.peakTable()->rowCount(), int(want.size()));
    for (int r = 0; r < int(want.size()); ++r) {
        const auto& p = want[std::size_t(r)];
        EXPECT_EQ(panel.peaks()[std::size_t(r)].series, p.series);
        EXPECT_EQ(panel.peaks()[std::size_t(r)].peak, p.peak);
        const auto& cs = st->counters()[p.series];
        EXPECT_EQ(panel.peakTable()->item(r, MemoryPanel::SeriesColumn)->text().toStdString(),
                  cs.name ? std::string(st->str(cs.name)) : "(unnamed)");
        EXPECT_EQ(panel.peakTable()->item(r, MemoryPanel::TimeColumn)->text(),
                  formatTraceDuration(double(p.ts - st->beginTime())));
    }
    // The largest is the GPU allocator, shown in bytes.
    EXPECT_EQ(panel.peakTable()->item(0, MemoryPanel::PeakColumn)->text(),
              formatBytes(std::uint64_t(want[0].peak)));
    EXPECT_EQ(panel.selectedPeak(), 0);
    EXPECT_EQ(panel.objectTable()->rowCount(), int(want[0].liveObjects.size()));
    ASSERT_GT(want[0].liveObjects.size(), 0u);
    const auto& ob = st->objects()[want[0].liveObjects[0]];
    EXPECT_EQ(panel.objectTable()->item(0, MemoryPanel::ObjectNameColumn)->text().toStdString(),
              st->str(ob.name));
    EXPECT_EQ(panel.objectTable()->item(0, MemoryPanel::ObjectIdColumn)->text().toStdString(),
              st->str(ob.id));
    // TF: the GPU allocator's own tensors, largest first, with bytes and producing op, and the
    // sum of all its allocations beside the peak.
    ASSERT_TRUE(want[0].byAllocator);
    EXPECT_EQ(st->str(st->counters()[want[0].series].key), "GPU_0_bfc");
    EXPECT_EQ(panel.peakTable()->item(0, MemoryPanel::AllocatedColumn)->text(),
              formatBytes(std::uint64_t(want[0].allocatedBytes)));
    EXPECT_GT(want[0].allocatedBytes, std::int64_t(want[0].peak));
    EXPECT_EQ(panel.objectTable()->item(0, MemoryPanel::BytesColumn)->text(),
              formatBytes(std::uint64_t(want[0].liveBytes[0])));
    ASSERT_NE(want[0].producers[0], timeline::kNoIndex);
    EXPECT_EQ(panel.objectTable()->item(0, MemoryPanel::OpColumn)->text().toStdString(),
              st->str(st->sliceName()[want[0].producers[0]]));
    for (std::uint32_t o : want[0].liveObjects)
        EXPECT_EQ(timeline::tensorAllocation(*st, st->objects()[o]).allocator, "GPU_0_bfc");
    panel.resize(800, 600);
    EXPECT_TRUE(nonBlank(shot(panel, "memory_allocator")));
    const int last = int(want.size()) - 1;
    panel.selectPeak(last);
    EXPECT_EQ(panel.selectedPeak(), last);
    EXPECT_EQ(panel.objectTable()->rowCount(), int(want[std::size_t(last)].liveObjects.size()));

    QSignalSpy time(&panel, &MemoryPanel::timeActivated);
    emit panel.peakTable()->cellDoubleClicked(0, 0);
    ASSERT_EQ(time.count(), 1);
    EXPECT_EQ(time[0][0].toLongLong(), want[0].ts);
    panel.resize(800, 600);
    EXPECT_TRUE(nonBlank(shot(panel, "memory")));

    panel.setBackgroundThreshold(0);
    panel.setStore(st);
    EXPECT_TRUE(panel.isBusy());
    ASSERT_TRUE(QTest::qWaitFor([&] { return !panel.isBusy(); }, 20000));
    EXPECT_EQ(panel.peaks().size(), want.size());

    panel.setStore(load("catapult/trivial_trace.json"));
    EXPECT_TRUE(panel.peaks().empty());
    EXPECT_TRUE(panel.message().startsWith("No counters"));
}

TEST(OpSummaryDiffPanel, RegressionOrderColoursAndSteps) {
    XT_REQUIRE_SHARED_CORPUS();
    app();
    auto a = load("hta/trace_compare__base__base.json.gz");
    auto b = load("hta/trace_compare__test__test.json.gz");
    const auto want = timeline::diffOpSummaries(*a, *b);
    OpSummaryDiffPanel panel;
    QAbstractItemModelTester tester(panel.model(),
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
    panel.setLabels("base", "test");
    panel.setStores(a, b);
    ASSERT_EQ(panel.rows().size(), want.rows.size());
    ASSERT_EQ(panel.proxy()->rowCount(), int(want.rows.size()));
    for (int r = 0; r < int(want.rows.size()); ++r) {
        const auto& w = want.rows[std::size_t(r)];
        // The view's order is the core's regression order.
        EXPECT_EQ(
            panel.proxy()->index(r, OpSummaryDiffModel::NameColumn).data().toString().toStdString(),
            w.name)
            << r;
        const QModelIndex delta = panel.proxy()->index(r, OpSummaryDiffModel::TotalDeltaColumn);
        const QVariant fg = delta.data(Qt::ForegroundRole);
        if (w.totalDelta() > 0)
            EXPECT_EQ(fg.value<QColor>(), OpSummaryDiffModel::slowerColor());
        else if (w.totalDelta() < 0)
            EXPECT_EQ(fg.value<QColor>(), OpSummaryDiffModel::fasterColor());
        else
            EXPECT_FALSE(fg.isValid());
        const QString status =
            panel.proxy()->index(r, OpSummaryDiffModel::StatusColumn).data().toString();
        EXPECT_EQ(status, w.presence == timeline::OpPresence::OnlyCandidate  ? "only in B"
                          : w.presence == timeline::OpPresence::OnlyBaseline ? "only in A"
                                                                             : "");
    }
    EXPECT_GT(want.onlyB, 0u);
    EXPECT_TRUE(panel.summaryText().contains(QStringLiteral("%1 only in B").arg(want.onlyB)));

    xt::test::TempDir dir;
    ASSERT_TRUE(panel.exportCsv(QString::fromStdString(dir.file("diff.csv"))).isOk());
    EXPECT_EQ(slurp(dir.file("diff.csv")), opDiffCsv(want, false));

    // Two steps of one trace, in the background; the step markers are left out.
    auto st = load(kResnet);
    panel.setBackgroundThreshold(0);
    ASSERT_FALSE(panel.setSteps(st, "ProfilerStep#17", st, "ProfilerStep#99"));
    ASSERT_TRUE(panel.setSteps(st, "ProfilerStep#17", st, "ProfilerStep#18"));
    EXPECT_TRUE(panel.isBusy());
    ASSERT_TRUE(QTest::qWaitFor([&] { return !panel.isBusy(); }, 20000));
    timeline::OpDiffOptions o;
    o.windowA = *timeline::findStepWindow(*st, "ProfilerStep#17");
    o.windowB = *timeline::findStepWindow(*st, "ProfilerStep#18");
    o.excludeNames = {"ProfilerStep#17", "ProfilerStep#18"};
    const auto steps = timeline::diffOpSummaries(*st, *st, o);
    ASSERT_EQ(panel.rows().size(), steps.rows.size());
    for (std::size_t r = 0; r < steps.rows.size(); ++r) {
        EXPECT_EQ(panel.rows()[r].name, steps.rows[r].name);
        EXPECT_EQ(panel.rows()[r].totalDelta(), steps.rows[r].totalDelta());
    }
    EXPECT_EQ(panel.proxy()->index(0, 0).data().toString().toStdString(), steps.rows[0].name);
    QSignalSpy activated(&panel, &OpSummaryDiffPanel::nameActivated);
    emit panel.view()->doubleClicked(panel.proxy()->index(0, 3));
    ASSERT_EQ(activated.count(), 1);
    EXPECT_EQ(activated[0][0].toString().toStdString(), steps.rows[0].name);
    panel.resize(1000, 500);
    EXPECT_TRUE(nonBlank(shot(panel, "trace_diff")));
}

} // namespace xt::widgets
