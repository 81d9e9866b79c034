// xtview: the desktop trace viewer. `xtview [PATH...]` opens files, run directories or globs
// (a start page without arguments); `--screenshot FILE` saves the window once everything is
// loaded and plotted, then exits; `--render-plot` draws one plot to a file with no window.
#include "core/buildinfo/build_info.h"
#include "widgets/live_runs.h"
#include "widgets/main_window.h"
#include "widgets/plot_renderer.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QIcon>
#include <QMetaEnum>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <memory>
#include <string>
#include <sys/resource.h>
#include <unistd.h>

namespace {

// Saves a PNG of `window` once it is idle (or after `timeoutMs`), then quits with 0, or 3 when
// the window never became idle or the file could not be written.
void screenshotWhenIdle(xt::widgets::MainWindow* window, const QString& file, int timeoutMs) {
    auto* timer = new QTimer(window);
    auto* clock = new QElapsedTimer;
    clock->start();
    auto idleSince = std::make_shared<qint64>(-1);
    QObject::connect(timer, &QTimer::timeout, window, [=] {
        const bool idle = window->hasLoaded() && !window->isBusy();
        if (idle && *idleSince < 0) *idleSince = clock->elapsed();
        if (!idle) *idleSince = -1;
        const bool settled = idle && clock->elapsed() - *idleSince > 400;
        const bool late = clock->elapsed() > timeoutMs;
        if (!settled && !late) return;
        timer->stop();
        const bool ok = window->grab().save(file, "PNG");
        if (!ok) std::fprintf(stderr, "xtview: could not write %s\n", qPrintable(file));
        if (late) std::fprintf(stderr, "xtview: still busy after %d ms\n", timeoutMs);
        delete clock;
        QCoreApplication::exit(ok && !late ? 0 : 3);
    });
    timer->start(100);
}

// Times each event the GUI thread handles from its event loop, and each widget's paint inside
// one, while `tracing`; keeps the longest of each.
class TracingApplication : public QApplication {
public:
    using QApplication::QApplication;
    bool tracing = false;
    struct Longest {
        double wallMs = 0, cpuMs = 0;
        std::string what;
    } longest;

