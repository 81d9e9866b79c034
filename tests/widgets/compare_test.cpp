// Comparison and export in the GUI, offscreen, over runs written with the recorder: the key
// divergence table of a compare tab (exact rows, ranking, tolerance), row selection moving the
// cursors, relative alignment, synchronised x ranges, rendering and image export; the HDF5 export
// dialog re-read through the HDF5 C API (and cancelled without leaving a file); the statistics CSV.
#include "core/export/stats_csv.h"
#include "core/recorder/recorder.h"
#include "temp_dir.h"
#include "widgets/compare_dialog.h"
#include "widgets/compare_view.h"
#include "widgets/export_dialog.h"
#include "widgets/job_tracker.h"
#include "widgets/main_window.h"

#include "offscreen_app.h"

#include <QApplication>
#include <QFile>
#include <QSemaphore>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>
#include <QThreadPool>
#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <limits>

namespace xt::widgets {
namespace {
using view::XYSeries;
using xt::test::TempDir;
namespace fs = std::filesystem;
using analysis::StepAlign;
using Panel = CompareView::Panel;

QApplication& app() {
    return ::xt::test::offscreenApp();
}

constexpr int kSteps = 60;
constexpr std::int64_t kDivergeStep = 37, kNanStep = 50, kTinyStep = 20;

// Values of step index s (0..59) on rank r.
float wValue(int r, int s, int i) {
    return 1.0f + 0.01f * float(s) + 0.1f * float(i) + float(r);
}
float bValue(int s, int i) {
    return 0.5f * float(i) - 0.01f * float(s);
}
float tValue(int s, int i) {
    return 2.0f + 0.1f * float(i) + 0.001f * float(s);
}

enum class Variant { A, B };

// One run written with the recorder, gsteps firstGstep .. firstGstep + 59:
//   w    float32 [8]  identical in A and B until step 37, where B's w[0] is 1e-3 larger
//   b    float32 [4]  B has a NaN in b[2] at step 50 only
//   t    float32 [4]  B's t[1] is one float ulp larger at step 20 (within tolerance)
//   same int32 [3]    identical
//   only_a / only_b   float32 [2], in A / in B only
void recordRun(const std::string& dir, Variant v, std::int64_t firstGstep = 0, int ranks = 1) {
    for (int rank = 0; rank < ranks; ++rank) {
        recorder::RecorderConfig c;
        c.outputDir = dir;
        c.rank = rank;
        auto t = std::make_shared<std::int64_t>(1700000000000);
        c.clock = [t] { return *t += 100; };
        auto rec = recorder::Recorder::create(std::move(c));
        ASSERT_TRUE(rec.isOk()) << rec.status().toString();
        auto& r = **rec;
        for (int s = 0; s < kSteps; ++s) {
            std::vector<float> w(8), b(4), tt(4), side{float(s), -float(s)};
            std::int32_t same[3] = {s, 1, 2};
            for (int i = 0; i < 8; ++i)
                w[std::size_t(i)] = wValue(rank, s, i);
            for (int i = 0; i < 4; ++i) {
                b[std::size_t(i)] = bValue(s, i);
                tt[std::size_t(i)] = tValue(s, i);
            }
            if (v == Variant::B) {
                if (s >= kDivergeStep) w[0] += 1e-3f;
                if (s == kNanStep) b[2] = std::numeric_limits<float>::quiet_NaN();
                if (s == kTinyStep) tt[1] = std::nextafter(tt[1], 100.0f);
            }
            const std::int64_t s8[] = {8}, s4[] = {4}, s3[] = {3}, s2[] = {2};
            ASSERT_TRUE(r.trace<float>("w", w.data(), s8).isOk());
            ASSERT_TRUE(r.trace<float>("b", b.data(), s4).isOk());
            ASSERT_TRUE(r.trace<float>("t", tt.data(), s4).isOk());
            ASSERT_TRUE(r.trace<std::int32_t>("same", same, s3).isOk());
            ASSERT_TRUE(
                r.trace<float>(v == Variant::A ? "only_a" : "only_b", side.data(), s2).isOk());
            ASSERT_TRUE(r.commitStep(firstGstep + s).isOk());
        }
        ASSERT_TRUE(r.close().isOk());
    }
}

RunSnapshot loadOne(const std::string& dir) {
    LoadResult r = loadRuns({dir}, {});
    EXPECT_TRUE(r.status.isOk()) << r.status.toString();
    EXPECT_EQ(r.runs.size(), 1u);
    return r.runs.empty() ? nullptr : r.runs.front();
}

bool nonBlank(const QImage& img) {
    const QRgb first = img.pixel(0, 0);
    int different = 0;
    for (int y = 0; y < img.height(); y += 3)
        for (int x = 0; x < img.width(); x += 3)
            different += img.pixel(x, y) != first;
    return different > 200;
}

bool waitIdle(const CompareView& v) {
    return QTest::qWaitFor([&] { return !v.isBusy(); }, 30000);
}

// Selects the table row of `key` as a user click would.
void clickRow(CompareView& v, const QString& key) {
    const int row = v.model()->rowOfKey(key);
    ASSERT_GE(row, 0) << key.toStdString();
    auto* proxy = qobject_cast<QSortFilterProxyModel*>(v.keyTable()->model());
    ASSERT_TRUE(proxy);
    v.keyTable()->setCurrentIndex(proxy->mapFromSource(v.model()->index(row, 0)));
}

struct Runs {
    TempDir dir;
    RunSnapshot a, b;
    Runs() {
        recordRun(dir.file("a"), Variant::A);
        recordRun(dir.file("b"), Variant::B);
        a = loadOne(dir.file("a"));
        b = loadOne(dir.file("b"));
    }
};

TEST(CompareView, DivergenceRowsAreExact) {
    app();
    Runs runs;
    ASSERT_TRUE(runs.a && runs.b);
    CompareView view;
    view.resize(1400, 900);
    view.setRequest({{runs.a, 0}, {runs.b, 0}, StepAlign::Gstep, 1e-8, 1e-5});
    ASSERT_TRUE(waitIdle(view));
    EXPECT_TRUE(view.error().isEmpty()) << view.error().toStdString();
    const auto& rows = view.model()->rows();
    QStringList order;
    for (const auto& r : rows)
        order << r.key;
    // Most divergent first: first bit-exact difference ascending, then one-sided keys, then
    // identical keys.
    EXPECT_EQ(order, (QStringList{"t", "w", "b", "only_a", "only_b", "same"}));
    ASSERT_EQ(rows.size(), 6u);

    const DivergenceRow& t = rows[0];
    EXPECT_EQ(t.firstDiffExact, kTinyStep);
    EXPECT_FALSE(t.firstDiffTolerance.has_value()); // one ulp is within rtol 1e-5
    EXPECT_GT(t.maxRel, 0);
    EXPECT_LT(t.maxRel, 1e-6);

    const DivergenceRow& w = rows[1];
    EXPECT_EQ(w.side, DivergenceRow::Side::Both);
    EXPECT_EQ(w.stepsCompared, std::size_t(kSteps));
    EXPECT_EQ(w.firstDiffExact, kDivergeStep);
    EXPECT_EQ(w.firstDiffTolerance, kDivergeStep);
    EXPECT_FALSE(w.firstNonFiniteOneSide().has_value());
    double maxAbs = 0, maxRel = 0;
    for (int s = int(kDivergeStep); s < kSteps; ++s) {
        const double a = wValue(0, s, 0), b = double(wValue(0, s, 0) + 1e-3f);
        maxAbs = std::max(maxAbs, std::fabs(b - a));
        maxRel = std::max(maxRel, std::fabs(b - a) / std::max(std::fabs(a), std::fabs(b)));
    }
    EXPECT_EQ(w.maxAbs, maxAbs);
    EXPECT_EQ(w.maxRel, maxRel);
    EXPECT_EQ(w.stepsOnlyA, 0u);
    EXPECT_EQ(w.stepsOnlyB, 0u);

    const DivergenceRow& b = rows[2];
    EXPECT_EQ(b.firstDiffExact, kNanStep);
    EXPECT_EQ(b.firstDiffTolerance, kNanStep);
    EXPECT_EQ(b.firstNanOnlyB, kNanStep);
    EXPECT_FALSE(b.firstNanOnlyA.has_value());
    EXPECT_EQ(b.maxAbs, 0); // NaN elements are not in max abs; the others are equal

    EXPECT_EQ(rows[3].side, DivergenceRow::Side::OnlyA);
    EXPECT_EQ(rows[4].side, DivergenceRow::Side::OnlyB);
    EXPECT_EQ(rows[5].key, "same");
    EXPECT_FALSE(rows[5].jumpStep().has_value());

    // What the table shows.
    auto* m = view.model();
    auto cell = [&](int row, int col) { return m->index(row, col).data().toString(); };
    EXPECT_EQ(cell(1, KeyDivergenceModel::FirstDiffColumn), "37");
    EXPECT_EQ(cell(1, KeyDivergenceModel::FirstBeyondToleranceColumn), "37");
    EXPECT_EQ(cell(1, KeyDivergenceModel::StatusColumn), "beyond tolerance");
    EXPECT_EQ(cell(0, KeyDivergenceModel::FirstBeyondToleranceColumn), "-");
    EXPECT_EQ(cell(0, KeyDivergenceModel::StatusColumn), "within tolerance");
    EXPECT_EQ(cell(2, KeyDivergenceModel::NonFiniteColumn), "NaN only in B @50");
    EXPECT_EQ(cell(3, KeyDivergenceModel::StatusColumn), "only in A");
    EXPECT_EQ(cell(4, KeyDivergenceModel::StatusColumn), "only in B");
    EXPECT_EQ(cell(5, KeyDivergenceModel::StatusColumn), "identical");
    EXPECT_EQ(m->index(1, 0).data(KeyDivergenceModel::JumpStepRole).toLongLong(), kDivergeStep);

    // The view opened the top of the ranking at its first difference.
    EXPECT_EQ(view.key(), "t");
    EXPECT_EQ(view.cursorStep(), kTinyStep);

    // A looser tolerance: w's 1e-3 is within atol 1e-2; its bit-exact step stays.
    view.setTolerance(1e-2, 0);
    ASSERT_TRUE(waitIdle(view));
    const int wr = view.model()->rowOfKey("w");
    ASSERT_GE(wr, 0);
    EXPECT_EQ(view.model()->rows()[std::size_t(wr)].firstDiffExact, kDivergeStep);
    EXPECT_FALSE(view.model()->rows()[std::size_t(wr)].firstDiffTolerance.has_value());
    EXPECT_EQ(view.key(), "t"); // the shown key survives the recomputation
}

TEST(CompareView, RowSelectionMovesEveryCursorAndXRangesAreShared) {
    app();
    Runs runs;
    CompareView view;
    view.resize(1400, 900);
    view.show();
    view.setRequest({{runs.a, 0}, {runs.b, 0}, StepAlign::Gstep, 1e-8, 1e-5});
    ASSERT_TRUE(waitIdle(view));
    std::vector<std::int64_t> selected;
    QObject::connect(&view, &CompareView::stepSelected,
                     [&](std::int64_t s) { selected.push_back(s); });

    clickRow(view, "w");
    EXPECT_EQ(view.key(), "w");
    EXPECT_EQ(view.cursorStep(), kDivergeStep);
    EXPECT_EQ(view.cursorX(Panel::Curves), double(kDivergeStep));
    EXPECT_EQ(view.cursorX(Panel::Delta), double(kDivergeStep));
    EXPECT_EQ(selected, std::vector<std::int64_t>{kDivergeStep});
    ASSERT_TRUE(waitIdle(view));
    EXPECT_EQ(view.histogramStep(), kDivergeStep);
    ASSERT_TRUE(view.histogram(Panel::HistA) && view.histogram(Panel::HistB));
    EXPECT_EQ(view.histogram(Panel::HistA)->total(), 8u);
    EXPECT_EQ(view.histogram(Panel::HistB)->total(), 8u);
    EXPECT_EQ(view.histogram(Panel::HistA)->layout.lo, view.histogram(Panel::HistB)->layout.lo);

    // Curves are the loaded statistics; the delta is B - A of them, 0 before step 37.
    const XYSeries* a = view.lineData("A");
    const XYSeries* b = view.lineData("B");
    const XYSeries* d = view.lineData("B - A");
    const XYSeries* maxAbs = view.lineData("max |a-b|");
    ASSERT_TRUE(a && b && d && maxAbs);
    ASSERT_EQ(a->x.size(), std::size_t(kSteps));
    ASSERT_EQ(d->x.size(), std::size_t(kSteps));
    const auto sa = runs.a->seriesOf("w");
    const auto sb = runs.b->seriesOf("w");
    ASSERT_EQ(sa.size(), 1u);
    for (int s = 0; s < kSteps; ++s) {
        EXPECT_EQ(a->y[std::size_t(s)], sa[0]->records[std::size_t(s)].stats.mean);
        EXPECT_EQ(d->y[std::size_t(s)], sb[0]->records[std::size_t(s)].stats.mean -
                                            sa[0]->records[std::size_t(s)].stats.mean);
        if (s < kDivergeStep) EXPECT_EQ(d->y[std::size_t(s)], 0) << s;
        if (s >= kDivergeStep) EXPECT_GT(d->y[std::size_t(s)], 0) << s;
        EXPECT_EQ(maxAbs->y[std::size_t(s)] > 0, s >= kDivergeStep) << s;
    }
    view.setStatistic(analysis::StatField::Max);
    EXPECT_EQ(view.lineData("B")->y[kDivergeStep], sb[0]->records[kDivergeStep].stats.max);

    // The NaN row jumps to 50; the histogram of B counts the NaN apart from the bins.
    clickRow(view, "b");
    EXPECT_EQ(view.cursorX(Panel::Curves), double(kNanStep));
    EXPECT_EQ(view.cursorX(Panel::Delta), double(kNanStep));
    ASSERT_TRUE(waitIdle(view));
    ASSERT_TRUE(view.histogram(Panel::HistB));
    EXPECT_EQ(view.histogram(Panel::HistB)->nan, 1u);
    EXPECT_EQ(view.histogram(Panel::HistA)->nan, 0u);

    // A key of A only: its curve, nothing for B, the cursor stays.
    clickRow(view, "only_a");
    EXPECT_EQ(view.key(), "only_a");
    EXPECT_EQ(view.lineData("A")->x.size(), std::size_t(kSteps));
    EXPECT_TRUE(view.lineData("B")->x.empty());
    EXPECT_EQ(view.cursorStep(), kNanStep);

    // Zooming one step panel zooms the other, both ways.
    view.xAxis(Panel::Curves)->setRange(10, 20);
    EXPECT_EQ(view.xAxis(Panel::Delta)->range().lower, 10);
    EXPECT_EQ(view.xAxis(Panel::Delta)->range().upper, 20);
    view.xAxis(Panel::Delta)->setRange(3, 45);
    EXPECT_EQ(view.xAxis(Panel::Curves)->range().lower, 3);
    EXPECT_EQ(view.xAxis(Panel::Curves)->range().upper, 45);
    view.xAxis(Panel::HistB)->setRange(-1, 1);
    EXPECT_EQ(view.xAxis(Panel::HistA)->range().upper, 1);
}

TEST(CompareView, RelativeAlignmentOfARunStartingLater) {
    app();
    TempDir dir;
    recordRun(dir.file("a"), Variant::A);
    recordRun(dir.file("late"), Variant::A, 1000); // same values, gsteps 1000..1059
    RunSnapshot a = loadOne(dir.file("a")), late = loadOne(dir.file("late"));
    ASSERT_TRUE(a && late);
    CompareView view;
    view.setRequest({{a, 0}, {late, 0}, StepAlign::Gstep, 1e-8, 1e-5});
    ASSERT_TRUE(waitIdle(view));
    int wr = view.model()->rowOfKey("w");
    ASSERT_GE(wr, 0);
    EXPECT_EQ(view.model()->rows()[std::size_t(wr)].stepsCompared, 0u);
    EXPECT_EQ(view.model()->rows()[std::size_t(wr)].stepsOnlyA, std::size_t(kSteps));
    EXPECT_EQ(view.model()->index(wr, KeyDivergenceModel::StatusColumn).data().toString(),
              "no common step");

    view.setAlign(StepAlign::Relative);
    ASSERT_TRUE(waitIdle(view));
    wr = view.model()->rowOfKey("w");
    const DivergenceRow& w = view.model()->rows()[std::size_t(wr)];
    EXPECT_EQ(w.stepsCompared, std::size_t(kSteps));
    EXPECT_FALSE(w.firstDiffExact.has_value());
    EXPECT_EQ(w.stepsOnlyA + w.stepsOnlyB, 0u);
    clickRow(view, "w");
    const XYSeries* xa = view.lineData("A");
    const XYSeries* xb = view.lineData("B");
    ASSERT_TRUE(xa && xb);
    EXPECT_EQ(xa->x, xb->x);
    EXPECT_EQ(xb->x.front(), 0);
    EXPECT_EQ(xb->x.back(), kSteps - 1);
    EXPECT_EQ(xa->y, xb->y);
    view.setCursorStep(5);
    ASSERT_TRUE(waitIdle(view));
    ASSERT_TRUE(view.histogram(Panel::HistA) && view.histogram(Panel::HistB));
    EXPECT_EQ(view.histogram(Panel::HistA)->counts, view.histogram(Panel::HistB)->counts);
}

TEST(CompareView, RendersAndExportsPngSvgPdf) {
    app();
    Runs runs;
    CompareView view;
    view.resize(1400, 900);
    view.show();
    view.setRequest({{runs.a, 0}, {runs.b, 0}, StepAlign::Gstep, 1e-8, 1e-5});
    ASSERT_TRUE(waitIdle(view));
    clickRow(view, "w");
    ASSERT_TRUE(waitIdle(view));
    QTest::qWait(100);
    const QImage shot = view.grab().toImage();
    EXPECT_TRUE(nonBlank(shot));
    const QImage plot = view.plot()->toPixmap(900, 700).toImage();
    EXPECT_TRUE(nonBlank(plot));
    struct Case {
        const char* name;
        QByteArray magic;
    };
    for (const Case& c : {Case{"c.png", QByteArray("\x89PNG\r\n\x1a\n")},
                          Case{"c.pdf", QByteArray("%PDF-")}, Case{"c.svg", QByteArray("<?xml")}}) {
        const QString path = QString::fromStdString(runs.dir.file(c.name));
        QString error;
        ASSERT_TRUE(view.exportImage(path, 1200, 900, &error)) << error.toStdString();
        QFile f(path);
        ASSERT_TRUE(f.open(QIODevice::ReadOnly)) << c.name;
        const QByteArray bytes = f.readAll();
        EXPECT_TRUE(bytes.startsWith(c.magic)) << c.name;
        EXPECT_GT(bytes.size(), 2000) << c.name;
    }
    QImage png(QString::fromStdString(runs.dir.file("c.png")));
    ASSERT_FALSE(png.isNull());
    EXPECT_TRUE(nonBlank(png));
}

TEST(CompareDialog, DefaultsAndMainWindowCompareTab) {
    app();
    TempDir dir;
    recordRun(dir.file("a"), Variant::A, 0, 2);
    recordRun(dir.file("b"), Variant::B);
    // One run of two ranks: rank 0 against rank 1 by default.
    RunSnapshot a = loadOne(dir.file("a"));
    ASSERT_TRUE(a);
    {
        CompareDialog one({a}, 0);
        EXPECT_TRUE(one.isValid());
        const CompareRequest r = one.request();
        EXPECT_EQ(r.a.run, a);
        EXPECT_EQ(r.b.run, a);
        EXPECT_EQ(r.a.rank, 0);
        EXPECT_EQ(r.b.rank, 1);
        EXPECT_TRUE(one.select(0, 1, 0, 1));
        EXPECT_FALSE(one.isValid()); // the same rank twice
        EXPECT_FALSE(one.select(0, 0, 0, 7));
    }

    MainWindow w(QString::fromStdString(dir.file("settings.ini")));
    w.resize(1400, 900);
    w.show();
    w.openPaths({QString::fromStdString(dir.file("a")), QString::fromStdString(dir.file("b"))});
    ASSERT_TRUE(QTest::qWaitFor([&] { return w.hasLoaded() && !w.isBusy(); }, 30000));
    ASSERT_EQ(w.runs().size(), 2u);
    int ia = -1, ib = -1;
    for (std::size_t i = 0; i < w.runs().size(); ++i) {
        const std::string d = w.runs()[i]->reader->files().directory;
        (fs::path(d).filename() == "a" ? ia : ib) = int(i);
    }
    ASSERT_GE(ia, 0);
    ASSERT_GE(ib, 0);
    CompareDialog dialog(w.runs(), ia);
    EXPECT_EQ(dialog.request().a.run, w.runs()[std::size_t(ia)]);
    EXPECT_EQ(dialog.request().b.run, w.runs()[std::size_t(ib)]);
    ASSERT_TRUE(dialog.select(ia, 0, ib, 0));
    dialog.setAlign(StepAlign::Lstep);
    CompareView* view = w.openCompare(dialog.request());
    ASSERT_TRUE(view);
    EXPECT_EQ(w.currentCompareView(), view);
    EXPECT_EQ(view->request().align, StepAlign::Lstep);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !w.isBusy(); }, 30000));
    // The recorder counts lsteps from 1 in both runs: the divergence is at lstep 38.
    const int wr = view->model()->rowOfKey("w");
    ASSERT_GE(wr, 0);
    EXPECT_EQ(view->model()->rows()[std::size_t(wr)].firstDiffExact, kDivergeStep + 1);
    const QImage shot = w.grab().toImage();
    EXPECT_TRUE(nonBlank(shot));
    // Run A's rank 1 against its rank 0 (every w differs by 1).
    CompareView* ranks = w.openCompare({{a, 0}, {a, 1}, StepAlign::Gstep, 1e-8, 1e-5});
    ASSERT_TRUE(QTest::qWaitFor([&] { return !w.isBusy(); }, 30000));
    EXPECT_EQ(ranks->model()->rows().front().key, "w");
    EXPECT_EQ(ranks->model()->rows().front().firstDiffExact, 0);
    w.closeAll();
}

