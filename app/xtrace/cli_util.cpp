#include "app/xtrace/cli_util.h"

#include "core/open/open_plan.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fmt/format.h>
#include <unistd.h>

namespace xt::cli {

namespace {
long long nowMs() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}
} // namespace

ProgressBar::ProgressBar() : m_enabled(::isatty(STDERR_FILENO) == 1) {}

ProgressCallback ProgressBar::callback() {
    if (!m_enabled) return {};
    return [this](const ProgressReport& r) {
        long long t = nowMs();
        if (t - m_lastDrawMs < 100 || r.total == 0) return true;
        m_lastDrawMs = t;
        int pct =
            static_cast<int>(100.0 * static_cast<double>(r.done) / static_cast<double>(r.total));
        int filled = pct * 30 / 100;
        std::fprintf(stderr, "\r[%-30s] %3d%% %.*s", std::string(filled, '#').c_str(), pct,
                     static_cast<int>(r.stage.size()), r.stage.data());
        m_drawn = true;
        return true;
    };
}

void ProgressBar::finish() {
    if (m_drawn) std::fprintf(stderr, "\r%60s\r", "");
    m_drawn = false;
}

namespace {

// Sorts `paths` (hdfs:// URLs through the local mirror, fetching only what changed) and warns
// about URLs served from a stale mirror.
Result<open::OpenPlan> plan(const std::vector<std::string>& paths) {
    ProgressBar bar;
    auto plan = open::planOpen(paths, {bar.callback(), {}});
    bar.finish();
    if (!plan) return plan;
    for (const auto& st : plan->mirrored)
        if (st.offline)
            std::fprintf(stderr, "xtrace: warning: %s is offline (%s); using the local mirror %s\n",
                         st.url.c_str(), st.offlineReason.c_str(), st.localPath.c_str());
    return plan;
}

} // namespace

int openRuns(const std::vector<std::string>& paths, Diagnostics& diag,
             std::vector<xdl::RunReader>& runs) {
    auto sorted = plan(paths);
    if (!sorted) {
        std::fprintf(stderr, "xtrace: %s\n", sorted.status().message().c_str());
        return kExitUnreadable;
    }
    for (const auto& in : sorted->inputs)
        for (const auto& t : in.traces)
            std::fprintf(stderr,
                         "xtrace: %s is a timeline (%s), not an XDL run: see xtrace timeline\n",
                         t.path.c_str(), open::traceKindName(t.kind));
    const std::vector<std::string> local = sorted->runPaths();
    if (local.empty()) return kExitUnreadable;
    auto found = xdl::discoverRuns(local, diag);
    if (!found) {
        std::fprintf(stderr, "xtrace: %s\n", found.status().message().c_str());
        return kExitUnreadable;
    }
    if (found->empty()) {
        printDiagnostics(diag);
        std::fprintf(stderr, "xtrace: no XDL runs found\n");
        return kExitUnreadable;
    }
    ProgressBar bar;
    for (const auto& files : *found) {
        auto run = xdl::RunReader::open(files, diag, bar.callback());
        if (!run) {
            bar.finish();
            std::fprintf(stderr, "xtrace: %s\n", run.status().message().c_str());
            return kExitUnreadable;
        }
        runs.push_back(std::move(*run));
    }
    return kExitOk;
}

int resolveTimeline(const std::string& path, std::string& local) {
    auto sorted = plan({path});
    if (!sorted) {
        std::fprintf(stderr, "xtrace: %s\n", sorted.status().message().c_str());
        return kExitUnreadable;
    }
    const auto traces = sorted->traces();
    if (traces.size() > 1) {
        std::fprintf(stderr, "xtrace: %s holds %zu timeline files; name one of them\n",
                     path.c_str(), traces.size());
        return kExitUsage;
    }
    // Anything else goes to the importer, which says what it cannot read.
    local = traces.empty() ? sorted->inputs.front().local : traces.front().path;
    return kExitOk;
}

void printDiagnostics(const Diagnostics& diag) {
    for (const auto& d : diag.items())
        std::fprintf(stderr, "%s\n", d.toString().c_str());
    if (diag.total() > diag.items().size())
        std::fprintf(stderr, "(%llu more diagnostics not shown)\n",
                     static_cast<unsigned long long>(diag.total() - diag.items().size()));
}

std::string formatTimestampMs(std::int64_t ms) {
    std::time_t secs = static_cast<std::time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
    int frac = static_cast<int>(ms - static_cast<std::int64_t>(secs) * 1000);
    std::tm tm{};
    if (!::gmtime_r(&secs, &tm)) return std::to_string(ms);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    return fmt::format("{}.{:03d}Z", buf, frac);
}

std::string formatBytes(std::uint64_t b) {
    const char* units[] = {"B", "kB", "MB", "GB", "TB"};
    double v = static_cast<double>(b);
    int u = 0;
    while (v >= 1000 && u < 4) {
        v /= 1000;
        ++u;
    }
    return u == 0 ? fmt::format("{} B", b) : fmt::format("{:.1f} {}", v, units[u]);
}

std::string formatDurationMs(std::int64_t ms) {
    if (ms < 0) return fmt::format("-{}", formatDurationMs(-ms));
    std::int64_t h = ms / 3600000, m = ms / 60000 % 60;
    double s = static_cast<double>(ms % 60000) / 1000.0;
    if (h) return fmt::format("{}h {}m {:.0f}s", h, m, s);
    if (m) return fmt::format("{}m {:.1f}s", m, s);
    return fmt::format("{:.3f}s", s);
}

} // namespace xt::cli
