// xtrace: the command-line face of xtview. Links core only; works with no display.
#include "app/xtrace/commands.h"
#include "core/buildinfo/build_info.h"

#include <cstdio>

int main(int argc, char** argv) {
    CLI::App app{"xtrace: inspect and analyze XDL tensor traces and Chrome traces"};
    app.require_subcommand(1);
    // The build facts and whether CUDA runs here (probed only when --version is given).
    app.set_version_flag("--version", [] {
        std::string text = xt::buildinfo::versionText(
            "xtrace", {{"CUDA device", xt::buildinfo::cudaRuntimeStatus()}});
        text.pop_back(); // CLI11 adds the final newline
        return text;
    });
    int exitCode = 0;
    xt::cli::addInfoCommand(app, exitCode);
    xt::cli::addDumpCommand(app, exitCode);
    xt::cli::addStatsCommand(app, exitCode);
    xt::cli::addHistCommand(app, exitCode);
    xt::cli::addDiffCommand(app, exitCode);
    xt::cli::addConvertCommand(app, exitCode);
    xt::cli::addExportCommand(app, exitCode);
    xt::cli::addRecordDemoCommand(app, exitCode);
    xt::cli::addTimelineCommand(app, exitCode);
    xt::cli::addPlotCommand(app, exitCode);
    xt::cli::addTimelineDiffCommand(app, exitCode);
    xt::cli::addTimelineRanksCommand(app, exitCode);
    xt::cli::addIndexCommand(app, exitCode);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int rc = app.exit(e);
        return rc == 0 ? 0 : 1; // usage errors are exit status 1
    }
    std::fflush(stdout);
    return exitCode;
}
