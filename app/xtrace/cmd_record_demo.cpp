// xtrace record-demo DIR [--ranks N] [--steps N] [--max-mb M] [--seed S]: writes the built-in
// demo run (core/demo) and says what it wrote.
#include "app/xtrace/cli_util.h"
#include "app/xtrace/commands.h"
#include "core/demo/demo_run.h"

#include <cstdio>
#include <fmt/format.h>

namespace xt::cli {

namespace {

int runDemo(const demo::DemoOptions& o) {
    auto written = demo::writeDemoRun(o);
    if (!written) {
        std::fprintf(stderr, "xtrace: %s\n", written.status().message().c_str());
        return kExitUnreadable;
    }
    const demo::DemoSummary& s = *written;
    fmt::print("wrote {}: {} rank(s) x {} step(s), {} part file(s), {} (max {:.3f} MB per part); "
               "NaN in gradient/fc2/weight on rank {} from gstep {}\n",
               o.dir, o.ranks, o.steps, s.parts, formatBytes(s.bytes), s.maxMB, s.nanRank,
               s.nanStep);
    return kExitOk;
}

} // namespace

void addRecordDemoCommand(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand(
        "record-demo", "Write a deterministic demo run (several ranks, drifting weights, "
                       "shrinking gradients, a NaN) with the recorder");
    auto opts = std::make_shared<demo::DemoOptions>();
    cmd->add_option("DIR", opts->dir, "output directory (created when missing)")->required();
    cmd->add_option("--ranks", opts->ranks, "number of ranks")
        ->capture_default_str()
        ->check(CLI::Range(1, 1024));
    cmd->add_option("--steps", opts->steps, "steps per rank")
        ->capture_default_str()
        ->check(CLI::Range(1, 10000000));
    cmd->add_option("--max-mb", opts->maxMB,
                    "max_file_m_size in decimal MB (default: about three parts per rank)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--seed", opts->seed, "random seed")->capture_default_str();
    cmd->callback([opts, &exitCode] { exitCode = runDemo(*opts); });
}

} // namespace xt::cli
