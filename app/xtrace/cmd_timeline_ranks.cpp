// `xtrace timeline-ranks PATH... [--json] [--csv DIR]`: the Kineto traces of the ranks of a
// distributed job (files, directories, globs) imported in parallel and analysed per rank and
// across ranks (core/timeline/rank_analysis.h). The --json shape is documented in README
// ("timeline-ranks"); --csv writes the tables of core/export/ranks_report.h into DIR.
#include "app/xtrace/cli_util.h"
#include "app/xtrace/commands.h"

#include "core/export/ranks_report.h"
#include "core/timeline/rank_session.h"

#include <fmt/core.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace xt::cli {

namespace {

using namespace xt::timeline;

struct RanksArgs {
    std::vector<std::string> paths;
    bool json = false;
    std::string csv;
};

void writeText(const RankSession& session, const SessionAnalysis& a) {
    fmt::print("{:>5} {:>14} {:>7} {:>9} {:>9} {:>9} {:>12} {:>12}  {}\n", "rank", "gpu_window_us",
               "idle%", "compute%", "noncomp%", "overlap%", "launch_p50", "coll_wait_us", "file");
    for (std::size_t i = 0; i < a.perRank.size(); ++i) {
        const RankAnalysis& r = a.perRank[i];
        const TemporalBreakdown& t = r.temporal;
        auto share = [&](std::int64_t ns) {
            return t.windowNs > 0 ? fmt::format("{:.2f}", 100.0 * double(ns) / double(t.windowNs))
                                  : std::string("-");
        };
        const auto overlap = r.commCompOverlapPct();
        fmt::print("{:>5} {:>14.3f} {:>7} {:>9} {:>9} {:>9} {:>12} {:>12.3f}  {}\n",
                   session.ranks[i].rank, us(t.windowNs), share(t.idleNs), share(t.computeNs),
                   share(t.nonComputeNs), overlap ? fmt::format("{:.2f}", *overlap) : "-",
                   r.launch.delayP50Ns ? fmt::format("{:.3f}", *r.launch.delayP50Ns / 1000) : "-",
                   us(r.collectiveWaitNs), session.ranks[i].file);
    }
    if (!a.steps.empty()) {
        fmt::print("\n{:<24} {:>12} {:>12}\n", "step", "slowest_rank", "skew_us");
        for (const StepStraggler& s : a.steps)
            fmt::print("{:<24} {:>12} {:>12.3f}\n", s.name, s.slowestRank, us(s.skewNs));
    }
    const auto missing = session.missingRanks();
    if (!missing.empty()) {
        // Runs of three or more as "a-b".
        std::string list;
        for (std::size_t i = 0; i < missing.size();) {
            std::size_t j = i;
            while (j + 1 < missing.size() && missing[j + 1] == missing[j] + 1)
                ++j;
            if (!list.empty()) list += ", ";
            if (j >= i + 2) {
                list += fmt::format("{}-{}", missing[i], missing[j]);
                i = j + 1;
            } else {
                list += std::to_string(missing[i++]);
            }
        }
        fmt::print("\nmissing ranks: {}\n", list);
    }
}

int runRanks(const RanksArgs& args) {
    auto files = expandTracePaths(args.paths);
    if (!files) {
        std::fprintf(stderr, "xtrace timeline-ranks: %s\n", files.status().toString().c_str());
        return kExitUnreadable;
    }
    ProgressBar bar;
    auto session = importRanks(*files, {bar.callback()});
    if (!session) {
        bar.finish();
        std::fprintf(stderr, "xtrace timeline-ranks: %s\n", session.status().toString().c_str());
        return kExitUnreadable;
    }
    const SessionAnalysis analysis = analyzeRanks(*session);
    bar.finish();
    printDiagnostics(session->diagnostics);
    if (!args.csv.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(args.csv, ec);
        for (const ReportTable& t : ranksReportTables(*session, analysis)) {
            const Status st = writeReportTableCsv(args.csv + "/" + t.name + ".csv", t);
            if (!st) {
                std::fprintf(stderr, "xtrace timeline-ranks: %s\n", st.toString().c_str());
                return kExitUnreadable;
            }
        }
    }
    if (args.json) {
        std::fputs(ranksReportJson(*session, analysis).c_str(), stdout);
        std::fputc('\n', stdout);
    } else {
        writeText(*session, analysis);
    }
    return kExitOk;
}

} // namespace

void addTimelineRanksCommand(CLI::App& app, int& exitCode) {
    auto args = std::make_shared<RanksArgs>();
    CLI::App* cmd = app.add_subcommand(
        "timeline-ranks", "per-rank analyses of a multi-rank profile (one Kineto trace per rank)");
    cmd->add_option("PATH", args->paths, "trace files, directories of traces, or glob patterns")
        ->required();
    cmd->add_flag("--json", args->json, "machine-readable output (see README)");
    cmd->add_option("--csv", args->csv,
                    "write the tables (ranks, idle_by_stream, steps, stragglers, top_kernels) "
                    "as CSV files into this directory");
    cmd->callback([args, &exitCode] { exitCode = runRanks(*args); });
}

} // namespace xt::cli
