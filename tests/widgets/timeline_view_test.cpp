// Timeline view (its geometry without Qt is tested in tests/widgets/logic): LOD bucketing
// through the view, and offscreen GUI tests over corpus traces: click selection with the
// details panel, the background search against a brute-force count (newest wins, Esc cancels),
// range drag, W/S/A/D/0/F keys, a rendered page, a flow arrow back in time (and the setting
// that drops it), and opening files through MainWindow.
#include "core/open/trace_kind.h"
#include "core/xdl/file_series_writer.h"
#include "temp_dir.h"
#include "widgets/main_window.h"
#include "widgets/slice_details.h"
#include "widgets/timeline_document.h"
#include "widgets/timeline_page.h"
#include "widgets/timeline_view.h"

#include "offscreen_app.h"
#include "shared_corpus.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QSet>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QTreeWidget>
#include <gtest/gtest.h>

namespace xt::widgets {
namespace {

using timeline::kNoIndex;
using timeline::LodItem;
using view::formatDuration;
using view::RowKind;
using xt::test::TempDir;

QApplication& app() {
    return ::xt::test::offscreenApp();
}

std::string corpus(const char* rel) {
    return xt::test::chromeCorpus(rel);
}

TimelineLayer load(const char* rel) {
    auto r = loadTimelineLayer(corpus(rel));
    EXPECT_TRUE(r.isOk()) << r.status().toString();
    return r.isOk() ? std::move(r.value()) : TimelineLayer{};
}

// ---- the view ----

TEST(TimelineView, LodBucketsThroughTheLayoutCoverEverySlice) {
    XT_REQUIRE_SHARED_CORPUS();
    app();
    auto layer = load("catapult/x_event_trace.json");
    ASSERT_TRUE(layer.store);
    TimelineView v;
    v.resize(1200, 800);
    v.setLayers({layer});
    const auto& s = *layer.store;
    int checked = 0;
    for (const auto& row : v.layout().scrolled) {
        if (row.kind != RowKind::Track) continue;
        const auto items = v.visibleItems(0, row.index);
        const auto& t = s.tracks()[row.index];
        std::uint64_t represented = 0;
        for (const auto& it : items) {
            represented += it.count;
            EXPECT_LE(it.depth, t.maxDepth);
            if (it.folded()) EXPECT_GE(it.count, 2u);
        }
        // Fit all: every slice of the track is drawn alone or inside a folded block.
        EXPECT_EQ(represented, t.sliceEnd - t.sliceBegin);
        // At most one item per fold width per row (plus wide slices).
        EXPECT_LE(items.size(), (t.maxDepth + 1) * (v.axis().width() / TimelineView::kMinPx + 2));
        ++checked;
    }
    EXPECT_GT(checked, 2);
    // Zoomed in far, no folding is left: items are single slices inside the window.
    const auto& first = s.tracks()[v.layout().scrolled[1].index];
    const std::uint32_t sl = first.sliceBegin;
    v.setViewWindow(s.sliceStart()[sl], s.sliceStart()[sl] + 2000);
    for (const auto& it : v.visibleItems(0, v.layout().scrolled[1].index))
        EXPECT_LT(it.start, v.viewEnd());
}

TEST(TimelineView, ClickSelectsTheSliceAndTheDetailsShowIt) {
    XT_REQUIRE_SHARED_CORPUS();
    app();
    TimelinePage page;
    page.resize(1400, 900);
    page.show();
    page.loadFile(
        QString::fromStdString(corpus("tf-timeline/tensorflow_profiling__GPU__timeline_01.json")));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !page.isBusy(); }, 30000));
    ASSERT_EQ(page.view()->layers().size(), 1u);
    TimelineView* v = page.view();
    const auto& s = *v->layers()[0].store;
    // The longest slice: its centre is drawn on its own at any zoom.
    quint32 best = 0;
    for (quint32 i = 0; i < s.sliceCount(); ++i)
        if (s.sliceDuration()[i] > s.sliceDuration()[best]) best = i;
    const auto pos = v->slicePosition(0, best);
    ASSERT_TRUE(pos.has_value());
    QSignalSpy spy(v, &TimelineView::sliceSelected);
    QTest::mouseClick(v, Qt::LeftButton, {}, pos->toPoint());
    ASSERT_EQ(spy.count(), 1);
    EXPECT_EQ(v->selectedSlice(), best);
    EXPECT_EQ(page.details()->field("name"),
              QString::fromStdString(std::string(s.str(s.sliceName()[best]))));
    EXPECT_EQ(page.details()->field("duration"),
              QString::fromStdString(formatDuration(s.sliceDuration()[best])));
    std::uint32_t children = 0;
    const std::int64_t self = SliceDetails::selfTime(s, best, &children);
    EXPECT_EQ(page.details()->field("self"), QString::fromStdString(formatDuration(self)));
    EXPECT_EQ(page.details()->field("children"), QString::number(children));
    EXPECT_EQ(page.details()->argsTable()->rowCount(), int(s.decodeArgs(s.sliceArgs(best)).size()));
    // Clicking empty space clears the selection and the panel.
    QTest::mouseClick(v, Qt::LeftButton, {}, QPoint(v->width() - 30, v->height() - 5));
    EXPECT_EQ(v->selectedSlice(), kNoIndex);
    EXPECT_EQ(page.details()->field("name"), QString());
}

