// xtrace export PATH (--hdf5 OUT.h5 | --csv OUT.csv) [--key REGEX]: a run's tensors and
// statistics to HDF5 (the layout of README "HDF5 layout"), or its per-record statistics to CSV.
#include "app/xtrace/analysis_options.h"
#include "app/xtrace/cli_util.h"
#include "app/xtrace/commands.h"
#include "core/analysis/key_stats.h"
#include "core/export/atomic_file.h"
#include "core/export/hdf5_exporter.h"
#include "core/export/stats_csv.h"

#include <cstdio>
#include <optional>

namespace xt::cli {

namespace {

int exportCsv(const xdl::RunReader& run, const std::string& out, analysis::Backend& backend,
              const analysis::KeyStatsOptions& ko, std::optional<std::int64_t> first,
              std::optional<std::int64_t> last, Diagnostics& diag) {
    ProgressBar bar;
    auto series = analysis::computeKeyStats(run, backend, ko, diag, bar.callback());
    bar.finish();
    if (!series) {
        std::fprintf(stderr, "xtrace: %s\n", series.status().message().c_str());
        return kExitUnreadable;
    }
    auto file = AtomicFile::create(out);
    if (!file) {
        std::fprintf(stderr, "xtrace: %s\n", file.status().message().c_str());
        return kExitUnreadable;
    }
    std::string buf;
    appendStatsCsvHeader(buf);
    std::uint64_t rows = 0;
    for (const auto& s : *series) {
        for (const auto& r : s.records) {
            if ((first && r.gstep < *first) || (last && r.gstep > *last)) continue;
            appendStatsCsvRow(buf, s.rank, s.key, r);
            ++rows;
            if (buf.size() > (1u << 20)) file->write(buf), buf.clear();
        }
    }
    file->write(buf);
    Status st = file->commit();
    if (!st) {
        std::fprintf(stderr, "xtrace: %s\n", st.message().c_str());
        return kExitUnreadable;
    }
    std::fprintf(stderr, "wrote %s: %llu statistics rows\n", out.c_str(),
                 static_cast<unsigned long long>(rows));
    return kExitOk;
}

} // namespace

void addExportCommand(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand(
        "export", "Export a run's tensors and statistics to HDF5, or its statistics to CSV");
    struct Opts {
        std::string path, hdf5, csv, key, steps, backend = "auto";
        int deflate = 0;
    };
    auto opts = std::make_shared<Opts>();
    cmd->add_option("PATH", opts->path, "data file, run directory or glob pattern")->required();
    auto* h5 = cmd->add_option("--hdf5", opts->hdf5, "HDF5 output file (layout in the README)");
    auto* csv = cmd->add_option("--csv", opts->csv, "CSV output file of per-record statistics");
    h5->excludes(csv);
    cmd->add_option("--key", opts->key, "only keys matching this regex (anchor with ^...$)");
    cmd->add_option("--steps", opts->steps, "only global steps A:B (inclusive; A: or :B open)");
    cmd->add_option("--deflate", opts->deflate, "HDF5 gzip level, 0 (none) to 9")
        ->check(CLI::Range(0, 9));
    cmd->add_option("--backend", opts->backend, "compute backend for the statistics")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    cmd->callback([opts, &exitCode] {
        if (opts->hdf5.empty() == opts->csv.empty()) {
            std::fprintf(stderr, "xtrace export: give one of --hdf5 or --csv\n");
            exitCode = kExitUsage;
            return;
        }
        std::optional<std::int64_t> first, last;
        if (!opts->steps.empty()) {
            auto colon = opts->steps.find(':');
            try {
                if (colon == std::string::npos) throw std::invalid_argument("no colon");
                if (colon > 0) first = std::stoll(opts->steps.substr(0, colon));
                if (colon + 1 < opts->steps.size())
                    last = std::stoll(opts->steps.substr(colon + 1));
            } catch (const std::exception&) {
                std::fprintf(stderr, "xtrace export: --steps wants A:B, got '%s'\n",
                             opts->steps.c_str());
                exitCode = kExitUsage;
                return;
            }
        }
        analysis::KeyStatsOptions ko;
        if (!makeKeyFilter(opts->key, ko.keyFilter)) {
            exitCode = kExitUsage;
            return;
        }
        Diagnostics diag;
        std::vector<summary::OpenedRun> runs; // CSV rows come from stored summaries
        xdl::ReaderOptions reader;
        reader.readsWhole = !opts->hdf5.empty(); // every row of every chosen key
        if ((exitCode = openRuns({opts->path}, diag, runs, reader)) != kExitOk) return;
        if (runs.size() != 1) {
            std::fprintf(stderr, "xtrace export: %s holds %zu runs; export one run at a time\n",
                         opts->path.c_str(), runs.size());
            exitCode = kExitUsage;
            return;
        }
        const auto& run = runs.front().reader;
        ko.summaries = &runs.front().summaries;
        auto backend = chooseBackend(opts->backend);
        if (!opts->csv.empty()) {
            exitCode = exportCsv(run, opts->csv, *backend, ko, first, last, diag);
            printDiagnostics(diag);
            return;
        }
        Hdf5ExportOptions ho;
        ho.keyRegex = opts->key;
        ho.gstepFirst = first;
        ho.gstepLast = last;
        ho.deflateLevel = opts->deflate;
        ho.backend = backend.get();
        ProgressBar bar;
        auto report = exportHdf5(run, opts->hdf5, ho, diag, bar.callback());
        bar.finish();
        printDiagnostics(diag);
        if (!report) {
            std::fprintf(stderr, "xtrace: %s\n", report.status().message().c_str());
            exitCode =
                report.status().code() == ErrorCode::InvalidArgument ? kExitUsage : kExitUnreadable;
            return;
        }
        std::fprintf(stderr, "wrote %s: %llu key groups, %llu rows, %llu tensor bytes%s\n",
                     opts->hdf5.c_str(), static_cast<unsigned long long>(report->keys),
                     static_cast<unsigned long long>(report->rows),
                     static_cast<unsigned long long>(report->valueBytes),
                     report->raggedKeys ? " (some keys ragged: shapes vary)" : "");
        exitCode = kExitOk;
    });
}

} // namespace xt::cli
