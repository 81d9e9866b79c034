// P5 (docs/BENCHMARKS.md): paint time of the timeline view over a large trace. Generates a Chrome
// trace of XT_BENCH_EVENTS events (default 10M; compact JSON in memory, imported with
// importChromeTraceBytes): 16 threads in 4 processes with three levels of nested X slices of
// varied durations, a counter per process and flow pairs between threads. Reports the import
// and LOD build times and the view's background cache build, then renders TimelineView
// offscreen into a 1600x1000 QImage over a scripted sequence (fit all, zoom 2x at the centre
// down to a ~1 us window, pans at each zoom, vertical scrolls), twice, and prints per-frame
// p50 / p95 / p99 / max. Then the same sequence again while the view searches every slice in
// the background (a new search as soon as one ends; events processed between frames, so hits
// are applied as in the application), and the same figures for those frames.
// XT_BENCH_PNG=DIR also saves a timeline tab with a search running and finished.
//
//   QT_QPA_PLATFORM=offscreen build/release/tests/bench/bench_timeline_paint
#include "core/timeline/chrome_trace_reader.h"
#include "widgets/timeline_page.h"
#include "widgets/timeline_view.h"

#include <QApplication>
#include <QImage>
#include <QKeyEvent>
#include <QLineEdit>
#include <QPainter>
#include <QThread>
#include <QWheelEvent>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace xt;
using Clock = std::chrono::steady_clock;