TEST(TimelineView, SearchCountsMatchTheStoreAndEnterSteps) {
    XT_REQUIRE_SHARED_CORPUS();
    app();
    TimelinePage page;
    page.resize(1400, 900);
    page.show();
    page.loadFile(QString::fromStdString(
        corpus("kineto/samples__resnet50_num_workers_0__worker0.1623143566756.pt.trace.json.gz")));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !page.isBusy(); }, 60000));
    ASSERT_EQ(page.view()->layers().size(), 1u);
    const auto& s = *page.view()->layers()[0].store;
    for (const char* text : {"ATEN::conv", "cudnn", "no-such-op-here"}) {
        int brute = 0;
        for (std::size_t i = 0; i < s.sliceCount(); ++i)
            if (QString::fromStdString(std::string(s.str(s.sliceName()[i])))
                    .contains(QLatin1String(text), Qt::CaseInsensitive))
                ++brute;
        page.searchBox()->setText(QString::fromLatin1(text));
        ASSERT_TRUE(QTest::qWaitFor([&] { return !page.isSearching(); }, 30000));
        EXPECT_EQ(page.view()->searchHits().size(), brute) << text;
        if (std::string(text) == "ATEN::conv") EXPECT_GT(brute, 100);
    }
    page.searchBox()->setText(QStringLiteral("aten::conv2d"));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !page.isSearching(); }, 30000));
    const auto hits = page.view()->searchHits();
    ASSERT_GE(hits.size(), 2);
    page.searchBox()->setFocus();
    QTest::keyClick(page.searchBox(), Qt::Key_Return);
    EXPECT_EQ(page.view()->currentHit(), 0);
    EXPECT_EQ(page.view()->selectedSlice(), hits[0].slice);
    QTest::keyClick(page.searchBox(), Qt::Key_Return);
    EXPECT_EQ(page.view()->selectedSlice(), hits[1].slice);
    QTest::keyClick(page.searchBox(), Qt::Key_Return, Qt::ShiftModifier);
    EXPECT_EQ(page.view()->selectedSlice(), hits[0].slice);
    // The selected hit is on screen.
    EXPECT_LE(page.view()->viewStart(), s.sliceStart()[hits[0].slice]);
    EXPECT_GE(page.view()->viewEnd(), s.sliceEnd(hits[0].slice));
    // Highlighting a name keeps the hits.
    page.view()->highlightName(0, s.sliceName()[hits[0].slice]);
    EXPECT_EQ(page.view()->searchHits().size(), hits.size());
}

