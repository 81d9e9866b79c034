// xtrace stats PATH [--key REGEX] [--rank R] [--backend auto|cpu|cuda] [--format jsonl|csv]:
// one line per (rank, key, record) with the statistics of core/analysis/tensor_stats.h.
#include "app/xtrace/analysis_options.h"
#include "app/xtrace/cli_util.h"
#include "app/xtrace/commands.h"
#include "core/analysis/key_stats.h"
#include "core/base/json_writer.h"
#include "core/export/stats_csv.h"

#include <cstdio>
#include <optional>

namespace xt::cli {

namespace {

void appendJsonl(std::string& out, int rank, const std::string& key,
                 const analysis::RecordStats& r) {
    JsonWriter w;
    w.beginObject();
    w.field("rank", rank).field("key", key);
    w.field("gstep", r.gstep).field("lstep", r.lstep).field("timestamp", r.timestamp);
    const auto& s = r.stats;
    w.field("count", s.count).field("nan", s.nan).field("inf", s.inf).field("zeros", s.zeros);
    if (s.hasFinite()) {
        w.field("min", s.min).field("max", s.max).field("mean", s.mean);
        w.field("std", s.std).field("l2", s.l2);
    }
    w.endObject();
    out += w.str();
    out += '\n';
}

void flushIfLarge(std::string& out, bool force = false) {
    if (out.size() < (1u << 20) && !force) return;
    std::fwrite(out.data(), 1, out.size(), stdout);
    out.clear();
}

} // namespace

void addStatsCommand(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand(
        "stats", "Per-record statistics (count, nan, inf, zeros, min, max, mean, std, l2) of "
                 "every key and rank");
    struct Opts {
        std::string path, key, backend = "auto", format = "jsonl";
        std::optional<int> rank;
    };
    auto opts = std::make_shared<Opts>();
    cmd->add_option("PATH", opts->path, "data file, run directory or glob pattern")->required();
    cmd->add_option("--key", opts->key, "only keys matching this regex (anchor with ^...$)");
    cmd->add_option("--rank", opts->rank, "only this worker rank");
    cmd->add_option("--backend", opts->backend, "compute backend")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    cmd->add_option("--format", opts->format, "output format")
        ->check(CLI::IsMember({"jsonl", "csv"}));
    cmd->callback([opts, &exitCode] {
        analysis::KeyStatsOptions ko;
        if (!makeKeyFilter(opts->key, ko.keyFilter)) {
            exitCode = kExitUsage;
            return;
        }
        ko.rank = opts->rank;
        Diagnostics diag;
        std::vector<summary::OpenedRun> runs; // stored summaries give the statistics they hold
        if ((exitCode = openRuns({opts->path}, diag, runs)) != kExitOk) return;
        if (runs.size() > 1)
            std::fprintf(stderr, "xtrace: %zu runs found; their lines follow one another\n",
                         runs.size());
        std::uint64_t work = 0;
        for (const auto& run : runs) {
            ko.summaries = &run.summaries;
            work += analysis::estimateWorkBytes(run.reader, ko);
        }
        auto backend = chooseBackend(opts->backend, work);
        const bool csv = opts->format == "csv";
        std::string out;
        if (csv) appendStatsCsvHeader(out);
        for (const auto& run : runs) {
            ProgressBar bar;
            ko.summaries = &run.summaries;
            auto series = analysis::computeKeyStats(run.reader, *backend, ko, diag, bar.callback());
            bar.finish();
            if (!series) {
                flushIfLarge(out, true);
                std::fprintf(stderr, "xtrace: %s\n", series.status().message().c_str());
                printDiagnostics(diag);
                exitCode = kExitUnreadable;
                return;
            }
            for (const auto& s : *series) {
                for (const auto& r : s.records) {
                    if (csv)
                        appendStatsCsvRow(out, s.rank, s.key, r);
                    else
                        appendJsonl(out, s.rank, s.key, r);
                    flushIfLarge(out);
                }
            }
        }
        flushIfLarge(out, true);
        printDiagnostics(diag);
        exitCode = kExitOk;
    });
}

} // namespace xt::cli
