// xtrace stats PATH [--key REGEX] [--rank R] [--backend auto|cpu|cuda] [--format jsonl|csv]
// [--follow]: one line per (rank, key, record) with the statistics of
// core/analysis/tensor_stats.h. --follow keeps printing the rows of records as they are
// committed, until SIGINT or until every part's meta is finalised.
#include "app/xtrace/analysis_options.h"
#include "app/xtrace/cli_util.h"
#include "app/xtrace/commands.h"
#include "core/analysis/key_stats.h"
#include "core/base/json_writer.h"
#include "core/export/stats_csv.h"
#include "core/xdl/run_follower.h"

#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <mutex>
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

volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void onInterrupt(int) {
    g_interrupted = 1;
}

// Every part finalised this long (and nothing new) ends --follow: a recorder that splits a part
// finalises the old meta just before it creates the next part.
constexpr std::chrono::milliseconds kEndGrace{1000};

struct Followed {
    std::unique_ptr<xdl::RunFollower> follower;
    std::map<int, std::size_t> printed; // records printed per rank
    std::size_t diagnosticsPrinted = 0;
    bool finalised = false;
};

// Prints the rows of the records committed since the last call, then new diagnostics.
Status printNew(Followed& f, analysis::Backend& backend, analysis::KeyStatsOptions ko, bool csv,
                std::string& out) {
    Status status = Status::ok();
    Diagnostics statDiag;
    f.follower->withReader([&](const xdl::RunReader& reader, const Diagnostics& diag) {
        ko.fromRecord = f.printed;
        auto series = analysis::computeKeyStats(reader, backend, ko, statDiag);
        if (!series) {
            status = series.status();
            return;
        }
        for (const auto& s : *series)
            for (const auto& r : s.records) {
                if (csv)
                    appendStatsCsvRow(out, s.rank, s.key, r);
                else
                    appendJsonl(out, s.rank, s.key, r);
            }
        for (const auto& rank : reader.ranks())
            f.printed[rank.rank()] = rank.recordCount();
        flushIfLarge(out, true);
        std::fflush(stdout);
        for (; f.diagnosticsPrinted < diag.items().size(); ++f.diagnosticsPrinted)
            std::fprintf(stderr, "%s\n", diag.items()[f.diagnosticsPrinted].toString().c_str());
    });
    printDiagnostics(statDiag);
    return status;
}