    bool notify(QObject* receiver, QEvent* event) override {
        if (!tracing || (m_depth > 0 && event->type() != QEvent::Paint))
            return QApplication::notify(receiver, event);
        const bool nested = m_depth++ > 0;
        const double wall0 = nowMs(CLOCK_MONOTONIC), cpu0 = nowMs(CLOCK_THREAD_CPUTIME_ID);
        const int type = event->type(); // the event may be gone after
        const std::string what = describe(receiver, type);
        const bool handled = QApplication::notify(receiver, event);
        const Longest took{nowMs(CLOCK_MONOTONIC) - wall0, nowMs(CLOCK_THREAD_CPUTIME_ID) - cpu0,
                           what};
        --m_depth;
        Longest& kept = nested ? longestPaint : longest;
        if (took.wallMs > kept.wallMs) kept = took;
        return handled;
    }
    Longest longestPaint; // of one widget, inside a window's

private:
    // "UpdateRequest to MainWindow", "Timer to QTimer of StatPlot"
    static std::string describe(const QObject* receiver, int type) {
        const char* name = QMetaEnum::fromType<QEvent::Type>().valueToKey(type);
        std::string out = (name ? std::string(name) : "event " + std::to_string(type)) + " to ";
        if (!receiver) return out + "(none)";
        out += receiver->metaObject()->className();
        if (const QObject* parent = receiver->parent())
            out += std::string(" of ") + parent->metaObject()->className();
        return out;
    }
    static double nowMs(clockid_t clock) {
        timespec t{};
        clock_gettime(clock, &t);
        return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
    }
    int m_depth = 0;
};

// With XT_TRACE_STARTUP set (the open-time benchmark, tests/bench/run_p9_open.sh): prints to
// stderr when the first plot with data is on screen, when the first exact one is (a large run
// is drawn first from its summaries' overviews or its first records), and, once everything is
// idle, the longest time the GUI thread went without running its event loop, when that ended,
// and what the thread did meanwhile (Linux): its time on a CPU (and in the kernel: page faults,
// reclaim), its time ready to run but waiting for a CPU (the scheduler's), how often it slept
// (the event loop, a lock, a read) and the pages it read from the disk; and the CPU time a
// hypervisor took from the machine meanwhile (steal), with the longest stall during which it took
// none.
void traceStartup(TracingApplication* app, xt::widgets::MainWindow* window,
                  const QElapsedTimer* sinceStart) {
    app->tracing = true;
    auto* timer = new QTimer(window);
    timer->setInterval(5);
    struct Usage {
        double cpuMs = 0, readyMs = 0, kernelMs = 0; // on a CPU; runnable, waiting; of cpu, system
        double stolenMs = 0; // all CPUs' time a hypervisor took (steal: counted in clock ticks)
        long sleeps = 0, pageReads = 0;
        static Usage now() {
            Usage u;
            // Opened once (by the GUI thread: the file is that thread's), read every tick.
            static const int schedstat = ::open("/proc/thread-self/schedstat", O_RDONLY);
            char text[256] = {};
            unsigned long long cpu = 0, ready = 0;
            if (schedstat >= 0 && ::pread(schedstat, text, sizeof text - 1, 0) > 0 &&
                std::sscanf(text, "%llu %llu", &cpu, &ready) == 2)
                u.cpuMs = double(cpu) / 1e6, u.readyMs = double(ready) / 1e6;
            static const int stat = ::open("/proc/stat", O_RDONLY);
            static const double msPerTick = 1e3 / double(::sysconf(_SC_CLK_TCK));
            unsigned long long t[8] = {};
            if (stat >= 0 && ::pread(stat, text, sizeof text - 1, 0) > 0 &&
                std::sscanf(text, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", t, t + 1, t + 2,
                            t + 3, t + 4, t + 5, t + 6, t + 7) == 8)
                u.stolenMs = double(t[7]) * msPerTick;
#if defined(RUSAGE_THREAD)
            rusage r{};
            if (getrusage(RUSAGE_THREAD, &r) == 0)
                u.sleeps = r.ru_nvcsw, u.pageReads = r.ru_majflt,
                u.kernelMs = double(r.ru_stime.tv_sec) * 1e3 + double(r.ru_stime.tv_usec) / 1e3;
#endif
            return u;
        }
        Usage operator-(const Usage& o) const {
            return {cpuMs - o.cpuMs,       readyMs - o.readyMs, kernelMs - o.kernelMs,
                    stolenMs - o.stolenMs, sleeps - o.sleeps,   pageReads - o.pageReads};
        }
    };
    struct State {
        qint64 last = -1, worst = 0, worstAt = 0, firstPlot = -1, exactPlot = -1, idleSince = -1;
        qint64 worstUnstolen = 0, worstUnstolenAt = 0;   // the longest stall with no steal counted
        Usage lastUsage, worstUsage, worstUnstolenUsage; // what the worst stalls took
    };
    auto s = std::make_shared<State>();
    QObject::connect(timer, &QTimer::timeout, window, [=] {
        const qint64 now = sinceStart->elapsed();
        const Usage usage = Usage::now();
        const qint64 stall = s->last >= 0 ? now - s->last - timer->interval() : 0;
        if (stall > s->worst) {
            s->worst = stall;
            s->worstAt = now;
            s->worstUsage = usage - s->lastUsage;
        }
        if (stall > s->worstUnstolen && usage.stolenMs == s->lastUsage.stolenMs) {
            s->worstUnstolen = stall;
            s->worstUnstolenAt = now;
            s->worstUnstolenUsage = usage - s->lastUsage;
        }
        s->last = now;
        s->lastUsage = usage;
        if (s->exactPlot < 0)
            if (auto* v = window->currentKeyView()) {
                QCustomPlot* p = v->statPlot()->plot();
                bool drawn = false;
                for (int i = 0; i < p->graphCount(); ++i)
                    drawn = drawn || p->graph(i)->dataCount() > 0;
                if (drawn && s->firstPlot < 0) {
                    s->firstPlot = now;
                    std::fprintf(stderr, "xtview: first plot after %lld ms\n",
                                 static_cast<long long>(now));
                }
                if (drawn && v->run() && !v->run()->overview && !v->run()->preview) {
                    s->exactPlot = now;
                    std::fprintf(stderr, "xtview: exact plot after %lld ms\n",
                                 static_cast<long long>(now));
                }
            }
        const bool idle = window->hasLoaded() && !window->isBusy();
        if (!idle) s->idleSince = -1;
        if (idle && s->idleSince < 0) s->idleSince = now;
        if (idle && now - s->idleSince > 300) {
            timer->stop();
            // First: a reader may stop at the idle line.
            std::fprintf(stderr,
                         "xtview: longest event handled: %.0f ms (%.0f ms on the CPU), %s; longest "
                         "paint of a widget: %.0f ms (%.0f ms on the CPU), %s\n",
                         app->longest.wallMs, app->longest.cpuMs, app->longest.what.c_str(),
                         app->longestPaint.wallMs, app->longestPaint.cpuMs,
                         app->longestPaint.what.c_str());
            const auto took = [](const Usage& u) {
                char text[160];
                std::snprintf(text, sizeof text,
                              "%.0f ms on the CPU, %.0f of it in the kernel, %.0f ms ready for it, "
                              "%ld sleeps, %ld pages read",
                              u.cpuMs, u.kernelMs, u.readyMs, u.sleeps, u.pageReads);
                return std::string(text);
            };
            std::fprintf(stderr,
                         "xtview: longest GUI-thread stall while the host took no CPU time (no "
                         "steal counted): %lld ms (ending at %lld ms; %s)\n",
                         static_cast<long long>(s->worstUnstolen),
                         static_cast<long long>(s->worstUnstolenAt),
                         took(s->worstUnstolenUsage).c_str());
            const Usage& w = s->worstUsage;
            std::fprintf(stderr,
                         "xtview: idle after %lld ms, longest GUI-thread stall %lld ms (ending at "
                         "%lld ms; %s; %.0f ms of the CPUs taken by the host)\n",
                         static_cast<long long>(s->idleSince), static_cast<long long>(s->worst),
                         static_cast<long long>(s->worstAt), took(w).c_str(), w.stolenMs);
            app->tracing = false;
        }
    });
    timer->start();
}

} // namespace

