// xtview following runs while another process records them, offscreen: the points of the curve
// equal the records written, a new part, a new rank, a NaN alert (jumping to its step) and
// finalisation appear; a writer killed with -9 mid-record leaves its complete records shown and
// the partial one hidden until the part is idle, then reported once; a run on HDFS is followed
// through injected faults. Waits are bounded.
#include "core/recorder/recorder.h"
#include "resident.h"
#include "temp_dir.h"
#include "widgets/key_view.h"
#include "widgets/live_runs.h"
#include "widgets/main_window.h"
#include "widgets/run_browser_model.h"
#include "widgets/stat_plot.h"

#include "offscreen_app.h"
#include "webhdfs_test_server.h"

#include <QSettings>
#include <QStatusBar>
#include <QTest>
#include <QTreeView>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace xt::widgets {
namespace {
using xt::test::TempDir;

// The loss written at gstep g (the curve's y values).
float lossAt(int g) {
    return 2.0f / float(1 + g);
}

// A training process in a child: it writes phases of steps when told to (one byte on `go` per
// phase) and says when each is on disk (one byte on `done`).
class ChildWriter {
public:
    using Phase = std::function<bool()>;
    explicit ChildWriter(std::vector<Phase> phases) {
        int a[2], b[2];
        if (::pipe(a) != 0 || ::pipe(b) != 0) return;
        m_pid = ::fork();
        if (m_pid == 0) {
            ::close(a[1]);
            ::close(b[0]);
            for (auto& phase : phases) {
                char c;
                if (::read(a[0], &c, 1) != 1) ::_exit(3);
                if (!phase()) ::_exit(4);
                if (::write(b[1], "x", 1) != 1) ::_exit(5);
            }
            ::_exit(0);
        }
        ::close(a[0]);
        ::close(b[1]);
        m_go = a[1];
        m_done = b[0];
    }
    ~ChildWriter() {
        if (m_pid > 0 && ::waitpid(m_pid, nullptr, WNOHANG) == 0) {
            ::kill(m_pid, SIGKILL);
            ::waitpid(m_pid, nullptr, 0);
        }
        ::close(m_go);
        ::close(m_done);
    }
    // Runs the next phase and waits until it is written.
    bool next() {
        char c;
        return ::write(m_go, "x", 1) == 1 && ::read(m_done, &c, 1) == 1;
    }
    // The child's exit status (-1 when killed).
    int wait() {
        int st = 0;
        ::waitpid(m_pid, &st, 0);
        m_pid = -1;
        return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    }

private:
    pid_t m_pid = -1;
    int m_go = -1, m_done = -1;
};

std::unique_ptr<recorder::Recorder> makeRecorder(const std::string& dir, int rank) {
    recorder::RecorderConfig c;
    c.outputDir = dir;
    c.rank = rank;
    c.maxFileMB = 0.004; // a new part every ten records or so
    auto r = recorder::Recorder::create(c);
    return r.isOk() ? std::move(r.value()) : nullptr;
}

bool writeSteps(recorder::Recorder& rec, int from, int to, int nanAt = -1) {
    std::vector<float> w(64);
    const std::int64_t shape[] = {64};
    for (int g = from; g < to; ++g) {
        for (std::size_t i = 0; i < w.size(); ++i)
            w[i] = float(g) + 0.01f * float(i);
        if (g == nanAt) w[5] = std::numeric_limits<float>::quiet_NaN();
        float loss = lossAt(g);
        if (!rec.trace("w", w.data(), shape) || !rec.trace<float>("loss", &loss, {}) ||
            !rec.commitStep(g))
            return false;
    }
    return rec.flush().isOk();
}

// The x values of the mean curve of `rank` in the key view, or empty.
std::vector<double> curveX(MainWindow& w, int rank) {
    KeyView* v = w.currentKeyView();
    if (!v) return {};
    const auto s = v->statPlot()->lineData(QStringLiteral("rank %1 mean").arg(rank));
    return s ? s->x : std::vector<double>{};
}

std::vector<double> steps(int from, int to) {
    std::vector<double> out;
    for (int g = from; g < to; ++g)
        out.push_back(g);
    return out;
}

std::size_t partCount(const RunSnapshot& run) {
    std::size_t n = 0;
    for (const auto& r : run->reader->ranks())
        n += r.parts().size();
    return n;
}

QString runStatus(MainWindow& w) {
    return w.runModel()->index(0, RunBrowserModel::StatusColumn).data().toString();
}

void writeSettings(const QString& file) {
    QSettings s(file, QSettings::IniFormat);
    s.setValue("live/hdfsPollSeconds", 0.2);
    s.setValue("live/idleAfterSeconds", 1.0);
    s.setValue("live/goneAfterSeconds", 2.5);
    s.setValue("live/notifyNonFinite", false);
}

#if defined(__GLIBC__)
// RssAnon of /proc/self/status, in MB.
double anonymousMB() {
    return double(test::statusKb("RssAnon")) / 1024.0;
}

TEST(LiveFollow, FreedHeapGoesBackToTheSystemAtMostOncePerInterval) {
    // 80 MB of small blocks freed on another thread below one it still holds: its arena keeps
    // them, as it kept the snapshots a followed run replaced.
    std::vector<char*> blocks;
    std::thread([&] {
        for (int i = 0; i < 20000; ++i) {
            blocks.push_back(static_cast<char*>(std::malloc(4000)));
            std::memset(blocks.back(), 1, 4000);
        }
        for (std::size_t i = 0; i + 1 < blocks.size(); ++i)
            std::free(blocks[i]);
    }).join();
    const double before = anonymousMB();
    EXPECT_TRUE(releaseFreeHeap(std::chrono::seconds(0)));
#if !defined(__SANITIZE_ADDRESS__) // ASan's allocator, not glibc's, holds (and quarantines) them
    EXPECT_GT(before - anonymousMB(), 40.0) << "before: " << before << " MB";
#endif
    EXPECT_FALSE(releaseFreeHeap(std::chrono::seconds(3600))); // not again within the hour
    EXPECT_TRUE(releaseFreeHeap(std::chrono::seconds(0)));
    std::free(blocks.back());
}
#endif

TEST(LiveFollow, FollowsARecorderInAnotherProcess) {
    TempDir dir;
    const std::string run = dir.file("run");
    std::unique_ptr<recorder::Recorder> rank0, rank1;
    ChildWriter child({
        [&] { return (rank0 = makeRecorder(run, 0)) && writeSteps(*rank0, 0, 20); },
        [&] {
            return writeSteps(*rank0, 20, 40) && (rank1 = makeRecorder(run, 1)) &&
                   writeSteps(*rank1, 0, 15);
        },
        [&] { return writeSteps(*rank0, 40, 45, 42) && writeSteps(*rank1, 15, 20); },
        [&] { return rank0->close().isOk() && rank1->close().isOk(); },
    });
    ASSERT_TRUE(child.next());

    test::offscreenApp();
    const QString settings = QString::fromStdString(dir.file("settings.ini"));
    writeSettings(settings);
    MainWindow w(settings);
    w.resize(1400, 900);
    w.show();
    w.setPreferredKey("loss");
    w.openPaths({QString::fromStdString(run)});
    ASSERT_TRUE(QTest::qWaitFor([&] { return w.hasLoaded() && !w.isBusy(); }, 30000));
    ASSERT_EQ(w.runs().size(), 1u);
    EXPECT_TRUE(w.runs()[0]->live);
    w.showKey("loss");
    ASSERT_TRUE(w.currentKeyView());
    EXPECT_TRUE(w.currentKeyView()->isFollowing()); // on by default for a live run
    EXPECT_EQ(curveX(w, 0), steps(0, 20));
    ASSERT_TRUE(QTest::qWaitFor([&] { return runStatus(w).startsWith("live, last record"); }, 5000))
        << runStatus(w).toStdString();
    const std::size_t partsBefore = partCount(w.runs()[0]);

    // More records, new parts and a new rank.
    ASSERT_TRUE(child.next());
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return curveX(w, 0).size() == 40 && curveX(w, 1).size() == 15; }, 10000));
    EXPECT_EQ(curveX(w, 0), steps(0, 40));
    EXPECT_EQ(curveX(w, 1), steps(0, 15));
    const auto mean = w.currentKeyView()->statPlot()->lineData("rank 0 mean");
    for (int g = 0; g < 40; ++g)
        EXPECT_FLOAT_EQ(float(mean->y[std::size_t(g)]), lossAt(g)) << g;
    EXPECT_GT(partCount(w.runs()[0]), partsBefore);
    EXPECT_EQ(w.runModel()->rowCount(w.runModel()->index(0, 0)), 2); // rank rows
    // Following: the newest step is in view.
    const QCPRange x = w.currentKeyView()->statPlot()->plot()->xAxis->range();
    EXPECT_GE(x.upper, 39.0);

    // Zooming pauses following, and says so; End resumes it.
    w.currentKeyView()->statPlot()->setFocus();
    QTest::keyClick(w.currentKeyView()->statPlot(), Qt::Key_Plus);
    EXPECT_FALSE(w.currentKeyView()->isFollowing());

    // A NaN on rank 0 at gstep 42.
    ASSERT_TRUE(child.next());
    ASSERT_TRUE(QTest::qWaitFor([&] { return w.lastAlert().has_value(); }, 10000));
    EXPECT_EQ(w.lastAlert()->key, "w");
    EXPECT_EQ(w.lastAlert()->rank, 0);
    EXPECT_EQ(w.lastAlert()->gstep, 42);
    const QString status = w.statusBar()->findChildren<QLabel*>().front()->text();
    EXPECT_TRUE(status.contains("NaN in w on rank 0 at gstep 42")) << status.toStdString();
    EXPECT_TRUE(w.runs()[0]->nonFinite.count("w")); // the key's badge
    ASSERT_TRUE(QTest::qWaitFor([&] { return curveX(w, 0).size() == 45; }, 10000));
    // Not following: the zoom stayed.
    EXPECT_FALSE(w.currentKeyView()->isFollowing());
    if (const char* shot = std::getenv("XT_LIVE_SCREENSHOT")) { // to look at
        QTest::qWait(300);
        w.grab().save(shot);
    }
    QTest::keyClick(w.currentKeyView()->statPlot(), Qt::Key_End);
    EXPECT_TRUE(w.currentKeyView()->isFollowing());
    w.jumpToAlert();
    ASSERT_TRUE(w.currentKeyView());
    EXPECT_EQ(w.currentKeyView()->key(), "w");

    // Finalised at close.
    ASSERT_TRUE(child.next());
    EXPECT_EQ(child.wait(), 0);
    ASSERT_TRUE(
        QTest::qWaitFor([&] { return runStatus(w) == "finalised" && !w.runs()[0]->live; }, 10000))
        << runStatus(w).toStdString();
    EXPECT_EQ(w.runs()[0]->reader->ranks().size(), 2u);
}

