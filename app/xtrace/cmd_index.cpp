// xtrace index PATH... [--cache] [--jobs N] [--publish]: builds (or extends, or checks) the
// summary of every part of every run under PATH, so that opening, stats, hist and export read
// summaries instead of every byte. One line per part, in part order, then a total.
#include "app/xtrace/cli_util.h"
#include "app/xtrace/commands.h"

#include "core/base/parallel_for.h"
#include "core/storage/remote_runs.h"
#include "core/summary/run_summary.h"

#include <chrono>
#include <cstdio>
#include <fmt/format.h>
#include <mutex>

namespace xt::cli {

namespace {

struct PartResult {
    bool done = false;
    Status failure;
    summary::LoadedSummary loaded;
};

std::string describe(const xdl::PartFile& part, const PartResult& r) {
    if (!r.failure)
        return shown(fmt::format("failed    {}: {}", part.displayPath(), r.failure.message()));
    const auto& s = *r.loaded.summary;
    std::string line =
        fmt::format("{:<9} {}  ({} record(s), {})", summary::summaryOriginName(r.loaded.origin),
                    part.displayPath(), s.recordCount(), formatBytes(s.identity.size));
    if (!r.loaded.savedTo.empty())
        line += " -> " + r.loaded.savedTo;
    else if (r.loaded.origin == summary::SummaryOrigin::Loaded)
        line += " from " + r.loaded.loadedFrom;
    else
        line += " -> not saved";
    return shown(line);
}

// Uploads the summaries of remote parts beside them on HDFS ({part}.xts), except those read from
// there and still valid. A refusal (permissions) is reported, not a failure of the command: the
// summaries stay in the local cache.
void publish(const std::vector<const xdl::PartFile*>& parts,
             const std::vector<PartResult>& results) {
    storage::RemoteRuns* remote = remoteRuns();
    std::size_t published = 0, current = 0, refused = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const xdl::PartFile& part = *parts[i];
        const PartResult& r = results[i];
        if (part.source.empty() || !r.failure || !remote) continue;
        if (!summary::needsPublishing(part, r.loaded)) {
            ++current;
            continue;
        }
        const std::string url = summary::besidePath(part.source);
        Status st = remote->upload(url, summary::serializeSummary(*r.loaded.summary));
        if (st) {
            ++published;
            fmt::print("published {}\n", url);
        } else if (refused++ == 0) { // the same reason, likely, for every part
            std::fprintf(stderr,
                         "xtrace index: warning: cannot publish %s (%s); the summaries stay in "
                         "the local cache\n",
                         url.c_str(), st.message().c_str());
        }
    }
    fmt::print("{} summar{} published beside the run on HDFS, {} there already{}\n", published,
               published == 1 ? "y" : "ies", current,
               refused ? fmt::format(", {} refused", refused) : "");
}

} // namespace

void addIndexCommand(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand(
        "index", "Build the summaries of every part of the runs (beside the parts when their "
                 "folder is writable, else in the cache), so they open without reading every byte");
    struct Opts {
        std::vector<std::string> paths;
        bool cache = false, publish = false;
        int jobs = 0;
    };
    auto opts = std::make_shared<Opts>();
    cmd->add_option("PATH", opts->paths, "data files, run directories or glob patterns")
        ->required();
    cmd->add_flag("--cache", opts->cache,
                  "write the summaries into the user's cache folder, not beside the parts");
    cmd->add_option("--jobs", opts->jobs, "parts summarised in parallel (default: every core)")
        ->check(CLI::Range(0, 1024));
    cmd->add_flag("--publish", opts->publish,
                  "also upload the summaries next to an hdfs:// run (remote runs only)");
    cmd->callback([opts, &exitCode] {
        if (opts->publish) {
            for (const auto& p : opts->paths)
                if (!storage::isHdfsUrl(p)) {
                    std::fprintf(stderr,
                                 "xtrace index: --publish is not supported for local paths (%s): "
                                 "their summaries are written beside the parts or in the cache\n",
                                 p.c_str());
                    exitCode = kExitUsage;
                    return;
                }
        }
        Diagnostics diag;
        std::vector<xdl::RunFiles> runs;
        if ((exitCode = discoverPaths(opts->paths, diag, runs)) != kExitOk) return;
        std::vector<const xdl::PartFile*> parts;
        std::uint64_t totalBytes = 0;
        for (const auto& run : runs)
            for (const auto& rank : run.ranks)
                for (const auto& part : rank.parts) {
                    parts.push_back(&part);
                    totalBytes += part.size;
                }
        summary::StoreOptions store;
        store.writeBeside = !opts->cache;

        const auto t0 = std::chrono::steady_clock::now();
        std::vector<PartResult> results(parts.size());
        std::vector<Diagnostics> diags(parts.size());
        std::vector<std::uint64_t> progressOf(parts.size(), 0);
        std::uint64_t progressSum = 0;
        std::size_t printed = 0;
        std::mutex lock;
        ProgressBar bar;
        const ProgressCallback draw = bar.callback();
        parallelFor(parts.size(), opts->jobs, [&](std::size_t i) {
            const std::uint64_t size = parts[i]->size;
            // Indexing is the first quarter of a part's work, summarising the rest.
            auto partProgress = [&, i, size](const ProgressReport& r) {
                const std::uint64_t v =
                    r.stage == "indexing" ? r.done / 4 : size / 4 + r.done / 4 * 3;
                std::lock_guard g(lock);
                progressSum += v - std::min(v, progressOf[i]);
                progressOf[i] = std::max(v, progressOf[i]);
                return reportProgress(draw, progressSum, totalBytes, "summarizing");
            };
            auto r = summary::loadOrBuildSummary(*parts[i], store, diags[i], partProgress);
            std::lock_guard g(lock);
            progressSum += size - std::min(size, progressOf[i]);
            progressOf[i] = size;
            results[i].done = true;
            if (r)
                results[i].loaded = std::move(*r);
            else
                results[i].failure = r.status();
            // Lines in part order: print every finished part no earlier one is waiting for.
            bool any = false;
            for (; printed < parts.size() && results[printed].done; ++printed) {
                if (!any) bar.finish();
                any = true;
                std::fprintf(stdout, "%s\n", describe(*parts[printed], results[printed]).c_str());
            }
            if (any) std::fflush(stdout);
            return true;
        });
        bar.finish();
        std::size_t counts[3] = {0, 0, 0}, failed = 0;
        for (std::size_t i = 0; i < parts.size(); ++i) {
            diag.merge(diags[i]);
            if (!results[i].failure)
                ++failed;
            else
                ++counts[int(results[i].loaded.origin)];
        }
        const double secs =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        fmt::print("{} part(s) of {} run(s): {} built, {} extended, {} loaded{}; {} in {:.2f} s\n",
                   parts.size(), runs.size(), counts[int(summary::SummaryOrigin::Built)],
                   counts[int(summary::SummaryOrigin::Extended)],
                   counts[int(summary::SummaryOrigin::Loaded)],
                   failed ? fmt::format(", {} failed", failed) : "", formatBytes(totalBytes), secs);
        if (opts->publish) publish(parts, results);
        printDiagnostics(diag);
        exitCode = failed ? kExitUnreadable : kExitOk;
    });
}

} // namespace xt::cli