// --- HDF5 export dialog and statistics CSV -------------------------------------------------

template <class T> std::vector<T> readAll(hid_t file, const char* path, hid_t memType) {
    hid_t ds = H5Dopen2(file, path, H5P_DEFAULT);
    EXPECT_GE(ds, 0) << path;
    if (ds < 0) return {};
    hid_t sp = H5Dget_space(ds);
    std::vector<T> out(std::size_t(H5Sget_simple_extent_npoints(sp)));
    EXPECT_GE(H5Dread(ds, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), 0) << path;
    H5Sclose(sp);
    H5Dclose(ds);
    return out;
}

std::vector<hsize_t> dimsOf(hid_t file, const char* path) {
    hid_t ds = H5Dopen2(file, path, H5P_DEFAULT);
    EXPECT_GE(ds, 0) << path;
    if (ds < 0) return {};
    hid_t sp = H5Dget_space(ds);
    std::vector<hsize_t> d(std::size_t(H5Sget_simple_extent_ndims(sp)));
    H5Sget_simple_extent_dims(sp, d.data(), nullptr);
    H5Sclose(sp);
    H5Dclose(ds);
    return d;
}

std::vector<std::string> filesIn(const std::string& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir))
        out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

TEST(Hdf5ExportDialog, WritesWhatTheSourceHoldsAndCancelLeavesNothing) {
    app();
    TempDir dir;
    recordRun(dir.file("run"), Variant::B, 0, 2);
    RunSnapshot run = loadOne(dir.file("run"));
    ASSERT_TRUE(run);
    fs::create_directory(dir.file("out"));
    const std::string out = dir.file("out/x.h5");

    Hdf5ExportDialog dialog(run);
    EXPECT_EQ(dialog.totalKeys(), 5);
    dialog.setKeyRegex("^(w|b)$");
    EXPECT_EQ(dialog.matchingKeys(), 2);
    EXPECT_EQ(dialog.keyCountText(), "2 of 5 keys match");
    dialog.setKeyRegex("(");
    EXPECT_EQ(dialog.matchingKeys(), -1);
    EXPECT_FALSE(dialog.start());
    EXPECT_FALSE(dialog.errorText().isEmpty());
    dialog.setKeyRegex("^(w|b)$");
    dialog.setOutputPath(QString::fromStdString(out));
    dialog.setGstepRange(50, 40);
    EXPECT_FALSE(dialog.start()); // first > last
    dialog.setGstepRange(30, 54);
    dialog.setDeflateLevel(4);
    bool finished = false, ok = false;
    QObject::connect(&dialog, &Hdf5ExportDialog::exportFinished, [&](bool good) {
        finished = true;
        ok = good;
    });
    ASSERT_TRUE(dialog.start()) << dialog.errorText().toStdString();
    ASSERT_TRUE(QTest::qWaitFor([&] { return finished; }, 60000));
    ASSERT_TRUE(ok) << dialog.errorText().toStdString();
    ASSERT_TRUE(dialog.report());
    EXPECT_EQ(dialog.report()->keys, 4u);      // 2 keys x 2 ranks
    EXPECT_EQ(dialog.report()->rows, 4u * 25); // gsteps 30..54
    EXPECT_EQ(filesIn(dir.file("out")), std::vector<std::string>{"x.h5"});

    hid_t f = H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    EXPECT_LT(H5Lexists(f, "/rank0/t", H5P_DEFAULT), 1); // filtered out
    for (int rank = 0; rank < 2; ++rank) {
        const auto* reader = run->reader->rank(rank);
        ASSERT_TRUE(reader);
        for (const char* key : {"w", "b"}) {
            const std::string base = "/rank" + std::to_string(rank) + "/" + key;
            const auto gsteps =
                readAll<std::int64_t>(f, (base + "/gstep").c_str(), H5T_NATIVE_INT64);
            ASSERT_EQ(gsteps.size(), 25u);
            EXPECT_EQ(gsteps.front(), 30);
            EXPECT_EQ(gsteps.back(), 54);
            const auto values = readAll<float>(f, (base + "/values").c_str(), H5T_NATIVE_FLOAT);
            const std::size_t n = key == std::string("w") ? 8 : 4;
            EXPECT_EQ(dimsOf(f, (base + "/values").c_str()), (std::vector<hsize_t>{25, n}));
            ASSERT_EQ(values.size(), 25 * n);
            for (std::size_t row = 0; row < 25; ++row) {
                auto t = reader->tensor(*reader->findGstep(gsteps[row]), key);
                ASSERT_TRUE(t.isOk());
                const auto src = t->array<float>();
                ASSERT_EQ(src.size(), n);
                for (std::size_t i = 0; i < n; ++i) {
                    const float v = values[row * n + i];
                    if (std::isnan(src[i]))
                        EXPECT_TRUE(std::isnan(v)) << base << " row " << row;
                    else
                        EXPECT_EQ(v, src[i]) << base << " row " << row << " i " << i;
                }
            }
        }
    }
    // The NaN of b at gstep 50 survives (row 20).
    const auto b0 = readAll<float>(f, "/rank0/b/values", H5T_NATIVE_FLOAT);
    EXPECT_TRUE(std::isnan(b0[20 * 4 + 2]));
    H5Fclose(f);

    // Cancelled before the worker runs (every pool thread is held): no file, no temporary.
    const std::string cancelled = dir.file("out/cancelled.h5");
    QThreadPool* pool = jobPool(); // where the GUI's jobs run
    QSemaphore release;
    const int held = pool->maxThreadCount();
    for (int i = 0; i < held; ++i)
        pool->start([&release] { release.acquire(); });
    dialog.setOutputPath(QString::fromStdString(cancelled));
    dialog.setGstepRange({}, {});
    finished = false;
    ASSERT_TRUE(dialog.start());
    EXPECT_TRUE(dialog.isRunning());
    dialog.cancel();
    EXPECT_FALSE(dialog.isRunning());
    release.release(held);
    pool->waitForDone();
    QTest::qWait(50);
    EXPECT_FALSE(finished); // a cancelled export reports nothing
    EXPECT_FALSE(fs::exists(cancelled));
    EXPECT_EQ(filesIn(dir.file("out")), std::vector<std::string>{"x.h5"});

    // A missing output folder is refused up front, with the reason.
    dialog.setOutputPath(QString::fromStdString(dir.file("missing/dir/y.h5")));
    EXPECT_FALSE(dialog.start());
    EXPECT_TRUE(dialog.errorText().contains("does not exist")) << dialog.errorText().toStdString();
    EXPECT_FALSE(dialog.isRunning());
}