TEST(TimelineView, SearchRunsInTheBackgroundNewestWinsAndEscCancels) {
    XT_REQUIRE_SHARED_CORPUS();
    app();
    TimelinePage page;
    page.resize(1400, 900);
    page.show();
    page.loadFile(QString::fromStdString(
        corpus("kineto/samples__resnet50_num_workers_0__worker0.1623143566756.pt.trace.json.gz")));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !page.isBusy(); }, 60000));
    const auto& s = *page.view()->layers()[0].store;
    auto* status = page.findChild<QLabel*>(QStringLiteral("searchStatus"));
    ASSERT_TRUE(status);
    // Typing starts a search per edit; each cancels the one before, whose hits never arrive.
    QSignalSpy states(page.view(), &TimelineView::searchStateChanged);
    page.searchBox()->setText(QStringLiteral("a"));
    EXPECT_TRUE(page.isSearching());
    EXPECT_TRUE(status->text().startsWith(QStringLiteral("searching")));
    EXPECT_TRUE(page.view()->searchHits().isEmpty());
    page.searchBox()->setText(QStringLiteral("cudnn"));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !page.isSearching(); }, 30000));
    int brute = 0;
    for (std::uint32_t i = 0; i < s.sliceCount(); ++i)
        brute += QString::fromUtf8(s.str(s.sliceName()[i]))
                     .contains(QLatin1String("cudnn"), Qt::CaseInsensitive);
    ASSERT_GT(brute, 0);
    EXPECT_EQ(page.view()->searchHits().size(), brute);
    EXPECT_TRUE(page.view()->searchComplete());
    EXPECT_GE(states.count(), 3);
    // Hits are ordered by start.
    const auto hits = page.view()->searchHits();
    for (qsizetype i = 1; i < hits.size(); ++i)
        EXPECT_LE(s.sliceStart()[hits[i - 1].slice], s.sliceStart()[hits[i].slice]);
    page.searchBox()->setFocus();
    QTest::keyClick(page.searchBox(), Qt::Key_Return);
    QTest::qWait(50);
    page.grab().save(QStringLiteral("timeline_search.png"));
    // Esc in the search box cancels a running search: no hits, "cancelled".
    page.searchBox()->setText(QStringLiteral("aten"));
    ASSERT_TRUE(page.isSearching());
    page.searchBox()->setFocus();
    QTest::keyClick(page.searchBox(), Qt::Key_Escape);
    EXPECT_FALSE(page.isSearching());
    EXPECT_FALSE(page.view()->searchComplete());
    EXPECT_TRUE(page.view()->searchHits().isEmpty());
    EXPECT_EQ(status->text(), QStringLiteral("cancelled"));
    QTest::qWait(200); // the cancelled job's result, if it finished anyway, is dropped
    EXPECT_TRUE(page.view()->searchHits().isEmpty());
    // Clearing the box clears the hits at once.
    page.searchBox()->setText(QStringLiteral("cudnn"));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !page.isSearching(); }, 30000));
    page.searchBox()->clear();
    EXPECT_FALSE(page.isSearching());
    EXPECT_TRUE(page.view()->searchHits().isEmpty());
    EXPECT_TRUE(status->text().isEmpty());
}

TEST(TimelineView, ShiftDragSelectsTheRangeAskedFor) {
    XT_REQUIRE_SHARED_CORPUS();
    app();
    TimelineView v;
    v.resize(1200, 700);
    v.show();
    v.setLayers({load("catapult/x_event_trace.json")});
    QSignalSpy spy(&v, &TimelineView::rangeSelected);
    const int y = v.timeArea().top() + 40;
    const int xa = TimelineView::kLabelWidth + 100, xb = TimelineView::kLabelWidth + 700;
    const std::int64_t ta = v.axis().toTime(100), tb = v.axis().toTime(700);
    auto send = [&](QEvent::Type type, int x, Qt::MouseButtons buttons) {
        QMouseEvent e(type, QPointF(x, y), v.mapToGlobal(QPointF(x, y)), Qt::LeftButton, buttons,
                      Qt::ShiftModifier);
        QApplication::sendEvent(&v, &e);
    };
    send(QEvent::MouseButtonPress, xa, Qt::LeftButton);
    send(QEvent::MouseMove, (xa + xb) / 2, Qt::LeftButton);
    send(QEvent::MouseMove, xb, Qt::LeftButton);
    send(QEvent::MouseButtonRelease, xb, Qt::NoButton);
    ASSERT_EQ(spy.count(), 1);
    EXPECT_EQ(spy[0][0].toLongLong(), ta);
    EXPECT_EQ(spy[0][1].toLongLong(), tb);
    ASSERT_TRUE(v.selectedRange());
    EXPECT_EQ(v.selectedRange()->first, ta);
    // F fits the range; Esc clears it.
    QTest::keyClick(&v, Qt::Key_F);
    EXPECT_EQ(v.viewStart(), ta);
    EXPECT_EQ(v.viewEnd(), tb);
    QTest::keyClick(&v, Qt::Key_Escape);
    EXPECT_FALSE(v.selectedRange());
}

