#include "app/xtrace/cli_util.h"

#include "core/open/open_plan.h"
#include "core/storage/remote_runs.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fmt/format.h>
#include <optional>
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
// The remote runs of this command (one command per process): their fetchers serve its reads,
// and their mirror paths are written as URLs.
std::optional<storage::RemoteRuns> g_remote;

// Opens each run with `open`, fetches of remote bytes drawn on the same progress bar.
template <class Run, class Open>
int openEach(const std::vector<xdl::RunFiles>& found, std::vector<Run>& runs, const Open& open) {
    ProgressBar bar;
    const auto& fetch = g_remote->mirror().fetchContext();
    fetch->setProgress(bar.callback());
    int rc = kExitOk;
    for (const auto& files : found) {
        auto run = open(files, bar.callback());
        if (!run) {
            bar.finish();
            std::fprintf(stderr, "xtrace: %s\n", shown(run.status().message()).c_str());
            rc = kExitUnreadable;
            break;
        }
        runs.push_back(std::move(*run));
    }
    fetch->setProgress({});
    return rc;
}
} // namespace

storage::RemoteRuns* remoteRuns() {
    return g_remote ? &*g_remote : nullptr;
}

std::string shown(std::string text) {
    return g_remote ? g_remote->toUrls(std::move(text)) : text;
}

int discoverPaths(const std::vector<std::string>& paths, Diagnostics& diag,
                  std::vector<xdl::RunFiles>& found) {
    // hdfs:// URLs: metas and summaries come whole, data bytes when a reader asks for them.
    {
        ProgressBar bar;
        auto remote = storage::RemoteRuns::open(paths, storage::mirrorOptionsFromEnvironment(),
                                                bar.callback());
        if (!remote) {
            bar.finish();
            std::fprintf(stderr, "xtrace: %s\n", remote.status().message().c_str());
            return kExitUnreadable;
        }
        g_remote = std::move(*remote);
    }
    for (const auto& st : g_remote->statuses())
        if (st.offline)
            std::fprintf(stderr,
                         "xtrace: warning: %s is offline (%s); using what the local mirror %s "
                         "holds\n",
                         st.url.c_str(), st.offlineReason.c_str(), st.localPath.c_str());
    // Timeline files are named and left out; what is left goes to the XDL reader.
    auto sorted = open::planOpen(g_remote->localPaths());
    if (!sorted) {
        std::fprintf(stderr, "xtrace: %s\n", shown(sorted.status().message()).c_str());
        return kExitUnreadable;
    }
    for (const auto& t : sorted->traces())
        std::fprintf(stderr, "xtrace: %s is a timeline (%s), not an XDL run: see xtrace timeline\n",
                     shown(t.path).c_str(), open::traceKindName(t.kind));
    const std::vector<std::string> local = sorted->runPaths();
    if (local.empty()) return kExitUnreadable;
    auto runs = xdl::discoverRuns(local, diag);
    if (!runs) {
        std::fprintf(stderr, "xtrace: %s\n", shown(runs.status().message()).c_str());
        return kExitUnreadable;
    }
    if (runs->empty()) {
        printDiagnostics(diag);
        std::fprintf(stderr, "xtrace: no XDL runs found\n");
        return kExitUnreadable;
    }
    for (auto& files : *runs)
        g_remote->attach(files, diag);
    found = std::move(*runs);
    return kExitOk;
}

int openRuns(const std::vector<std::string>& paths, Diagnostics& diag,
             std::vector<xdl::RunReader>& runs) {
    std::vector<xdl::RunFiles> found;
    if (int rc = discoverPaths(paths, diag, found); rc != kExitOk) return rc;
    return openEach(found, runs, [&](const xdl::RunFiles& files, const ProgressCallback& cb) {
        return xdl::RunReader::open(files, diag, cb);
    });
}

int openRuns(const std::vector<std::string>& paths, Diagnostics& diag,
             std::vector<summary::OpenedRun>& runs, const xdl::ReaderOptions& reader) {
    std::vector<xdl::RunFiles> found;
    if (int rc = discoverPaths(paths, diag, found); rc != kExitOk) return rc;
    return openEach(found, runs, [&](const xdl::RunFiles& files, const ProgressCallback& cb) {
        return summary::openRun(files, summary::StoreOptions{}, diag, cb, reader);
    });
}

int resolveTimeline(const std::string& path, std::string& local) {
    ProgressBar bar;
    auto sorted = open::planOpen({path}, {bar.callback(), {}});
    bar.finish();
    if (!sorted) {
        std::fprintf(stderr, "xtrace: %s\n", sorted.status().message().c_str());
        return kExitUnreadable;
    }
    for (const auto& st : sorted->mirrored)
        if (st.offline)
            std::fprintf(stderr, "xtrace: warning: %s is offline (%s); using the local mirror %s\n",
                         st.url.c_str(), st.offlineReason.c_str(), st.localPath.c_str());
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
        std::fprintf(stderr, "%s\n", shown(d.toString()).c_str());
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
