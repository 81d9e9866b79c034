// The statistic plot's min/max decimation (P9: what a plot of a million records costs the GUI
// thread on every fit and zoom), as a ratio to one plain pass that finds the minimum and maximum
// of the same values (std::minmax_element), measured in the same run.
//
//   bench_plot [--benchmark_filter=...]
//
// 1.3 M points (a rank of the 1 GB run of ~200 B records) into 1200 buckets (a wide plot):
// BM_DecimateMinMax reads every point, BM_DecimateMinMaxBlocks the line's BlockExtrema and the
// points of the blocks a bucket cuts (what a plot does on every fit, zoom and pan), and
// BM_BlockExtrema builds those once per line.
#include "widgets/logic/series_math.h"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <cmath>
#include <vector>

namespace {

struct Line {
    std::vector<double> x, y;
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
        }
        return s;
    }();
    return l;
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
    for (auto _ : state) {
        const xt::view::BlockExtrema b = xt::view::blockExtrema(l.x, l.y);
        benchmark::DoNotOptimize(b.lowest.data());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * l.y.size()));
}

void BM_DecimateMinMaxBlocks(benchmark::State& state) {
    const Line& l = line();
    const xt::view::BlockExtrema blocks = xt::view::blockExtrema(l.x, l.y);
    for (auto _ : state) {
        const xt::view::XYSeries d = xt::view::decimateMinMax(l.x, l.y, 1200, blocks, 0);
        benchmark::DoNotOptimize(d.y.data());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * l.y.size()));
}

} // namespace

BENCHMARK(BM_MinMaxReference)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DecimateMinMax)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BlockExtrema)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DecimateMinMaxBlocks)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