TEST(TimelineView, KeysZoomPanAndFit) {
    XT_REQUIRE_SHARED_CORPUS();
    app();
    TimelineView v;
    v.resize(1200, 700);
    v.show();
    v.setLayers({load("catapult/x_event_trace.json")});
    QSignalSpy windows(&v, &TimelineView::viewWindowChanged);
    const std::int64_t full = v.viewEnd() - v.viewStart();
    QTest::keyClick(&v, Qt::Key_W);
    EXPECT_NEAR(double(v.viewEnd() - v.viewStart()), full / 1.25, 2);
    QTest::keyClick(&v, Qt::Key_W);
    const std::int64_t d = v.viewEnd() - v.viewStart();
    EXPECT_NEAR(double(d), full / 1.5625, 2);
    const std::int64_t t0 = v.viewStart();
    QTest::keyClick(&v, Qt::Key_D);
    EXPECT_NEAR(double(v.viewStart() - t0), d * 0.1, double(d) / 1000);
    QTest::keyClick(&v, Qt::Key_A);
    EXPECT_NEAR(double(v.viewStart()), double(t0), double(d) / 1000);
    QTest::keyClick(&v, Qt::Key_S);
    EXPECT_NEAR(double(v.viewEnd() - v.viewStart()), d * 1.25, 2);
    QTest::keyClick(&v, Qt::Key_0);
    EXPECT_EQ(v.viewEnd() - v.viewStart(), full);
    EXPECT_GE(windows.count(), 6);
    // F fits a selected slice.
    const auto& s = *v.layers()[0].store;
    quint32 slice = 0;
    for (quint32 i = 0; i < s.sliceCount(); ++i)
        if (s.sliceDuration()[i] > 10'000) {
            slice = i;
            break;
        }
    v.selectSlice(0, slice, false);
    QTest::keyClick(&v, Qt::Key_F);
    EXPECT_LE(v.viewStart(), s.sliceStart()[slice]);
    EXPECT_GE(v.viewEnd(), s.sliceEnd(slice));
    EXPECT_LE(v.viewEnd() - v.viewStart(), s.sliceDuration()[slice] * 13 / 10);
    // Ctrl+wheel zooms at the cursor: the time under it stays.
    const QPointF at(TimelineView::kLabelWidth + 300, v.timeArea().top() + 30);
    const std::int64_t under = v.axis().toTime(300);
    QWheelEvent wheel(at, v.mapToGlobal(at), {}, QPoint(0, 120), Qt::NoButton, Qt::ControlModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(&v, &wheel);
    EXPECT_NEAR(double(v.axis().toTime(300)), double(under), 2);
    EXPECT_LT(v.viewEnd() - v.viewStart(), s.sliceDuration()[slice] * 13 / 10);
}

int distinctColours(const QImage& img, QRect r) {
    QSet<QRgb> colours;
    for (int y = r.top(); y <= r.bottom(); y += 2)
        for (int x = r.left(); x <= r.right(); x += 2)
            colours.insert(img.pixel(x, y));
    return int(colours.size());
}

TEST(TimelineView, RendersAPageWithTracksRulerAndLayers) {
    XT_REQUIRE_SHARED_CORPUS();
    app();
    TimelinePage page;
    page.resize(1400, 900);
    page.show();
    page.loadFile(QString::fromStdString(corpus("tf-timeline/seasonyc__timeline.tf.json")));
    page.loadFile(QString::fromStdString(corpus("catapult/flow.json")));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !page.isBusy(); }, 30000));
    ASSERT_EQ(page.view()->layers().size(), 2u);
    // Align the second layer's start with the first's.
    const auto& a = *page.view()->layers()[0].store;
    const auto& b = *page.view()->layers()[1].store;
    page.view()->setLayerOffset(1, a.beginTime() - b.beginTime());
    page.view()->fitAll();
    QTest::qWait(50);
    const QImage shot = page.grab().toImage().convertToFormat(QImage::Format_RGB32);
    shot.save(QStringLiteral("timeline_page.png"));
    TimelineView* v = page.view();
    const QPoint o = v->mapTo(&page, QPoint(0, 0));
    const QRect tracks = v->timeArea().translated(o).adjusted(0, 0, 0, -1);
    EXPECT_GE(distinctColours(shot, tracks), 8);
    const QRect ruler(o.x() + TimelineView::kLabelWidth, o.y() + TimelineView::kOverviewHeight,
                      int(v->axis().width()), TimelineView::kRulerHeight - 2);
    int dark = 0;
    for (int y = ruler.top(); y <= ruler.bottom(); ++y)
        for (int x = ruler.left(); x <= ruler.right(); ++x)
            dark += qGray(shot.pixel(x, y)) < 100;
    EXPECT_GT(dark, 20); // tick labels
    // Layer headers for two layers.
    int layerRows = 0;
    for (const auto& r : v->layout().scrolled)
        layerRows += r.kind == RowKind::Layer;
    EXPECT_EQ(layerRows, 2);
    // Zoomed to a slice with flows: labels, the outline and the flow arrows are drawn.
    quint32 withFlow = kNoIndex;
    for (const auto& f : a.flows())
        if (f.fromSlice != kNoIndex && f.toSlice != kNoIndex &&
            a.sliceDuration()[f.fromSlice] > 20'000) {
            withFlow = f.fromSlice;
            break;
        }
    ASSERT_NE(withFlow, kNoIndex);
    v->selectSlice(0, withFlow, true);
    v->fitSelection();
    v->zoomBy(1 / 8.0);
    QTest::qWait(20);
    const QImage zoomed = page.grab().toImage().convertToFormat(QImage::Format_RGB32);
    zoomed.save(QStringLiteral("timeline_page_zoomed.png"));
    EXPECT_GE(distinctColours(zoomed, tracks), 8);
    EXPECT_EQ(page.details()->field("name"),
              QString::fromStdString(std::string(a.str(a.sliceName()[withFlow]))));
    EXPECT_GE(page.details()->flowsTree()->topLevelItemCount(), 1);
    // Pinning a track moves it to the pinned area.
    std::uint32_t track = v->layout().scrolled[2].index;
    v->setTrackPinned(0, track, true);
    ASSERT_EQ(v->layout().pinned.size(), 1u);
    EXPECT_EQ(v->layout().pinned[0].index, track);
}

