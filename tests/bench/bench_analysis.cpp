// P3 (docs/BENCHMARKS.md): histogram of float32 with 4096 bins on the CPU backend, and the
// statistics kernel, each with a reference in the same run: a plain reading pass over the same
// memory on one core (what the memory system allows). Default size 2.5e8 float32 (1 GB); the 1e9
// target is scaled linearly (counter `s_per_1e9`). XT_BENCH_ELEMENTS overrides the size.
// The BM_Cuda cases run where a CUDA device is present (else they report an error and are
// skipped): /0 with the upload from host memory in every call; BM_CudaHistogram4096/1 with the
// tensor resident on the device (P3's "data on device": the backend keeps what it binned).
// Each first checks its result against the CPU backend's.
//
//   bench_analysis [--benchmark_filter=...] [--benchmark_min_time=...]
#include "core/analysis/cpu_backend.h"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

using namespace xt;
using namespace xt::analysis;

namespace {

std::size_t elements() {
    const char* e = std::getenv("XT_BENCH_ELEMENTS");
    return e ? std::size_t(std::strtoull(e, nullptr, 10)) : std::size_t(250'000'000);
}

// Normal(0, 1) float32 values, generated once (filled in parallel-friendly 1M blocks).
const std::vector<float>& data() {
    static const std::vector<float> v = [] {
        std::vector<float> out(elements());
        std::mt19937 rng(42);
        std::normal_distribution<float> normal(0.f, 1.f);
        std::vector<float> block(1 << 20);
        for (auto& x : block)
            x = normal(rng);
        for (std::size_t i = 0; i < out.size(); i += block.size())
            std::memcpy(out.data() + i, block.data(),
                        std::min(block.size(), out.size() - i) * sizeof(float));
        for (std::size_t i = 0; i < out.size(); i += 4099) // not periodic in the bins
            out[i] = normal(rng);
        return out;
    }();
    return v;
}

xdl::TensorView view() {
    const auto& v = data();
    xdl::Shape s;
    s.rank = 1;
    s.dims[0] = std::int64_t(v.size());
    return {xdl::Dtype::Float, s,
            xdl::Bytes(reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * 4)};
}

void setCounters(benchmark::State& state) {
    const double n = double(data().size());
    state.SetBytesProcessed(std::int64_t(state.iterations() * n * 4));
    state.counters["s_per_1e9"] =
        benchmark::Counter(double(state.iterations()) * n / 1e9,
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Reference: one core reading the same memory (XOR of 64-bit words, vectorised): the
// bandwidth any single-pass kernel on one core is bounded by.
void BM_ReferenceRead(benchmark::State& state) {
    const auto& v = data();
    const std::size_t words = v.size() / 2;
    for (auto _ : state) {
        std::uint64_t x = 0;
        const auto* p = reinterpret_cast<const std::uint8_t*>(v.data());
        for (std::size_t i = 0; i < words; ++i) {
            std::uint64_t w;
            std::memcpy(&w, p + i * 8, 8);
            x ^= w;
        }
        benchmark::DoNotOptimize(x);
    }
    setCounters(state);
}

void BM_Stats(benchmark::State& state) {
    CpuBackend backend(int(state.range(0)));
    const xdl::TensorView t = view();
    std::vector<TensorStats> out(1);
    for (auto _ : state) {
        if (!backend.computeStats({&t, 1}, out).isOk()) state.SkipWithError("stats failed");
        benchmark::DoNotOptimize(out[0].mean);
    }
    setCounters(state);
}

void BM_Histogram4096(benchmark::State& state) {
    CpuBackend backend(int(state.range(0)));
    const xdl::TensorView t = view();
    const BinLayout layout{4096, -5.0, 5.0};
    std::vector<Histogram> out(1);
    for (auto _ : state) {
        if (!backend.histogram({&t, 1}, layout, out).isOk()) state.SkipWithError("hist failed");
        benchmark::DoNotOptimize(out[0].counts.data());
    }
    setCounters(state);
}

Backend* cudaBackend() {
    static const std::unique_ptr<Backend> backend = [] {
        BackendSelection sel = selectBackend(BackendChoice::Cuda);
        return sel.backend->kind() == BackendKind::Cuda ? std::move(sel.backend) : nullptr;
    }();
    return backend.get();
}

// Runs `call` on the CUDA backend after checking it once against the CPU backend (`same`).
template <class Out, class Call, class Same>
void runCuda(benchmark::State& state, Call&& call, Same&& same) {
    Backend* cuda = cudaBackend();
    if (!cuda) {
        state.SkipWithError("no CUDA device");
        return;
    }
    const xdl::TensorView t = view();
    std::vector<Out> want(1), got(1);
    CpuBackend cpu;
    if (!call(cpu, t, want).isOk() || !call(*cuda, t, got).isOk() || !same(got[0], want[0])) {
        state.SkipWithError("the CUDA result differs from the CPU backend's");
        return;
    }
    const bool resident = state.range(0) == 1;
    for (auto _ : state) {
        if (!resident) {
            state.PauseTiming();
            cuda->releaseCache();
            state.ResumeTiming();
        }
        if (!call(*cuda, t, got).isOk()) state.SkipWithError("cuda call failed");
        benchmark::DoNotOptimize(got.data());
    }
    setCounters(state);
}

void BM_CudaHistogram4096(benchmark::State& state) {
    const BinLayout layout{4096, -5.0, 5.0};
    runCuda<Histogram>(
        state,
        [&](Backend& b, const xdl::TensorView& t, std::vector<Histogram>& out) {
            return b.histogram({&t, 1}, layout, out);
        },
        [](const Histogram& a, const Histogram& b) {
            return a.counts == b.counts && a.nan == b.nan && a.below == b.below &&
                   a.above == b.above && a.posInf == b.posInf && a.negInf == b.negInf;
        });
}

void BM_CudaStats(benchmark::State& state) {
    runCuda<TensorStats>(
        state,
        [](Backend& b, const xdl::TensorView& t, std::vector<TensorStats>& out) {
            return b.computeStats({&t, 1}, out);
        },
        [](const TensorStats& a, const TensorStats& b) {
            auto close = [](double x, double y) {
                return std::fabs(x - y) <= 1e-9 * std::max(1.0, std::fabs(y));
            };
            return a.count == b.count && a.nan == b.nan && a.finite == b.finite &&
                   a.zeros == b.zeros && a.min == b.min && a.max == b.max &&
                   close(a.mean, b.mean) && close(a.std, b.std) && close(a.l2, b.l2);
        });
}

} // namespace

BENCHMARK(BM_ReferenceRead)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Stats)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Histogram4096)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CudaHistogram4096)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CudaStats)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
