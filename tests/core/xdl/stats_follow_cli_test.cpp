// `xtrace stats --follow` against writers in other processes: the live demo recorder (the rows
// printed equal those of the finished run, and some come while it is still writing), and a
// writer killed with -9 in the middle of a record (its complete records are printed; the partial
// one is reported once, only after the part went idle). Waits are bounded, never timed.
#include "core/recorder/recorder.h"
#include "temp_dir.h"
#include "xtrace_run.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace xt {
namespace {
using test::TempDir;
using namespace std::chrono_literals;

// Starts `xtrace args...` with stdout and stderr going to files; returns its pid.
pid_t spawnXtrace(const std::vector<std::string>& args, const std::string& out,
                  const std::string& err) {
    pid_t pid = ::fork();
    if (pid != 0) return pid;
    int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(o, 1);
    ::dup2(e, 2);
    std::vector<char*> argv{const_cast<char*>(XTRACE_BIN)};
    for (const auto& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(XTRACE_BIN, argv.data());
    ::_exit(127);
}

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::size_t countOf(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1))
        ++n;
    return n;
}

std::size_t lineCount(const std::string& path) {
    return countOf(slurp(path), "\n");
}

// Polls `pred` every 20 ms for up to `limit`.
bool waitUntil(const std::function<bool()>& pred, std::chrono::milliseconds limit = 20s) {
    auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
        if (pred()) return true;
        std::this_thread::sleep_for(20ms);
    }
    return pred();
}

// The exit status of `pid` once it ends within `limit`; -1 if it had to be killed.
int waitExit(pid_t pid, std::chrono::milliseconds limit = 30s) {
    int status = 0;
    bool ended = waitUntil([&] { return ::waitpid(pid, &status, WNOHANG) == pid; }, limit);
    if (!ended) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(StatsFollow, PrintsTheRowsOfALiveDemoRunAsTheyAreWritten) {
    TempDir dir;
    const std::string run = dir.file("run");
    pid_t demo = spawnXtrace({"record-demo", run, "--live", "--rate", "25", "--steps", "50",
                              "--ranks", "2", "--max-mb", "0.1"},
                             dir.file("demo.out"), dir.file("demo.err"));
    ASSERT_TRUE(waitUntil([&] { return std::filesystem::exists(run + "/train.trace.1.1"); }));
    const std::string out = dir.file("follow.out"), err = dir.file("follow.err");
    pid_t follow = spawnXtrace(
        {"stats", run, "--follow", "--key", "^(loss|gradient/fc2/weight)$", "--format", "csv"}, out,
        err);
    // Rows come while the demo is still recording (two seconds at 25 steps/s).
    bool demoRunning = false;
    ASSERT_TRUE(waitUntil([&] {
        demoRunning = ::waitpid(demo, nullptr, WNOHANG) == 0;
        return lineCount(out) >= 8;
    }));
    EXPECT_TRUE(demoRunning) << "no row was printed before the demo had finished";
    EXPECT_EQ(waitExit(demo), 0) << slurp(dir.file("demo.err"));
    // --follow ends by itself once every part is finalised.
    EXPECT_EQ(waitExit(follow), 0) << slurp(err);

    const std::string followed = slurp(out);
    auto whole = test::runXtrace(
        "stats " + run + " --key '^(loss|gradient/fc2/weight)$' --format csv --backend cpu");
    ASSERT_EQ(whole.status, 0);
    // The same rows (2 ranks x 50 steps x 2 keys, with the NaNs), possibly in another order.
    auto sortedLines = [](const std::string& text) {
        std::vector<std::string> lines;
        std::stringstream ss(text);
        for (std::string l; std::getline(ss, l);)
            lines.push_back(l);
        std::sort(lines.begin(), lines.end());
        return lines;
    };
    EXPECT_EQ(sortedLines(followed).size(), 1u + 2 * 50 * 2);
    EXPECT_EQ(sortedLines(followed), sortedLines(whole.out));
    EXPECT_EQ(countOf(slurp(err), "truncated-record"), 0u);
}

TEST(StatsFollow, WriterKilledMidRecordIsReportedOnceWhenIdle) {
    TempDir dir;
    int go[2];
    ASSERT_EQ(::pipe(go), 0);
    pid_t writer = ::fork();
    if (writer == 0) { // a training process: 5 records, then killed while writing the 6th
        recorder::RecorderConfig c;
        c.outputDir = dir.str();
        auto rec = recorder::Recorder::create(c);
        if (!rec) ::_exit(3);
        std::vector<float> v(64);
        const std::int64_t shape[] = {64};
        for (int s = 0; s < 5; ++s) {
            std::fill(v.begin(), v.end(), float(s));
            if (!(*rec)->trace("v", v.data(), shape) || !(*rec)->commitStep(s)) ::_exit(4);
        }
        if (!(*rec)->flush()) ::_exit(5);
        char c1;
        if (::read(go[0], &c1, 1) != 1) ::_exit(6);
        // The first bytes of a record of 300 bytes: its length prefix and a little more.
        int fd = ::open(dir.file("train.trace.0.1").c_str(), O_WRONLY | O_APPEND);
        const unsigned char partial[] = {0x2c, 0x01, 0, 0, 0x08, 0x05, 0x10, 0x06, 0x18};
        if (::write(fd, partial, sizeof partial) != sizeof partial) ::_exit(7);
        ::raise(SIGKILL);
    }
    ::close(go[0]);
    ASSERT_TRUE(waitUntil([&] {
        return std::filesystem::exists(dir.file("train.trace.0.1")) &&
               std::filesystem::file_size(dir.file("train.trace.0.1")) > 5 * 256;
    }));
    const std::string out = dir.file("follow.out"), err = dir.file("follow.err");
    pid_t follow = spawnXtrace({"stats", dir.str(), "--follow", "--idle-after", "1.5"}, out, err);
    ASSERT_TRUE(waitUntil([&] { return lineCount(out) >= 5; }));
    ASSERT_EQ(::write(go[1], "x", 1), 1);
    int status = 0;
    ASSERT_EQ(::waitpid(writer, &status, 0), writer);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
    // While the part may still grow, the partial record is neither printed nor reported.
    std::this_thread::sleep_for(500ms);
    EXPECT_EQ(countOf(slurp(err), "truncated-record"), 0u) << slurp(err);
    // Once idle, it is reported once, located in the file.
    ASSERT_TRUE(waitUntil([&] { return countOf(slurp(err), "truncated-record") > 0; }, 10s))
        << slurp(err);
    std::this_thread::sleep_for(1500ms); // later rescans do not report it again
    ::kill(follow, SIGINT);
    EXPECT_EQ(waitExit(follow), 0);
    const std::string e = slurp(err);
    EXPECT_EQ(countOf(e, "truncated-record"), 1u) << e;
    EXPECT_NE(e.find(dir.file("train.trace.0.1") + ":"), std::string::npos) << e;
    EXPECT_EQ(lineCount(out), 5u);
    EXPECT_EQ(countOf(slurp(out), "\"key\":\"v\""), 5u);
}

} // namespace
} // namespace xt