namespace {

// By default all threads: Qt may fill on its pool.
double cpuMs(clockid_t clock = CLOCK_PROCESS_CPUTIME_ID) {
    timespec ts{};
    clock_gettime(clock, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

double msSince(Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

std::string generate(std::uint64_t events) {
    std::string out;
    out.reserve(events * 72);
    out += "{\"traceEvents\":[\n";
    static const char* kNames[] = {"aten::linear",
                                   "aten::addmm",
                                   "aten::relu",
                                   "aten::conv2d",
                                   "aten::batch_norm",
                                   "aten::add_",
                                   "aten::copy_",
                                   "aten::mm",
                                   "volta_sgemm_128x64_nn",
                                   "ncclKernel_AllReduce",
                                   "cudnn::bn_fw_tr",
                                   "Memcpy HtoD",
                                   "optimizer.step",
                                   "forward",
                                   "backward",
                                   "DataLoader"};
    constexpr int kThreads = 16;
    std::mt19937_64 rng(7);
    char buf[256];
    bool first = true;
    auto put = [&](int n) {
        if (!first) out += ",\n";
        first = false;
        out.append(buf, std::size_t(n));
    };
    for (int t = 0; t < kThreads; ++t) {
        put(std::snprintf(buf, sizeof buf,
                          "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,"
                          "\"args\":{\"name\":\"worker %d\"}}",
                          t / 4, t, t));
        if (t % 4 == 0)
            put(std::snprintf(buf, sizeof buf,
                              "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,"
                              "\"args\":{\"name\":\"rank %d\"}}",
                              t / 4, t / 4));
    }
    const std::uint64_t perThread = events / kThreads;
    std::uint64_t flowId = 0;
    for (int t = 0; t < kThreads; ++t) {
        std::int64_t ts = 1000;
        std::uint64_t n = 0;
        while (n < perThread) {
            // A parent, 2-6 children, each with 0-3 grandchildren; gaps between parents.
            const int kids = 2 + int(rng() % 5);
            std::vector<std::pair<std::int64_t, std::int64_t>> kidSpans;
            std::int64_t cur = ts + 1 + std::int64_t(rng() % 5);
            for (int k = 0; k < kids; ++k) {
                const std::int64_t d = 2 + std::int64_t(rng() % 40);
                kidSpans.push_back({cur, d});
                cur += d + 1 + std::int64_t(rng() % 3);
            }
            const std::int64_t parentDur = cur - ts + 1;
            put(std::snprintf(buf, sizeof buf,
                              "{\"ph\":\"X\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%lld,"
                              "\"dur\":%lld}",
                              kNames[12 + rng() % 4], t / 4, t, (long long)ts,
                              (long long)parentDur));
            ++n;
            for (const auto& [ks, kd] : kidSpans) {
                put(std::snprintf(buf, sizeof buf,
                                  "{\"ph\":\"X\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,"
                                  "\"ts\":%lld,\"dur\":%lld}",
                                  kNames[rng() % 8], t / 4, t, (long long)ks, (long long)kd));
                ++n;
                const int grand = int(rng() % 4);
                std::int64_t g = ks;
                for (int j = 0; j < grand && g + 2 < ks + kd; ++j) {
                    const std::int64_t gd = std::max<std::int64_t>(
                        1, std::min<std::int64_t>(ks + kd - g - 1, 1 + std::int64_t(rng() % 10)));
                    put(std::snprintf(buf, sizeof buf,
                                      "{\"ph\":\"X\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,"
                                      "\"ts\":%lld,\"dur\":%lld}",
                                      kNames[8 + rng() % 4], t / 4, t, (long long)g,
                                      (long long)gd));
                    ++n;
                    g += gd;
                }
            }
            // Every 64th group sends a flow to the next thread.
            if (rng() % 64 == 0) {
                ++flowId;
                put(std::snprintf(buf, sizeof buf,
                                  "{\"ph\":\"s\",\"name\":\"launch\",\"cat\":\"f\",\"id\":%llu,"
                                  "\"pid\":%d,\"tid\":%d,\"ts\":%lld}",
                                  (unsigned long long)flowId, t / 4, t, (long long)ts + 1));
                put(std::snprintf(buf, sizeof buf,
                                  "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"launch\",\"cat\":\"f\","
                                  "\"id\":%llu,\"pid\":%d,\"tid\":%d,\"ts\":%lld}",
                                  (unsigned long long)flowId, ((t + 1) % kThreads) / 4,
                                  (t + 1) % kThreads, (long long)cur + 20));
            }
            ts = cur + 2 + std::int64_t(rng() % 20);
            if (t % 4 == 0 && rng() % 16 == 0)
                put(std::snprintf(buf, sizeof buf,
                                  "{\"ph\":\"C\",\"name\":\"memory\",\"pid\":%d,\"ts\":%lld,"
                                  "\"args\":{\"bytes\":%llu}}",
                                  t / 4, (long long)ts, (unsigned long long)(rng() % 1000000)));
        }
    }
    out += "\n]}\n";
    return out;
}

double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    const std::size_t i = std::min(v.size() - 1, std::size_t(p / 100.0 * double(v.size())));
    return v[i];
}

} // namespace

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const char* env = std::getenv("XT_BENCH_EVENTS");
    const std::uint64_t events = env ? std::strtoull(env, nullptr, 10) : 10'000'000ull;

    auto t = Clock::now();
    std::string json = generate(events);
    std::printf("generated %.0f MB of JSON in %.0f ms\n", double(json.size()) / 1e6, msSince(t));
    t = Clock::now();
    auto store = timeline::importChromeTraceBytes(std::move(json));
    if (!store) {
        std::fprintf(stderr, "%s\n", store.status().toString().c_str());
        return 1;
    }
    std::printf("import: %.0f ms, %zu slices, %zu tracks, %zu flows, %zu counters\n", msSince(t),
                store->sliceCount(), store->tracks().size(), store->flows().size(),
                store->counters().size());
    auto shared = std::make_shared<timeline::TraceStore>(std::move(store.value()));
    std::vector<double> builds;
    std::shared_ptr<timeline::LodIndex> lod;
    for (int i = 0; i < 3; ++i) {
        t = Clock::now();
        lod = std::make_shared<timeline::LodIndex>(timeline::LodIndex::build(*shared));
        builds.push_back(msSince(t));
    }
    std::printf("LOD build, full and coarse rows: %.0f ms (best of 3; runs %.0f / %.0f / %.0f ms), "
                "%zu coarse entries\n",
                *std::min_element(builds.begin(), builds.end()), builds[0], builds[1], builds[2],
                lod->coarseEntries());

    const widgets::TimelineLayer layer{QStringLiteral("bench"), shared, lod, 0, {}};
    widgets::TimelineView view;
    view.resize(1600, 1000);
    t = Clock::now();
    view.setLayers({layer});
    std::printf("setLayers (GUI thread: layout): %.1f ms\n", msSince(t));
    while (view.isIndexing()) { // the layer cache, built in the background
        QCoreApplication::processEvents();
        QThread::msleep(1);
    }
    std::printf("layer cache (background: overview, instants, flows, counters): %.0f ms after\n",
                msSince(t));
    QImage img(1600, 1000, QImage::Format_ARGB32_Premultiplied);
    QPainter painter(&img);

    // window ns, worst wall and CPU ms of its frames
    struct Worst {
        std::int64_t window;
        double wall, cpu;
    };
    struct Pass {
        std::vector<double> wall, cpu, guiCpu; // per frame: wall, process CPU, GUI thread CPU
        std::vector<Worst> worstPerWindow;
    };
    auto frame = [&](Pass& pass) {
        const auto f0 = Clock::now();
        const double c0 = cpuMs(), g0 = cpuMs(CLOCK_THREAD_CPUTIME_ID);
        // One painter for the run, like the window's backing store; no background pass.
        view.render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
        const double ms = msSince(f0);
        const double cpu = cpuMs() - c0;
        pass.wall.push_back(ms);
        pass.cpu.push_back(cpu);
        pass.guiCpu.push_back(cpuMs(CLOCK_THREAD_CPUTIME_ID) - g0);
        const std::int64_t w = view.viewEnd() - view.viewStart();
        auto& worst = pass.worstPerWindow;
        if (worst.empty() || worst.back().window != w) {
            worst.push_back({w, ms, cpu});
        } else {
            worst.back().wall = std::max(worst.back().wall, ms);
            worst.back().cpu = std::max(worst.back().cpu, cpu);
        }
    };
    // The scripted sequence, twice; `between` runs before every frame.
    auto sequence = [&](Pass& pass, const std::function<void()>& between) {
        auto paint = [&] {
            between();
            frame(pass);
        };
        for (int round = 0; round < 2; ++round) {
            view.fitAll();
            paint();
            for (int z = 0; z < 40 && view.viewEnd() - view.viewStart() > 1000; ++z) {
                view.zoomBy(2.0);
                paint();
                for (double pan : {0.1, 0.1, -0.25, 0.05}) {
                    view.panBy(pan);
                    paint();
                }
                if (z % 4 == 0) { // scroll down and back up through the tracks
                    QWheelEvent down(QPointF(800, 500), QPointF(800, 500), {}, QPoint(0, -360),
                                     Qt::NoButton, {}, Qt::NoScrollPhase, false);
                    QApplication::sendEvent(&view, &down);
                    paint();
                    QWheelEvent up(QPointF(800, 500), QPointF(800, 500), {}, QPoint(0, 360),
                                   Qt::NoButton, {}, Qt::NoScrollPhase, false);
                    QApplication::sendEvent(&view, &up);
                    paint();
                }
            }
        }
    };
    auto report = [](const char* what, const std::vector<double>& v) {
        std::printf("%s p50 %.2f  p95 %.2f  p99 %.2f  max %.2f\n", what, percentile(v, 50),
                    percentile(v, 95), percentile(v, 99), *std::max_element(v.begin(), v.end()));
    };

    view.render(&painter, QPoint(), QRegion(), QWidget::DrawChildren); // warm-up: caches
    Pass idle;
    sequence(idle, [] {});
    std::printf("frames: %zu at 1600x1000\n", idle.wall.size());
    report("paint wall ms:", idle.wall);
    report("paint cpu ms: ", idle.cpu);
    std::printf("worst frame per window, first round (wall / cpu ms):\n");
    for (std::size_t i = 0;
         i < idle.worstPerWindow.size() / 2 + 1 && i < idle.worstPerWindow.size(); ++i)
        std::printf("  %-12s %6.2f / %6.2f\n",
                    xt::view::formatDuration(idle.worstPerWindow[i].window).c_str(),
                    idle.worstPerWindow[i].wall, idle.worstPerWindow[i].cpu);

    // The same frames while a search over every slice runs in the background.
    static const char* kNeedles[] = {"aten", "sgemm", "FORWARD", "a", "nccl", "memcpy"};
    int searches = 0, running = 0;
    std::size_t hits = 0;
    std::vector<double> searchMs, handling;
    Clock::time_point searchStart;
    Pass busy;
    sequence(busy, [&] {
        const auto e0 = Clock::now();
        QCoreApplication::processEvents(); // applies a finished search, as the event loop would
        handling.push_back(msSince(e0));
        if (!view.isSearching()) {
            if (searches) {
                searchMs.push_back(msSince(searchStart));
                hits += std::size_t(view.searchHits().size());
            }
            view.find(QString::fromLatin1(kNeedles[searches++ % std::size(kNeedles)]));
            searchStart = Clock::now();
        }
        running += view.isSearching();
    });
    std::printf("while searching %zu slices: %d frames (%d with a search running), %zu searches "
                "finished (median %.0f ms, max %.0f ms, %.1f M hits on average)\n",
                shared->sliceCount(), int(busy.wall.size()), running, searchMs.size(),
                searchMs.empty() ? 0.0 : percentile(searchMs, 50),
                searchMs.empty() ? 0.0 : *std::max_element(searchMs.begin(), searchMs.end()),
                searchMs.empty() ? 0.0 : double(hits) / double(searchMs.size()) / 1e6);
    report("paint wall ms, searching:", busy.wall);
    report("paint GUI-thread cpu ms, searching:", busy.guiCpu);
    report("paint GUI-thread cpu ms, idle:     ", idle.guiCpu);
    report("event handling between frames ms, searching:", handling);
    std::printf("p99 wall searching / idle: %.2f / %.2f ms = %.2fx\n", percentile(busy.wall, 99),
                percentile(idle.wall, 99), percentile(busy.wall, 99) / percentile(idle.wall, 99));
    view.cancelSearch();

    if (const char* dir = std::getenv("XT_BENCH_PNG")) {
        widgets::TimelinePage page;
        page.resize(1600, 1000);
        page.show();
        page.loadLayer(
            [layer](const ProgressCallback&) -> Result<widgets::TimelineLayer> { return layer; },
            QStringLiteral("bench"));
        auto wait = [](const std::function<bool()>& until, int ms) {
            const auto t0 = Clock::now();
            while (!until() && msSince(t0) < ms) {
                QCoreApplication::processEvents();
                QThread::msleep(5);
            }
        };
        wait([&] { return !page.isBusy(); }, 60000);
        page.searchBox()->setText(QStringLiteral("a"));
        wait([] { return false; }, 150); // the find bar shows the progress
        const bool wasRunning = page.isSearching();
        page.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/search_running.png"));
        wait([&] { return !page.isSearching(); }, 60000);
        QKeyEvent enter(QEvent::KeyPress, Qt::Key_Return, Qt::NoModifier);
        QApplication::sendEvent(page.searchBox(), &enter); // the first hit
        wait([] { return false; }, 50);
        page.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/search_done.png"));
        std::printf("saved %s/search_running.png (search %s) and search_done.png (%d hits)\n", dir,
                    wasRunning ? "running" : "already finished",
                    int(page.view()->searchHits().size()));
    }
    return 0;
}
