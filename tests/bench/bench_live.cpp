// P8 (PERFORMANCE.md): latency of live following, end to end, with the recorder in another
// process. Each record carries its own commit time: the scalar key "t" holds the monotonic clock
// (ns) read just before commitStep, so a view or a row that shows the record knows when it was
// committed (CLOCK_MONOTONIC is shared by the processes of a machine).
//
//   bench_live gui [--ranks N] [--rate HZ] [--steps N]    commit -> the StatPlot replot showing it
//   bench_live cli XTRACE [--ranks N] [--rate HZ] [--steps N]   commit -> `stats --follow` row
//   bench_live soak [--ranks N] [--rate HZ] [--seconds S] [--max-growth-mb M] [--part-mb P]
//       xtview follows for S seconds; prints RSS once a second; fails (exit 1) when the anonymous
//       RSS (file pages of the mapped run are page cache) grows by more than M MB after the first
//       quarter (a short version runs in ctest)
//   --part-mb P: each rank's part files of P MB (default 4, 250 records; the recorder's is 300)
//
// Prints p50 / p95 / max over every record, or the RSS samples.
#include "core/recorder/recorder.h"
#include "resident.h"
#include "widgets/key_view.h"
#include "widgets/live_runs.h"
#include "widgets/main_window.h"
#include "widgets/stat_plot.h"