// TF dataflow: the consumer (lane 0) starts at 150 us, before its producer (lane 1) ends at
// 300 us; the arrow goes from the producer's end back to the consumer's start.
std::string writeBackwardsFlow(const TempDir& dir) {
    const std::string path = dir.file("backwards.json");
    QFile f(QString::fromStdString(path));
    EXPECT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(R"([
      {"ph":"X","name":"consumer","pid":1,"tid":0,"ts":150,"dur":100},
      {"ph":"X","name":"producer","pid":1,"tid":1,"ts":100,"dur":200},
      {"ph":"s","name":"x","cat":"DataFlow","id":0,"pid":1,"tid":1,"ts":300},
      {"ph":"t","name":"x","cat":"DataFlow","id":0,"pid":1,"tid":0,"ts":150}
    ])");
    return path;
}

TEST(TimelineView, DrawsADataflowArrowBackInTimeUnlessChromeCompatible) {
    app();
    TempDir dir;
    const std::string path = writeBackwardsFlow(dir);
    QImage shots[2];
    for (const bool chrome : {false, true}) {
        TimelinePage page;
        page.resize(900, 400);
        page.show();
        page.setChromeCompatibleFlows(chrome);
        page.loadFile(QString::fromStdString(path));
        ASSERT_TRUE(QTest::qWaitFor([&] { return !page.isBusy(); }, 30000));
        ASSERT_EQ(page.view()->layers().size(), 1u);
        const auto& st = *page.view()->layers()[0].store;
        ASSERT_EQ(st.flows().size(), chrome ? 0u : 1u);
        EXPECT_EQ(st.report().diagnostics.countsByCode().count(chrome ? "flow-without-start"
                                                                      : "backwards-flow"),
                  1u);
        page.view()->fitAll();
        QTest::qWait(20);
        const QRect area = page.view()->timeArea();
        shots[chrome] = page.view()->grab(area).toImage().convertToFormat(QImage::Format_RGB32);
        shots[chrome].save(QString::fromLatin1(chrome ? "timeline_flow_chrome.png"
                                                      : "timeline_flow_backwards.png"));
        if (chrome) continue;
        // Selected, the consumer's incoming arrow is drawn strong (orange) and listed.
        std::uint32_t consumer = 0;
        while (st.str(st.sliceName()[consumer]) != "consumer")
            ++consumer;
        page.view()->selectSlice(0, consumer, false);
        QTest::qWait(20);
        const QImage selected = page.view()->grab(area).toImage();
        selected.save(QStringLiteral("timeline_flow_backwards_selected.png"));
        int strong = 0;
        for (int y = 0; y < selected.height(); ++y)
            for (int x = 0; x < selected.width(); ++x) {
                const QColor c = selected.pixelColor(x, y);
                strong += c.red() > 180 && c.green() < 110 && c.blue() < 80;
            }
        EXPECT_GT(strong, 100);
        EXPECT_EQ(page.details()->flowsTree()->topLevelItemCount(), 1);
    }
    // The arrow's pixels: left of the producer's end, right of the consumer's start.
    ASSERT_EQ(shots[0].size(), shots[1].size());
    int arrow = 0;
    for (int y = 0; y < shots[0].height(); ++y)
        for (int x = 0; x < shots[0].width(); ++x)
            arrow += shots[0].pixel(x, y) != shots[1].pixel(x, y);
    EXPECT_GT(arrow, 100);
}

