#pragma once
// Sub-commands of `xtrace`. Each add*Command registers its sub-command on `app`; when the
// sub-command runs it stores its exit status in `exitCode`: 0 success, 1 usage error,
// 2 unreadable input (as the README says). Data goes to stdout, diagnostics to stderr.

#include <CLI/CLI.hpp>

namespace xt::cli {

void addInfoCommand(CLI::App& app, int& exitCode);
void addDumpCommand(CLI::App& app, int& exitCode);
void addStatsCommand(CLI::App& app, int& exitCode);
void addHistCommand(CLI::App& app, int& exitCode);
void addDiffCommand(CLI::App& app, int& exitCode);
void addConvertCommand(CLI::App& app, int& exitCode);
void addExportCommand(CLI::App& app, int& exitCode);
void addRecordDemoCommand(CLI::App& app, int& exitCode);
void addTimelineCommand(CLI::App& app, int& exitCode);
void addPlotCommand(CLI::App& app, int& exitCode);
void addTimelineDiffCommand(CLI::App& app, int& exitCode);
void addTimelineRanksCommand(CLI::App& app, int& exitCode);
void addIndexCommand(CLI::App& app, int& exitCode);

} // namespace xt::cli
