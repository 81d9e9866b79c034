// xtrace hist PATH --key K [--bins N] [--range LO:HI] [--steps A:B] [--rank R]
//             [--scale linear|symlog] [--backend ...] [--json]
// Histogram of one key over a step range, per rank; --json adds the steps x bins matrix.
#include "app/xtrace/analysis_options.h"
#include "app/xtrace/cli_util.h"
#include "app/xtrace/commands.h"
#include "core/analysis/step_histogram.h"
#include "core/base/json_writer.h"

#include <cstdio>
#include <fmt/format.h>
#include <optional>

namespace xt::cli {

namespace {

void writeCounts(JsonWriter& w, const analysis::Histogram& h) {
    w.key("counts").beginArray();
    for (auto c : h.counts)
        w.value(c);
    w.endArray();
    w.field("nan", h.nan).field("posinf", h.posInf).field("neginf", h.negInf);
    w.field("below", h.below).field("above", h.above);
}

void writeJson(JsonWriter& w, const std::string& run, int rank, const std::string& key,
               const analysis::HistogramMatrix& m) {
    w.beginObject();
    w.field("run", run).field("rank", rank).field("key", key);
    w.field("bins", m.layout.bins).field("lo", m.layout.lo).field("hi", m.layout.hi);
    w.field("scale", m.layout.scale == analysis::BinScale::Linear ? "linear" : "symlog");
    if (m.layout.scale == analysis::BinScale::SymLog) w.field("linthresh", m.layout.linthresh);
    w.key("edges").beginArray();
    for (double e : m.layout.edges())
        w.value(e);
    w.endArray();
    writeCounts(w, m.total);
    w.key("steps").beginArray();
    for (auto s : m.steps)
        w.value(s);
    w.endArray();
    w.key("matrix").beginArray();
    for (const auto& row : m.rows) {
        w.beginArray();
        for (auto c : row.counts)
            w.value(c);
        w.endArray();
    }
    w.endArray();
    w.key("row_outside").beginArray(); // per step: nan, posinf, neginf, below, above
    for (const auto& row : m.rows) {
        w.beginArray();
        for (auto c : {row.nan, row.posInf, row.negInf, row.below, row.above})
            w.value(c);
        w.endArray();
    }
    w.endArray();
    w.endObject();
}

void printText(const std::string& run, int rank, const std::string& key,
               const analysis::HistogramMatrix& m) {
    const auto& h = m.total;
    fmt::print("# run {} rank {} key {} steps {}..{} ({} steps) bins {} range [{}, {}] {}\n", run,
               rank, key, m.steps.front(), m.steps.back(), m.steps.size(), m.layout.bins,
               m.layout.lo, m.layout.hi,
               m.layout.scale == analysis::BinScale::Linear ? "linear" : "symlog");
    fmt::print("# nan {} +inf {} -inf {} below {} above {}\n", h.nan, h.posInf, h.negInf, h.below,
               h.above);
    fmt::print("# lo hi count\n");
    const auto edges = m.layout.edges();
    std::string out;
    for (int i = 0; i < m.layout.bins; ++i)
        out += fmt::format("{} {} {}\n", edges[std::size_t(i)], edges[std::size_t(i) + 1],
                           h.counts[std::size_t(i)]);
    std::fwrite(out.data(), 1, out.size(), stdout);
}

} // namespace

void addHistCommand(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand(
        "hist", "Histogram of a key over a step range (per rank), with NaN/Inf and out-of-range "
                "counted apart; --json adds the steps x bins matrix");
    struct Opts {
        std::string path, key, range, steps, backend = "auto", scale = "linear";
        int bins = 64;
        double linthresh = 1.0;
        std::optional<int> rank;
        bool json = false;
    };
    auto opts = std::make_shared<Opts>();
    cmd->add_option("PATH", opts->path, "data file, run directory or glob pattern")->required();
    cmd->add_option("--key", opts->key, "the key (tensor name)")->required();
    cmd->add_option("--bins", opts->bins, "number of bins")
        ->check(CLI::Range(1, analysis::kMaxBins));
    cmd->add_option("--range", opts->range,
                    "LO:HI (default: min and max of the finite data of each rank over --steps)");
    cmd->add_option("--steps", opts->steps, "gstep range A:B, A: or :B (inclusive)");
    cmd->add_option("--rank", opts->rank, "only this worker rank (default: each rank)");
    cmd->add_option("--scale", opts->scale, "bin scale")
        ->check(CLI::IsMember({"linear", "symlog"}));
    cmd->add_option("--linthresh", opts->linthresh, "symlog: half-width of the linear region");
    cmd->add_option("--backend", opts->backend, "compute backend")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    cmd->add_flag("--json", opts->json, "machine-readable output with the steps x bins matrix");
    cmd->callback([opts, &exitCode] {
        analysis::HistogramOptions ho;
        ho.bins = opts->bins;
        ho.scale =
            opts->scale == "symlog" ? analysis::BinScale::SymLog : analysis::BinScale::Linear;
        ho.linthresh = opts->linthresh;
        if (!opts->range.empty()) {
            double lo = 0, hi = 0;
            Status st = analysis::parseRange(opts->range, lo, hi);
            if (!st) {
                std::fprintf(stderr, "xtrace: %s\n", st.message().c_str());
                exitCode = kExitUsage;
                return;
            }
            ho.lo = lo;
            ho.hi = hi;
        }
        analysis::StepRange steps;
        if (!opts->steps.empty()) {
            Status st = analysis::parseStepRange(opts->steps, steps);
            if (!st) {
                std::fprintf(stderr, "xtrace: %s\n", st.message().c_str());
                exitCode = kExitUsage;
                return;
            }
        }
        Diagnostics diag;
        std::vector<summary::OpenedRun> runs; // summaries give automatic ranges (one pass less)
        xdl::ReaderOptions reader;
        reader.readsWhole = true; // every row of every chosen key
        if ((exitCode = openRuns({opts->path}, diag, runs, reader)) != kExitOk) return;
        auto backend = chooseBackend(opts->backend);
        JsonWriter w(true);
        w.beginObject().key("histograms").beginArray();
        bool any = false;
        for (const auto& opened : runs) {
            const xdl::RunReader& run = opened.reader;
            for (const auto& rank : run.ranks()) {
                if (opts->rank && rank.rank() != *opts->rank) continue;
                ProgressBar bar;
                auto m = analysis::stepHistograms(rank, opts->key, *backend, ho, steps, diag,
                                                  bar.callback(), &opened.summaries);
                bar.finish();
                if (!m) {
                    if (m.status().code() == ErrorCode::NotFound) continue;
                    std::fprintf(stderr, "xtrace: %s\n", m.status().message().c_str());
                    printDiagnostics(diag);
                    exitCode = kExitUnreadable;
                    return;
                }
                any = true;
                if (opts->json)
                    writeJson(w, run.files().label(), rank.rank(), opts->key, *m);
                else
                    printText(run.files().label(), rank.rank(), opts->key, *m);
            }
        }
        w.endArray().endObject();
        printDiagnostics(diag);
        if (!any) {
            std::fprintf(stderr, "xtrace: no record holds key '%s'%s\n", opts->key.c_str(),
                         opts->steps.empty() ? "" : " in the step range");
            exitCode = kExitUnreadable;
            return;
        }
        if (opts->json) std::printf("%s\n", w.str().c_str());
        exitCode = kExitOk;
    });
}

} // namespace xt::cli
