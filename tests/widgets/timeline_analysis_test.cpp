// The analysis panels of a timeline tab linked to its view: the op summary
// follows the range selected in the view and a double click highlights the op; a step bar
// shows its step; a second profile is aligned at its first step and diffed against the first;
// two steps of one profile are diffed. Checked against the core functions on corpus traces.
#include "core/timeline/op_summary.h"
#include "core/timeline/op_summary_diff.h"
#include "core/timeline/step_breakdown.h"
#include "widgets/op_summary_diff_panel.h"
#include "widgets/op_summary_panel.h"
#include "widgets/step_breakdown_chart.h"
#include "widgets/timeline_analysis.h"
#include "widgets/timeline_page.h"

#include "offscreen_app.h"
#include "shared_corpus.h"

#include <QApplication>
#include <QComboBox>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <gtest/gtest.h>

namespace xt::widgets {
namespace {

QApplication& app() {
    return ::xt::test::offscreenApp();
}

QString corpus(const char* rel) {
    return QString::fromStdString(xt::test::chromeCorpus(rel));
}

const char* kBase = "hta/trace_compare__base__base.json.gz";
const char* kTest = "hta/trace_compare__test__test.json.gz";
const char* kResnet =
    "kineto/samples__resnet50_num_workers_0__worker0.1623143566756.pt.trace.json.gz";

bool waitIdle(TimelinePage& page) {
    return QTest::qWaitFor(
        [&] {
            auto* a = page.analysis();
            return !page.isBusy() && (!a->opSummary() || !a->opSummary()->isBusy()) &&
                   (!a->steps() || !a->steps()->isBusy()) && (!a->diff() || !a->diff()->isBusy());
        },
        60000);
}

QStringList tabTitles(const TimelinePage& page) {
    QStringList t;
    for (int i = 0; i < page.panels()->count(); ++i)
        t << page.panels()->tabText(i);
    return t;
}

TEST(TimelineAnalysis, PanelsFollowTheViewOnOneProfile) {
    XT_REQUIRE_SHARED_CORPUS();
    app();
    TimelinePage page;
    page.resize(1400, 900);
    page.show();
    page.loadFile(corpus(kResnet));
    ASSERT_TRUE(waitIdle(page));
    ASSERT_EQ(page.view()->layers().size(), 1u);
    const auto store = page.view()->layers()[0].store;
    auto* a = page.analysis();
    // One profile with steps: op summary, steps, memory and a step-vs-step diff.
    EXPECT_EQ(tabTitles(page), (QStringList{"Op summary", "Steps", "Memory", "Trace diff"}));

    // Whole trace first, then the range selected in the view.
    const auto whole = timeline::opSummary(*store);
    ASSERT_EQ(a->opSummary()->rows().size(), whole.size());
    const std::int64_t t0 = store->beginTime() + (store->endTime() - store->beginTime()) / 4;
    const std::int64_t t1 = store->beginTime() + (store->endTime() - store->beginTime()) / 2;
    emit page.view()->rangeSelected(t0, t1);
    ASSERT_TRUE(waitIdle(page));
    timeline::OpSummaryOptions o;
    o.t0 = t0;
    o.t1 = t1;
    const auto ranged = timeline::opSummary(*store, o);
    ASSERT_EQ(a->opSummary()->rows().size(), ranged.size());
    std::int64_t sumPanel = 0, sumCore = 0;
    for (const auto& r : a->opSummary()->rows())
        sumPanel += r.totalNs;
    for (const auto& r : ranged)
        sumCore += r.totalNs;
    EXPECT_EQ(sumPanel, sumCore);
    EXPECT_LT(sumCore, [&] {
        std::int64_t s = 0;
        for (const auto& r : whole)
            s += r.totalNs;
        return s;
    }());
    EXPECT_TRUE(a->opSummary()->scopeText().startsWith("Range"))
        << a->opSummary()->scopeText().toStdString();

    // A step bar shows exactly that step.
    const auto steps = timeline::stepBreakdown(*store);
    ASSERT_GE(steps.size(), 2u);
    ASSERT_EQ(a->steps()->steps().size(), steps.size());
    emit a->steps()->stepActivated(steps[1].start, steps[1].end);
    EXPECT_EQ(page.view()->viewStart(), steps[1].start);
    EXPECT_EQ(page.view()->viewEnd(), steps[1].end);

    // The default diff is the first step against the second, markers left out.
    ASSERT_NE(a->diff(), nullptr);
    const auto markers = timeline::stepMarkers(*store);
    const std::string n0(store->str(store->sliceName()[markers[0]]));
    const std::string n1(store->str(store->sliceName()[markers[1]]));
    EXPECT_TRUE(a->diffBaseline()->currentText().endsWith(QString::fromStdString(n0)));
    EXPECT_TRUE(a->diffCandidate()->currentText().endsWith(QString::fromStdString(n1)));
    timeline::OpDiffOptions d;
    d.windowA = *timeline::findStepWindow(*store, n0);
    d.windowB = *timeline::findStepWindow(*store, n1);
    d.excludeNames = {n0, n1};
    const auto core = timeline::diffOpSummaries(*store, *store, d);
    ASSERT_EQ(a->diff()->rows().size(), core.rows.size());
    for (std::size_t i = 0; i < core.rows.size(); ++i) {
        EXPECT_EQ(a->diff()->rows()[i].name, core.rows[i].name);
        EXPECT_EQ(a->diff()->rows()[i].totalDelta(), core.rows[i].totalDelta());
    }

    // A double click in the op summary highlights the op in the view.
    QSignalSpy spy(a->opSummary(), &OpSummaryPanel::nameActivated);
    emit a->opSummary()->nameActivated(store->sliceName()[markers[0]]);
    EXPECT_EQ(spy.count(), 1);
}

TEST(TimelineAnalysis, TwoProfilesAreAlignedAtTheirFirstStepAndDiffed) {
    XT_REQUIRE_SHARED_CORPUS();
    app();
    TimelinePage page;
    page.resize(1400, 900);
    page.show();
    page.loadFile(corpus(kBase));
    page.loadFile(corpus(kTest));
    ASSERT_TRUE(waitIdle(page));
    const auto& layers = page.view()->layers();
    ASSERT_EQ(layers.size(), 2u);
    // Aligned: both first steps start at the same place on the shared axis.
    const auto& a = layers[0];
    const auto& b = layers[1];
    ASSERT_FALSE(a.stepMarkers.empty());
    ASSERT_FALSE(b.stepMarkers.empty());
    EXPECT_EQ(a.store->sliceStart()[a.stepMarkers[0]] + a.offsetNs,
              b.store->sliceStart()[b.stepMarkers[0]] + b.offsetNs);

    // The default diff: the whole of layer 0 against the whole of layer 1, as the core has it.
    auto* analysis = page.analysis();
    ASSERT_NE(analysis->diff(), nullptr);
    EXPECT_EQ(analysis->diffBaseline()->currentText(), a.title);
    EXPECT_EQ(analysis->diffCandidate()->currentText(), b.title);
    const auto core = timeline::diffOpSummaries(*a.store, *b.store);
    ASSERT_EQ(analysis->diff()->rows().size(), core.rows.size());
    ASSERT_FALSE(core.rows.empty());
    EXPECT_EQ(analysis->diff()->rows().front().name, core.rows.front().name);

    // Choosing a step of each side diffs the two step windows.
    const int stepIndexB = analysis->diffCandidate()->findText(
        b.title + ": " +
        QString::fromStdString(std::string(b.store->str(b.store->sliceName()[b.stepMarkers[0]]))));
    ASSERT_GE(stepIndexB, 0);
    analysis->diffCandidate()->setCurrentIndex(stepIndexB);
    analysis->diffBaseline()->setCurrentIndex(1); // layer 0's first step
    ASSERT_TRUE(waitIdle(page));
    timeline::OpDiffOptions d;
    const std::string na(a.store->str(a.store->sliceName()[a.stepMarkers[0]]));
    const std::string nb(b.store->str(b.store->sliceName()[b.stepMarkers[0]]));
    d.windowA = *timeline::findStepWindow(*a.store, na);
    d.windowB = *timeline::findStepWindow(*b.store, nb);
    d.excludeNames = {na, nb};
    const auto steps = timeline::diffOpSummaries(*a.store, *b.store, d);
    ASSERT_EQ(analysis->diff()->rows().size(), steps.rows.size());
    for (std::size_t i = 0; i < steps.rows.size(); ++i)
        EXPECT_EQ(analysis->diff()->rows()[i].totalDelta(), steps.rows[i].totalDelta());
}

} // namespace
} // namespace xt::widgets