// ---- files and the main window ----

// What the main window sends to a timeline tab (core/open's detection).
bool isTimelinePath(const QString& path) {
    return open::isTimeline(open::detectTraceKind(path.toStdString()));
}

TEST(TimelineDocument, RoutesFilesByExtensionAndContent) {
    XT_REQUIRE_SHARED_CORPUS();
    EXPECT_TRUE(isTimelinePath(QString::fromStdString(corpus("catapult/flow.json"))));
    EXPECT_TRUE(isTimelinePath(QString::fromStdString(corpus("catapult/simple_trace_gz.gz"))));
    EXPECT_TRUE(isTimelinePath(QString::fromStdString(corpus("catapult/simple_trace_zip.zip"))));
    EXPECT_TRUE(isTimelinePath(QString::fromStdString(
        corpus("bazel/command-88049215-ba46-42a7-99fe-c2d2df449acd.profile.gz"))));
    TempDir dir;
    QFile f(QString::fromStdString(dir.file("notes.json")));
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("hello");
    f.close();
    EXPECT_FALSE(isTimelinePath(f.fileName()));
    EXPECT_FALSE(isTimelinePath(QString::fromStdString(dir.str())));
    auto zip = loadTimelineLayer(corpus("catapult/simple_trace_zip.zip"));
    ASSERT_TRUE(zip.isOk()) << zip.status().toString();
    EXPECT_GT(zip->store->sliceCount(), 5u);
    EXPECT_FALSE(loadTimelineLayer(dir.file("missing.json")).isOk());
}

void writeRun(const std::string& dir, int steps) {
    xdl::WriterOptions o;
    o.outputDir = dir;
    o.rank = 0;
    auto w = xdl::FileSeriesWriter::create(o, {"loss"});
    ASSERT_TRUE(w.isOk()) << w.status().toString();
    xdl::RecordEncoder enc;
    for (std::int64_t g = 0; g < steps; ++g) {
        enc.begin(g, g + 1);
        const float loss = 1.0f / float(g + 1);
        enc.addColumn(xdl::Dtype::Float, {},
                      xdl::Bytes(reinterpret_cast<const std::uint8_t*>(&loss), 4));
        const std::int64_t ts = 1700000000000 + g * 100;
        ASSERT_TRUE(enc.finish(ts).isOk());
        ASSERT_TRUE((*w)->write(enc.framed(), g, g + 1, ts).isOk());
    }
    ASSERT_TRUE((*w)->close().isOk());
}