int follow(const std::vector<xdl::RunFiles>& runs, const std::string& backendName,
           const analysis::KeyStatsOptions& ko, bool csv, double idleAfterSeconds) {
    xdl::FollowOptions options;
    options.idleAfter = std::chrono::milliseconds(std::llround(idleAfterSeconds * 1000));
    std::mutex mutex;
    std::condition_variable wake;
    bool changed = false;
    std::vector<Followed> followed(runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
        auto f = xdl::RunFollower::start(
            runs[i].directory, runs[i].prefix, runs[i].name,
            [&, i](const xdl::FollowUpdate& u) {
                std::lock_guard lock(mutex);
                followed[i].finalised = u.finalised;
                changed = true;
                wake.notify_one();
            },
            options);
        if (!f) {
            std::fprintf(stderr, "xtrace: %s\n", f.status().message().c_str());
            return kExitUnreadable;
        }
        followed[i].follower = std::move(*f);
        followed[i].follower->withReader([&](const xdl::RunReader& reader, const Diagnostics&) {
            std::lock_guard lock(mutex); // the watcher may be updating it already
            followed[i].finalised = xdl::allPartsFinalised(reader);
        });
    }
    auto backend = chooseBackend(backendName);
    struct sigaction sa {};
    sa.sa_handler = onInterrupt;
    sigemptyset(&sa.sa_mask);
    struct sigaction previous {};
    sigaction(SIGINT, &sa, &previous);
    std::string out;
    if (csv) appendStatsCsvHeader(out);
    int exitCode = kExitOk;
    auto finalisedSince = std::chrono::steady_clock::time_point::max();
    for (bool first = true; !g_interrupted; first = false) {
        {
            std::unique_lock lock(mutex);
            if (!first)
                wake.wait_for(lock, std::chrono::milliseconds(100),
                              [&] { return changed || g_interrupted; });
            if (!changed && !first) {
                bool allFinalised = true;
                for (const auto& f : followed)
                    allFinalised = allFinalised && f.finalised;
                auto now = std::chrono::steady_clock::now();
                if (!allFinalised)
                    finalisedSince = std::chrono::steady_clock::time_point::max();
                else if (finalisedSince == std::chrono::steady_clock::time_point::max())
                    finalisedSince = now;
                else if (now - finalisedSince >= kEndGrace)
                    break;
                continue;
            }
            changed = false;
            finalisedSince = std::chrono::steady_clock::time_point::max();
        }
        for (auto& f : followed)
            if (Status st = printNew(f, *backend, ko, csv, out); !st) {
                std::fprintf(stderr, "xtrace: %s\n", st.message().c_str());
                exitCode = kExitUnreadable;
                g_interrupted = 1;
            }
    }
    sigaction(SIGINT, &previous, nullptr);
    g_interrupted = 0;
    for (auto& f : followed) {
        f.follower->stop();
        if (exitCode != kExitOk) continue;
        if (Status st = printNew(f, *backend, ko, csv, out); !st) { // since the last wake-up
            std::fprintf(stderr, "xtrace: %s\n", st.message().c_str());
            exitCode = kExitUnreadable;
        }
    }
    return exitCode;
}

} // namespace

void addStatsCommand(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand(
        "stats", "Per-record statistics (count, nan, inf, zeros, min, max, mean, std, l2) of "
                 "every key and rank");
    struct Opts {
        std::string path, key, backend = "auto", format = "jsonl";
        std::optional<int> rank;
        bool follow = false;
        double idleAfter = 10;
    };
    auto opts = std::make_shared<Opts>();
    cmd->add_option("PATH", opts->path, "data file, run directory or glob pattern")->required();
    cmd->add_option("--key", opts->key, "only keys matching this regex (anchor with ^...$)");
    cmd->add_option("--rank", opts->rank, "only this worker rank");
    cmd->add_option("--backend", opts->backend, "compute backend")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    cmd->add_option("--format", opts->format, "output format")
        ->check(CLI::IsMember({"jsonl", "csv"}));
    cmd->add_flag("--follow,-f", opts->follow,
                  "keep printing rows as records are committed (a run being recorded), until "
                  "Ctrl-C or until every part is finalised");
    cmd->add_option("--idle-after", opts->idleAfter,
                    "with --follow: a part not grown for this many seconds is idle, and a partial "
                    "record at its end is reported")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cmd->callback([opts, &exitCode] {
        analysis::KeyStatsOptions ko;
        if (!makeKeyFilter(opts->key, ko.keyFilter)) {
            exitCode = kExitUsage;
            return;
        }
        ko.rank = opts->rank;
        Diagnostics diag;
        if (opts->follow) {
            std::vector<xdl::RunFiles> found;
            if ((exitCode = discoverPaths({opts->path}, diag, found)) != kExitOk) return;
            printDiagnostics(diag);
            exitCode = follow(found, opts->backend, ko, opts->format == "csv", opts->idleAfter);
            return;
        }
        std::vector<summary::OpenedRun> runs; // stored summaries give the statistics they hold
        xdl::ReaderOptions reader;
        reader.readsWhole = true; // the records no summary holds
        if ((exitCode = openRuns({opts->path}, diag, runs, reader)) != kExitOk) return;
        if (runs.size() > 1)
            std::fprintf(stderr, "xtrace: %zu runs found; their lines follow one another\n",
                         runs.size());
        auto backend = chooseBackend(opts->backend);
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