TEST(MainWindowExport, StatisticsCsvOfTheCurrentRun) {
    app();
    TempDir dir;
    recordRun(dir.file("run"), Variant::B);
    MainWindow w(QString::fromStdString(dir.file("settings.ini")));
    w.openPaths({QString::fromStdString(dir.file("run"))});
    ASSERT_TRUE(QTest::qWaitFor([&] { return w.hasLoaded() && !w.isBusy(); }, 30000));
    ASSERT_EQ(w.runs().size(), 1u);
    fs::create_directory(dir.file("out"));
    const std::string path = dir.file("out/stats.csv");
    w.exportStatisticsCsv(QString::fromStdString(path));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !w.isBusy(); }, 30000));
    QFile f(QString::fromStdString(path));
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    const QByteArray csv = f.readAll();
    std::string expected;
    appendStatsCsvHeader(expected);
    std::size_t rows = 0;
    for (const auto& s : w.runs()[0]->series)
        for (const auto& r : s.records) {
            appendStatsCsvRow(expected, s.rank, s.key, r);
            ++rows;
        }
    EXPECT_EQ(rows, 5u * kSteps);
    EXPECT_EQ(csv.toStdString(), expected);
    EXPECT_TRUE(csv.contains("\n0,b,50,51,")); // the NaN step of b: nan=1
    EXPECT_EQ(filesIn(dir.file("out")), std::vector<std::string>{"stats.csv"});
    // The HDF5 dialog opens for the current run with a default output path.
    Hdf5ExportDialog* d = w.showExportHdf5Dialog();
    ASSERT_TRUE(d);
    EXPECT_EQ(d->totalKeys(), 5);
    d->close();
}

} // namespace
} // namespace xt::widgets
