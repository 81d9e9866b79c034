#pragma once
// The built-in demo run, written with the recorder: deterministic for given options, so the
// README, `xtrace record-demo` and the viewer's "Open the Demo Run" all show the same data.
//
// The simulated job is data-parallel: every rank holds the same weights (a 3-layer MLP) that
// drift as training goes on, each rank has its own gradients (shrinking over time), activations
// (one raw, one summarised as a mean over the batch), a loss, a learning rate traced through a
// callback, and its configuration traced once as a string (Int8). On one rank a NaN appears in
// one gradient two thirds of the way through; with divergeRank, that rank's gradients drift away
// from the others' from the middle of the run on (an outlier rank). Timestamps start at a fixed
// time and advance by a jittered step time.

#include "core/base/progress.h"
#include "core/base/status.h"

#include <cstdint>
#include <string>

namespace xt::demo {

struct DemoOptions {
    std::string dir; // created when missing
    int ranks = 4;
    int steps = 100;
    double maxMB = 0; // max_file_m_size in decimal MB; 0: about three parts per rank
    std::uint64_t seed = 7;
    int divergeRank = -1; // none
    // > 0: written in real time, this many steps per second per rank (step i is committed i /
    // liveRate seconds after the start), stamped with the system clock instead of the fixed one.
    double liveRate = 0;
};

struct DemoSummary {
    std::int64_t parts = 0;  // part files written, over all ranks
    std::uint64_t bytes = 0; // bytes written
    double maxMB = 0;        // the part size limit used
    int nanRank = 0;         // where the NaN appears in gradient/fc2/weight
    int nanStep = 0;
};

// Where the NaN of gradient/fc2/weight appears: rank 1 (rank 0 when alone) from two thirds of the
// steps on.
struct DemoNan {
    int rank = 0;
    int step = 0;
};
DemoNan demoNan(const DemoOptions& options);

// Writes the demo run into options.dir. Progress is reported once per step ("writing the demo
// run"); returning false cancels (Cancelled, with the files written so far left in place).
Result<DemoSummary> writeDemoRun(const DemoOptions& options, const ProgressCallback& progress = {});

} // namespace xt::demo
