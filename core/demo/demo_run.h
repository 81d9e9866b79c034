#pragma once
// The built-in demo run, written with the recorder: deterministic for given options, so the
// README, `xtrace record-demo` and the viewer's "Open the Demo Run" all show the same data.
//
// The simulated job is data-parallel: every rank holds the same weights (a 3-layer MLP) that
// drift as training goes on, each rank has its own gradients (shrinking over time), activations
// (one raw, one summarised as a mean over the batch), a loss, a learning rate traced through a
// callback, and its configuration traced once as a string (Int8). On one rank a NaN appears in
// one gradient two thirds of the way through. Timestamps start at a fixed time and advance by a
// jittered step time.

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
};

struct DemoSummary {
    std::int64_t parts = 0;  // part files written, over all ranks
    std::uint64_t bytes = 0; // bytes written
    double maxMB = 0;        // the part size limit used
    int nanRank = 0;         // where the NaN appears in gradient/fc2/weight
    int nanStep = 0;
};

// Writes the demo run into options.dir. Progress is reported once per step ("writing the demo
// run"); returning false cancels (Cancelled, with the files written so far left in place).
Result<DemoSummary> writeDemoRun(const DemoOptions& options, const ProgressCallback& progress = {});

} // namespace xt::demo
