// The statistic plot's min/max decimation (P9: what a plot of a million records costs the GUI
// thread on every fit and zoom), as a ratio to one plain pass that finds the minimum and maximum
// of the same values (std::minmax_element), measured in the same run.
//
//   bench_plot [--benchmark_filter=...]
//
// 1.3 M points (a rank of the 1 GB run of ~200 B records) into 1200 buckets (a wide plot):
// BM_DecimateMinMax reads every point of plain arrays, BM_DecimateMinMaxBlocks the line's
// BlockExtrema and the points of the blocks a bucket cuts (what a plot does on every fit, zoom and
// pan), and BM_BlockExtrema builds those once per line (BM_BlockExtremaFiveLines for the five
// lines of a rank at once: tensor:0 a scalar's, which are equal and share one BlockExtrema after a
// pass that compares them; tensor:1 five different lines). All but BM_DecimateMinMax read the lines
// as the plot does: values of each record of a series, in place.
#include "widgets/logic/series_math.h"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <cmath>
#include <vector>

namespace {

struct Line {
    std::vector<double> x, y;
    xt::analysis::RecordSeries records; // the same points: gstep, mean (a scalar's records)
    xt::analysis::RecordSeries tensor;  // min, max, mean and std apart (a tensor's records)
};

const Line& line() {
    static const Line l = [] {
        Line s;
        const std::size_t n = 1300000;
        s.x.resize(n);
        s.y.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            s.x[i] = double(i);
            s.y[i] = std::sin(double(i) * 1e-3) + double(i % 7) * 0.01;
            xt::analysis::RecordStats r;
            r.record = i;
            r.gstep = std::int64_t(i);
            r.stats.count = r.stats.finite = 1;
            r.stats.min = r.stats.max = r.stats.mean = s.y[i];
            s.records.push_back(r);
            r.stats.count = r.stats.finite = 100;
            r.stats.min = s.y[i] - 1 - double(i % 5) * 0.1;
            r.stats.max = s.y[i] + 1 + double(i % 3) * 0.1;
            r.stats.std = 0.5 + double(i % 11) * 0.01;
            s.tensor.push_back(r);
        }
        return s;
    }();
    return l;
}

xt::view::LinePoints meanLine() {
    return {line().records, xt::view::XAxisMode::Gstep, 0, xt::view::LinePoints::Value::Stat,
            xt::analysis::StatField::Mean};
}

void BM_MinMaxReference(benchmark::State& state) {
    const Line& l = line();
    for (auto _ : state) {
        auto [lo, hi] = std::minmax_element(l.y.begin(), l.y.end());
        benchmark::DoNotOptimize(*lo + *hi);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * l.y.size()));
}

void BM_DecimateMinMax(benchmark::State& state) {
    const Line& l = line();
    for (auto _ : state) {
        const xt::view::XYSeries d = xt::view::decimateMinMax(l.x, l.y, 1200);
        benchmark::DoNotOptimize(d.y.data());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * l.y.size()));
}

void BM_BlockExtrema(benchmark::State& state) {
    const Line& l = line();
    const xt::view::LinePoints points = meanLine();
    for (auto _ : state) {
        const xt::view::BlockExtrema b = xt::view::blockExtrema(points);
        benchmark::DoNotOptimize(b.lowest.data());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * l.y.size()));
}

// The five lines of a rank the plot shows by default (mean, min-max band, std band), together.
// The five lines of a rank (mean, min-max band, std band): one line for a scalar, whose lines
// are equal, five for a tensor.
void BM_BlockExtremaFiveLines(benchmark::State& state) {
    using xt::view::LinePoints;
    using F = xt::analysis::StatField;
    const auto& r = state.range(0) ? line().tensor : line().records;
    const auto mode = xt::view::XAxisMode::Gstep;
    const LinePoints lines[] = {{r, mode, 0, LinePoints::Value::Stat, F::Mean},
                                {r, mode, 0, LinePoints::Value::Stat, F::Min},
                                {r, mode, 0, LinePoints::Value::Stat, F::Max},
                                {r, mode, 0, LinePoints::Value::MeanMinusStd},
                                {r, mode, 0, LinePoints::Value::MeanPlusStd}};
    const LinePoints* all[] = {&lines[0], &lines[1], &lines[2], &lines[3], &lines[4]};
    for (auto _ : state) {
        const auto b = xt::view::blockExtrema(all);
        benchmark::DoNotOptimize(b.front()->lowest.data());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * r.size()));
}

void BM_DecimateMinMaxBlocks(benchmark::State& state) {
    const Line& l = line();
    const xt::view::LinePoints points = meanLine();
    const xt::view::BlockExtrema blocks = xt::view::blockExtrema(points);
    for (auto _ : state) {
        const xt::view::XYSeries d =
            xt::view::decimateMinMax(points, 0, points.size(), 1200, blocks);
        benchmark::DoNotOptimize(d.y.data());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * l.y.size()));
}

} // namespace

BENCHMARK(BM_MinMaxReference)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DecimateMinMax)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BlockExtrema)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BlockExtremaFiveLines)
    ->ArgName("tensor")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DecimateMinMaxBlocks)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
