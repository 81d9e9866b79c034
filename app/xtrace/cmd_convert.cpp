// xtrace convert PATH --chrome OUT.json: the steps of every rank as a Chrome trace.
#include "app/xtrace/cli_util.h"
#include "app/xtrace/commands.h"
#include "core/export/chrome_steps_writer.h"

#include <cstdio>

namespace xt::cli {

void addConvertCommand(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand(
        "convert", "Write the steps of every rank (from record timestamps) as a Chrome trace");
    struct Opts {
        std::vector<std::string> paths;
        std::string chrome;
    };
    auto opts = std::make_shared<Opts>();
    cmd->add_option("PATH", opts->paths, "data files, run directories or glob patterns")
        ->required();
    cmd->add_option("--chrome", opts->chrome, "output Chrome Trace Event Format JSON file")
        ->required();
    cmd->callback([opts, &exitCode] {
        Diagnostics diag;
        std::vector<xdl::RunReader> runs;
        if ((exitCode = openRuns(opts->paths, diag, runs)) != kExitOk) return;
        printDiagnostics(diag);
        ProgressBar bar;
        auto report = writeChromeSteps(runs, opts->chrome, bar.callback());
        bar.finish();
        if (!report) {
            std::fprintf(stderr, "xtrace: %s\n", report.status().message().c_str());
            exitCode = kExitUnreadable;
            return;
        }
        std::fprintf(stderr, "wrote %s: %llu steps, %llu instant events\n", opts->chrome.c_str(),
                     static_cast<unsigned long long>(report->steps),
                     static_cast<unsigned long long>(report->instants));
    });
}

} // namespace xt::cli