int main(int argc, char** argv) {
    QElapsedTimer sinceStart;
    sinceStart.start();
    bool noDisplay = false;
    for (int i = 1; i < argc; ++i)
        noDisplay |= std::strcmp(argv[i], "--render-plot") == 0 ||
                     std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0 ||
                     std::strcmp(argv[i], "--version") == 0 || std::strcmp(argv[i], "-v") == 0;
    // Rendering to a file and printing help need no display.
    if (noDisplay) qputenv("QT_QPA_PLATFORM", "offscreen");
    xt::widgets::tuneHeap();

    TracingApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("xtview"));
    QApplication::setOrganizationName(QStringLiteral("xtview"));
    QApplication::setApplicationVersion(QStringLiteral(XT_VERSION));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/xtview/xtview.svg")));
    QGuiApplication::setDesktopFileName(QStringLiteral("xtview"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Trace viewer and analyzer for deep-learning training"));
    parser.addHelpOption();
    // --version prints the build facts (as `xtrace --version` does), not only the version.
    const QCommandLineOption version({QStringLiteral("v"), QStringLiteral("version")},
                                     QStringLiteral("Displays version and build information."));
    parser.addOption(version);
    parser.addPositionalArgument(QStringLiteral("paths"),
                                 QStringLiteral("Trace files, run directories or glob patterns"),
                                 QStringLiteral("[PATH...]"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Open PATHs, wait until loaded and plotted, "
                                                       "save a PNG of the window and exit."),
                                        QStringLiteral("FILE"));
    const QCommandLineOption demo(QStringLiteral("demo"),
                                  QStringLiteral("Open the built-in demo run."));
    const QCommandLineOption key(QStringLiteral("key"), QStringLiteral("Key to show or render."),
                                 QStringLiteral("KEY"));
    const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window or image size."),
                                  QStringLiteral("WxH"), QStringLiteral("1400x900"));
    const QCommandLineOption settings(QStringLiteral("settings"),
                                      QStringLiteral("Settings file to use instead of the user's."),
                                      QStringLiteral("FILE"));
    const QCommandLineOption renderPlot(
        QStringLiteral("render-plot"),
        QStringLiteral("Render the statistics of --key in PATHs to --out (no window)."));
    const QCommandLineOption stat(QStringLiteral("stat"),
                                  QStringLiteral("Statistics to draw: mean,min,max,std,l2,count,"
                                                 "nan,inf,zeros (default: mean with bands)."),
                                  QStringLiteral("LIST"));
    const QCommandLineOption rank(QStringLiteral("rank"), QStringLiteral("Only this rank."),
                                  QStringLiteral("R"), QStringLiteral("-1"));
    const QCommandLineOption out(QStringLiteral("out"),
                                 QStringLiteral("Output file (.png, .pdf, .svg)."),
                                 QStringLiteral("FILE"));
    parser.addOptions({screenshot, demo, key, size, settings, renderPlot, stat, rank, out});
    parser.process(app);
    if (parser.isSet(version)) {
        const std::string text = xt::buildinfo::versionText(
            "xtview",
            {{"Qt (run time)", qVersion()}, {"CUDA device", xt::buildinfo::cudaRuntimeStatus()}});
        std::fputs(text.c_str(), stdout);
        return 0;
    }

    int width = 1400, height = 900;
    const QStringList wh = parser.value(size).split(QLatin1Char('x'));
    if (wh.size() == 2 && wh[0].toInt() > 0 && wh[1].toInt() > 0) {
        width = wh[0].toInt();
        height = wh[1].toInt();
    } else {
        std::fprintf(stderr, "xtview: --size must be WxH\n");
        return 1;
    }

    if (parser.isSet(renderPlot)) {
        xt::widgets::RenderPlotRequest r;
        r.paths = parser.positionalArguments();
        r.key = parser.value(key);
        if (parser.isSet(stat))
            r.stats = parser.value(stat).split(QLatin1Char(','), Qt::SkipEmptyParts);
        r.rank = parser.value(rank).toInt();
        r.out = parser.value(out);
        if (parser.isSet(size)) {
            r.width = width;
            r.height = height;
        }
        return xt::widgets::renderPlot(r);
    }

    xt::widgets::MainWindow window(parser.value(settings));
    if (parser.isSet(screenshot)) window.resize(width, height);
    window.show();
    if (parser.isSet(key)) {
        const QString k = parser.value(key);
        window.setPreferredKey(k);
        QObject::connect(&window, &xt::widgets::MainWindow::loadFinished, &window,
                         [&window, k] { window.showKey(k); });
    }
    if (qEnvironmentVariableIsSet("XT_TRACE_STARTUP")) traceStartup(&app, &window, &sinceStart);
    if (parser.isSet(demo)) window.openDemoRun();
    if (!parser.positionalArguments().isEmpty()) window.openPaths(parser.positionalArguments());
    if (parser.isSet(screenshot)) {
        if (parser.positionalArguments().isEmpty() && !parser.isSet(demo)) {
            // The start page.
            QTimer::singleShot(500, &window, [&window, file = parser.value(screenshot)] {
                QCoreApplication::exit(window.grab().save(file, "PNG") ? 0 : 3);
            });
        } else {
            screenshotWhenIdle(&window, parser.value(screenshot), 120000);
        }
    }
    return app.exec();
}
