// xtrace record-demo DIR [--ranks N] [--steps N] [--max-mb M] [--seed S] [--diverge-rank R]
//                       [--live [--rate HZ]]:
// writes the built-in demo run (core/demo) and says what it wrote. --live writes it in real time
// (HZ steps per second per rank, system clock timestamps) for watching a run train.
#include "app/xtrace/cli_util.h"
#include "app/xtrace/commands.h"
#include "core/demo/demo_run.h"

#include <cstdio>
#include <fmt/format.h>

namespace xt::cli {

namespace {

int runDemo(const demo::DemoOptions& o) {
    if (o.liveRate > 0) {
        const demo::DemoNan nan = demo::demoNan(o);
        fmt::print("recording {} live: {} rank(s) x {} step(s) at {} step(s)/s per rank; NaN "
                   "in gradient/fc2/weight on rank {} from gstep {}\n",
                   o.dir, o.ranks, o.steps, o.liveRate, nan.rank, nan.step);
        std::fflush(stdout);
    }
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
    cmd->add_option("--diverge-rank", opts->divergeRank,
                    "this rank's gradients drift away from the other ranks' from the middle of "
                    "the run on (an outlier rank)")
        ->check(CLI::Range(0, 1023));
    struct Live {
        bool on = false;
        double rate = 10; // steps per second per rank
    };
    auto live = std::make_shared<Live>();
    auto* steps = cmd->get_option("--steps");
    cmd->add_flag("--live", live->on,
                  "write in real time (system clock timestamps; 600 steps unless --steps)");
    cmd->add_option("--rate", live->rate, "with --live: steps per second per rank")
        ->capture_default_str()
        ->check(CLI::Range(0.01, 100000.0));
    cmd->callback([opts, live, steps, &exitCode] {
        if (live->on) {
            opts->liveRate = live->rate;
            if (steps->count() == 0) opts->steps = 600;
        }
        exitCode = runDemo(*opts);
    });
}

} // namespace xt::cli