#include <QApplication>
#include <QSettings>
#include <QTest>
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <malloc.h>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace {

using namespace xt;
using Clock = std::chrono::steady_clock;

double nowNs() {
    return double(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
            .count());
}

struct Options {
    int ranks = 8;
    double rate = 10; // steps per second per rank
    int steps = 100;
    double seconds = 0; // soak: run this long instead of `steps`
    double maxGrowthMB = 64;
    // Each rank's part files: 4 MB (250 records) by default, so that following also meets new
    // parts every few seconds; the recorder's own default is 300 MB.
    double partMB = 4;
    std::string xtrace;
};

// The training job: `ranks` recorders, one step every 1/rate s, each record "t" (its commit
// time) and "w" (4096 float32), closed at the end. Runs in a child process; returns its pid.
pid_t startWriter(const std::string& dir, const Options& o) {
    pid_t pid = ::fork();
    if (pid != 0) return pid;
    std::vector<std::unique_ptr<recorder::Recorder>> recs;
    for (int r = 0; r < o.ranks; ++r) {
        recorder::RecorderConfig c;
        c.outputDir = dir;
        c.rank = r;
        c.maxFileMB = o.partMB;
        auto rec = recorder::Recorder::create(c);
        if (!rec) ::_exit(3);
        recs.push_back(std::move(rec.value()));
    }
    std::vector<float> w(4096);
    const std::int64_t shape[] = {4096};
    const int steps = o.seconds > 0 ? int(o.seconds * o.rate) + 1 : o.steps;
    const auto start = Clock::now();
    for (int s = 0; s < steps; ++s) {
        std::this_thread::sleep_until(start + std::chrono::duration<double>(s / o.rate));
        for (int r = 0; r < o.ranks; ++r) {
            std::fill(w.begin(), w.end(), float(s + r));
            double t = nowNs();
            if (!recs[std::size_t(r)]->trace("w", w.data(), shape) ||
                !recs[std::size_t(r)]->trace<double>("t", &t, {}) ||
                !recs[std::size_t(r)]->commitStep(s))
                ::_exit(4);
        }
    }
    for (auto& r : recs)
        if (!r->close()) ::_exit(5);
    ::_exit(0);
}

void printLatencies(const char* what, std::vector<double> ms) {
    if (ms.empty()) {
        std::printf("%s: no sample\n", what);
        return;
    }
    std::sort(ms.begin(), ms.end());
    auto at = [&](double q) { return ms[std::min(ms.size() - 1, std::size_t(q * ms.size()))]; };
    std::printf("%s: %zu records, p50 %.1f ms, p95 %.1f ms, max %.1f ms\n", what, ms.size(),
                at(0.5), at(0.95), ms.back());
}

bool waitForFirstPart(const std::string& dir) {
    for (int i = 0; i < 1000; ++i) {
        if (std::filesystem::exists(dir + "/train.trace.0.1")) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
}

// A field of /proc/self/status in MB ("VmRSS", "RssAnon", "RssFile").
double statusMB(const std::string& field) {
    return std::max(0.0, double(test::statusKb(field)) / 1024.0);
}

int runGui(const std::string& dir, const Options& o, int argc, char** argv) {
    const pid_t writer = startWriter(dir, o);
    widgets::tuneHeap(); // as xtview does
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (!waitForFirstPart(dir)) return 2;
    const QString settings = QString::fromStdString(dir + "/../settings.ini");
    QSettings(settings, QSettings::IniFormat).setValue("live/notifyNonFinite", false);
    widgets::MainWindow w(settings);
    w.resize(1400, 900);
    w.show();
    w.setPreferredKey("t");
    w.openPaths({QString::fromStdString(dir)});
    if (!QTest::qWaitFor([&] { return w.hasLoaded(); }, 60000)) return 2;
    w.showKey("t");
    widgets::KeyView* view = w.currentKeyView();
    if (!view) return 2;
    // Every replot: the records on the curves for the first time, and how long ago they were
    // committed (their own y value, which grows from record to record of a rank). Only the
    // newest value of each rank is kept: a soak measures the viewer, not a set of every record.
    std::vector<double> newest(std::size_t(o.ranks), -std::numeric_limits<double>::infinity());
    std::size_t shown = 0;
    std::vector<double> latencies;
    std::vector<double> rss;
    auto newlyShown = [&](const std::function<void(double)>& fn) {
        for (int r = 0; r < o.ranks; ++r)
            if (const auto line =
                    view->statPlot()->lineData(QStringLiteral("rank %1 mean").arg(r))) {
                double& last = newest[std::size_t(r)];
                const double before = last;
                for (auto t = line->y.rbegin(); t != line->y.rend() && *t > before; ++t) {
                    fn(*t);
                    ++shown;
                    last = std::max(last, *t);
                }
            }
    };
    QTest::qWait(100);
    newlyShown([](double) {}); // shown at open: not followed
    QObject::connect(view->statPlot()->plot(), &QCustomPlot::afterReplot, [&] {
        const double now = nowNs();
        newlyShown([&](double t) {
            if (o.seconds <= 0) latencies.push_back((now - t) / 1e6);
        });
    });
    const auto start = Clock::now();
    auto nextSample = start;
    int status = 0;
    while (::waitpid(writer, &status, WNOHANG) == 0) {
        QTest::qWait(20);
        if (o.seconds > 0 && Clock::now() >= nextSample) {
            rss.push_back(statusMB("RssAnon"));
            const struct mallinfo2 heap = ::mallinfo2();
            std::printf("t=%4.0f s  rss %.1f MB (anonymous %.1f MB, file pages %.1f MB), heap in "
                        "use %.1f MB  records shown %zu\n",
                        std::chrono::duration<double>(Clock::now() - start).count(),
                        statusMB("VmRSS"), rss.back(), statusMB("RssFile"),
                        double(heap.uordblks + heap.hblkhd) / 1e6, shown);
            std::fflush(stdout);
            nextSample += std::chrono::seconds(1);
        }
    }
    if (!QTest::qWaitFor([&] { return w.liveRuns()->statusOf(w.runs()[0]) == "finalised"; }, 10000))
        std::fprintf(stderr, "bench_live: the run was not shown finalised within 10 s\n");
    QTest::qWait(300);
    if (o.seconds > 0) {
        const std::size_t q = rss.size() / 4;
        const double growth = rss.empty() ? 0 : rss.back() - rss[q];
        std::printf("soak: %d ranks x %.0f records/s for %.0f s; anonymous rss %.1f MB after %zu "
                    "s, %.1f MB at the end (+%.1f MB; limit %.0f MB)\n",
                    o.ranks, o.rate, o.seconds, rss.empty() ? 0 : rss[q], q,
                    rss.empty() ? 0 : rss.back(), growth, o.maxGrowthMB);
        return growth > o.maxGrowthMB ? 1 : 0;
    }
    printLatencies("commit -> painted in xtview (offscreen)", latencies);
    return 0;
}

int runCli(const std::string& dir, const Options& o) {
    const pid_t writer = startWriter(dir, o);
    if (!waitForFirstPart(dir)) return 2;
    int out[2];
    if (::pipe(out) != 0) return 2;
    pid_t follow = ::fork();
    if (follow == 0) {
        ::dup2(out[1], 1);
        ::close(out[0]);
        ::execl(o.xtrace.c_str(), o.xtrace.c_str(), "stats", dir.c_str(), "--follow", "--key",
                "^t$", "--format", "csv", static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ::close(out[1]);
    // CSV columns: rank,key,gstep,lstep,timestamp,count,nan,inf,zeros,min,max,mean,...
    std::vector<double> latencies;
    std::string pending;
    char buf[65536];
    bool header = true;
    for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) {
        const double now = nowNs();
        pending.append(buf, std::size_t(n));
        for (std::size_t eol; (eol = pending.find('\n')) != std::string::npos;) {
            std::string line = pending.substr(0, eol);
            pending.erase(0, eol + 1);
            if (header) {
                header = false;
                continue;
            }
            std::size_t p = 0;
            for (int field = 0; field < 11 && p != std::string::npos; ++field)
                p = line.find(',', p) + 1;
            if (p == 0 || p == std::string::npos) continue;
            latencies.push_back((now - std::stod(line.substr(p))) / 1e6);
        }
    }
    ::waitpid(writer, nullptr, 0);
    ::waitpid(follow, nullptr, 0);
    // The first rows are of records already there when stats started: not followed.
    const std::size_t skip = std::min<std::size_t>(latencies.size(), std::size_t(o.ranks) * 5);
    printLatencies("commit -> row printed by xtrace stats --follow",
                   std::vector<double>(latencies.begin() + long(skip), latencies.end()));
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_live gui|cli XTRACE|soak [options]\n");
        return 1;
    }
    const std::string mode = argv[1];
    Options o;
    int i = 2;
    if (mode == "cli" && argc > 2) o.xtrace = argv[i++];
    for (; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        const double v = std::stod(argv[i + 1]);
        if (a == "--ranks") o.ranks = int(v);
        if (a == "--rate") o.rate = v;
        if (a == "--steps") o.steps = int(v);
        if (a == "--seconds") o.seconds = v;
        if (a == "--max-growth-mb") o.maxGrowthMB = v;
        if (a == "--part-mb") o.partMB = v;
    }
    char tmpl[] = "/tmp/xt_bench_live_XXXXXX";
    if (!::mkdtemp(tmpl)) return 2;
    const std::string dir = std::string(tmpl) + "/run";
    int rc = 1;
    if (mode == "gui" || mode == "soak") {
        if (mode == "soak" && o.seconds <= 0) o.seconds = 60;
        rc = runGui(dir, o, argc, argv);
    } else if (mode == "cli" && !o.xtrace.empty()) {
        rc = runCli(dir, o);
    }
    std::error_code ec;
    std::filesystem::remove_all(tmpl, ec);
    return rc;
}
