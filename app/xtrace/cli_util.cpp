#include "app/xtrace/cli_util.h"

#include "core/storage/hdfs_mirror.h"

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

int openRuns(const std::vector<std::string>& paths, Diagnostics& diag,
             std::vector<xdl::RunReader>& runs, std::vector<std::string>* labels) {
    // hdfs:// URLs are read through the local mirror (only what changed is fetched).
    std::vector<storage::MirrorStatus> mirrored;
    std::vector<std::string> local;
    {
        ProgressBar bar;
        auto m = storage::mirrorPaths(paths, storage::mirrorOptionsFromEnvironment(),
                                      bar.callback(), &mirrored);
        if (!m) {
            bar.finish();
            std::fprintf(stderr, "xtrace: %s\n", m.status().message().c_str());
            return kExitUnreadable;
        }
        local = std::move(*m);
    }
    for (const auto& st : mirrored)
        if (st.offline)
            std::fprintf(stderr, "xtrace: warning: %s is offline (%s); using the local mirror %s\n",
                         st.url.c_str(), st.offlineReason.c_str(), st.localPath.c_str());
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
        if (labels) {
            const std::string url = storage::remoteUrlOf(files.directory, mirrored);
            const std::string name =
                files.prefix.empty() ? files.name : files.prefix + "." + files.name;
            labels->push_back(url.empty() ? files.label() : url + "/" + name);
        }
        runs.push_back(std::move(*run));
    }
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