TEST(LiveFollow, WriterKilledMidRecord) {
    TempDir dir;
    const std::string run = dir.file("run");
    std::unique_ptr<recorder::Recorder> rec;
    ChildWriter child({
        [&] { return (rec = makeRecorder(run, 0)) && writeSteps(*rec, 0, 5); },
        [&] {
            // The first bytes of the next record, then killed.
            int fd = ::open((run + "/train.trace.0.1").c_str(), O_WRONLY | O_APPEND);
            const unsigned char partial[] = {0x2c, 0x01, 0, 0, 0x08, 0x05, 0x10};
            if (::write(fd, partial, sizeof partial) != sizeof partial) return false;
            ::raise(SIGKILL);
            return false;
        },
    });
    ASSERT_TRUE(child.next());
    test::offscreenApp();
    const QString settings = QString::fromStdString(dir.file("settings.ini"));
    writeSettings(settings);
    MainWindow w(settings);
    w.setPreferredKey("loss");
    w.openPaths({QString::fromStdString(run)});
    ASSERT_TRUE(QTest::qWaitFor([&] { return w.hasLoaded() && !w.isBusy(); }, 30000));
    w.showKey("loss");
    const auto truncated = [&] {
        int n = 0;
        for (int i = 0; i < w.diagnosticsModel()->rowCount(); ++i)
            for (int c = 0; c < w.diagnosticsModel()->columnCount(); ++c)
                n += w.diagnosticsModel()->index(i, c).data().toString() == "truncated-record";
        return n;
    };
    EXPECT_FALSE(child.next()); // killed while writing
    EXPECT_EQ(child.wait(), -1);
    QTest::qWait(300);
    EXPECT_EQ(truncated(), 0); // the writer may still finish it
    EXPECT_EQ(curveX(w, 0), steps(0, 5));
    ASSERT_TRUE(QTest::qWaitFor([&] { return truncated() > 0; }, 10000));
    ASSERT_TRUE(QTest::qWaitFor([&] { return runStatus(w) == "writer gone"; }, 10000))
        << runStatus(w).toStdString();
    QTest::qWait(1500);
    EXPECT_EQ(truncated(), 1);
    EXPECT_EQ(curveX(w, 0), steps(0, 5));
}