TEST(MainWindowTimeline, OpensTimelineFilesAndTheStepTimeline) {
    XT_REQUIRE_SHARED_CORPUS();
    app();
    TempDir dir;
    writeRun(dir.str() + "/run", 6);
    MainWindow w(QString::fromStdString(dir.file("settings.ini")));
    w.resize(1400, 900);
    w.show();
    w.openPaths({QString::fromStdString(corpus("hta/trace_compare__base__base.json.gz"))});
    ASSERT_TRUE(QTest::qWaitFor([&] { return w.hasLoaded() && !w.isBusy(); }, 30000));
    TimelinePage* page = w.currentTimelinePage();
    ASSERT_TRUE(page);
    ASSERT_EQ(page->view()->layers().size(), 1u);
    EXPECT_EQ(page->view()->layers()[0].store->sliceCount(), 33u);
    EXPECT_TRUE(w.runs().empty()); // not sent to the XDL loader

    // An XDL run next: its steps go onto the timeline tab as a second layer.
    w.openPaths({QString::fromStdString(dir.str() + "/run")});
    ASSERT_TRUE(QTest::qWaitFor([&] { return w.runs().size() == 1 && !w.isBusy(); }, 30000));
    auto* tabs = qobject_cast<QTabWidget*>(page->parentWidget()->parentWidget());
    ASSERT_TRUE(tabs);
    tabs->setCurrentWidget(page);
    w.showStepTimeline();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !w.isBusy(); }, 30000));
    ASSERT_EQ(page->view()->layers().size(), 2u) << page->lastError().toStdString();
    const auto& steps = *page->view()->layers()[1].store;
    EXPECT_EQ(steps.sliceCount(), 5u);                // 6 records: the first is an instant
    EXPECT_EQ(steps.sliceDuration()[0], 100'000'000); // 100 ms apart
    EXPECT_EQ(steps.instants().size(), 1u);
    const QImage shot = w.grab().toImage();
    EXPECT_EQ(shot.width(), 1400);
    // Aligning the first step with the trace's first slice shifts the step layer.
    const auto& base = *page->view()->layers()[0].store;
    page->view()->alignLayer(1, 0, 0, 0);
    EXPECT_EQ(page->view()->layers()[1].offsetNs, base.sliceStart()[0] - steps.sliceStart()[0]);
    // Both slices now start at the same pixel of the shared axis.
    const std::int64_t o1 = page->view()->layers()[1].offsetNs;
    EXPECT_DOUBLE_EQ(page->view()->axis().toPx(steps.sliceStart()[0] + o1),
                     page->view()->axis().toPx(base.sliceStart()[0]));
    // Esc in the idle timeline tab clears the selection (the window's Esc cancels loading).
    page->view()->selectSlice(1, 0, true);
    ASSERT_EQ(page->view()->selectedSlice(), 0u);
    QTest::keyClick(page->view(), Qt::Key_Escape);
    EXPECT_EQ(page->view()->selectedSlice(), kNoIndex);
    EXPECT_EQ(page->details()->field("name"), QString());
}

TEST(MainWindowTimeline, ChromeCompatibleFlowsIsAKeptViewSetting) {
    app();
    TempDir dir;
    const std::string trace = writeBackwardsFlow(dir);
    const QString settings = QString::fromStdString(dir.file("settings.ini"));
    auto flowsOfNewTab = [&](MainWindow& w) -> std::size_t {
        w.openTimelineFiles({QString::fromStdString(trace)});
        EXPECT_TRUE(QTest::qWaitFor([&] { return !w.isBusy(); }, 30000));
        TimelinePage* page = w.currentTimelinePage();
        if (!page || page->view()->layers().size() != 1) return 99;
        return page->view()->layers()[0].store->flows().size();
    };
    {
        MainWindow w(settings);
        auto* action = w.findChild<QAction*>(QStringLiteral("chromeCompatibleFlows"));
        ASSERT_TRUE(action);
        EXPECT_TRUE(action->isCheckable());
        EXPECT_FALSE(action->isChecked());
        EXPECT_EQ(flowsOfNewTab(w), 1u); // drawn back in time
        action->setChecked(true);
        EXPECT_EQ(flowsOfNewTab(w), 0u); // dropped, as chrome://tracing does
    }
    MainWindow again(settings);
    auto* action = again.findChild<QAction*>(QStringLiteral("chromeCompatibleFlows"));
    ASSERT_TRUE(action);
    EXPECT_TRUE(action->isChecked());
    EXPECT_EQ(flowsOfNewTab(again), 0u);
}

} // namespace
} // namespace xt::widgets