// A run on HDFS (the WebHDFS test server) is followed by polling its mirror, through faults the
// server injects (errors and dropped connections).
TEST(LiveFollow, FollowsARunOnHdfsThroughFaults) {
    if (!std::filesystem::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
    TempDir remote, cache;
    const std::string run = remote.file("exp");
    std::unique_ptr<recorder::Recorder> rec;
    ChildWriter child({
        [&] { return (rec = makeRecorder(run, 0)) && writeSteps(*rec, 0, 10); },
        [&] { return writeSteps(*rec, 10, 25); },
        [&] { return writeSteps(*rec, 25, 30) && rec->close().isOk(); },
    });
    ASSERT_TRUE(child.next());
    test::WebHdfsTestServer server(remote.str());
    ASSERT_GT(server.port(), 0) << "the WebHDFS test server did not start";
    ::setenv("XT_HDFS_CACHE_DIR", cache.str().c_str(), 1);
    test::offscreenApp();
    const QString settings = QString::fromStdString(cache.file("settings.ini"));
    writeSettings(settings);
    MainWindow w(settings);
    w.setPreferredKey("loss");
    w.openPaths({QString::fromStdString(server.url("/exp"))});
    ASSERT_TRUE(QTest::qWaitFor([&] { return w.hasLoaded() && !w.isBusy(); }, 30000));
    ASSERT_EQ(w.runs().size(), 1u);
    EXPECT_TRUE(w.runs()[0]->live);
    EXPECT_FALSE(w.runs()[0]->sourceUrl.empty());
    w.showKey("loss");
    EXPECT_EQ(curveX(w, 0), steps(0, 10));
    // Errors and dropped connections on the next requests; the poller keeps going.
    server.control("fault=500&op=ANY&count=3");
    server.control("fault=drop&op=DN_OPEN&count=2");
    ASSERT_TRUE(child.next());
    ASSERT_TRUE(QTest::qWaitFor([&] { return curveX(w, 0).size() == 25; }, 20000))
        << curveX(w, 0).size();
    EXPECT_EQ(curveX(w, 0), steps(0, 25));
    ASSERT_TRUE(child.next());
    EXPECT_EQ(child.wait(), 0);
    // The mirror may fetch a finalised meta before the last bytes of its part.
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            return runStatus(w) == "finalised" && !w.runs()[0]->live && curveX(w, 0).size() == 30;
        },
        20000))
        << runStatus(w).toStdString() << ", " << curveX(w, 0).size() << " points";
    EXPECT_EQ(curveX(w, 0), steps(0, 30));
    // Tensors of records appended while following read the remote bytes (the mirror holds
    // sparse copies: a snapshot's parts fetch what they read).
    const xdl::RankReader* rank0 = w.runs()[0]->reader->rank(0);
    ASSERT_TRUE(rank0);
    for (std::size_t record : {std::size_t(0), std::size_t(17), std::size_t(29)}) {
        auto t = rank0->tensor(record, "w");
        ASSERT_TRUE(t.isOk()) << t.status().toString();
        EXPECT_EQ(t->at<float>(3), float(record) + 0.03f) << "record " << record;
    }
    w.closeAll();
    ::unsetenv("XT_HDFS_CACHE_DIR");
}

} // namespace
} // namespace xt::widgets
